'use strict';
// launch runs the native askcore command for this machine: the binary in
// the per-platform package (PREFIX-PLATFORM-ARCH) that npm installed beside
// this one, chosen by its os and cpu fields, as esbuild and biome ship
// theirs. Nothing is downloaded and no install script runs. The command
// gets this process's arguments and stdio (the file descriptors themselves:
// an MCP host's pipes reach the binary untouched), its signals are passed
// on and its exit status is this process's.
const { spawn } = require('node:child_process');
const { isatty } = require('node:tty');

function launch(prefix, command) {
  const pkg = `${prefix}-${process.platform}-${process.arch}`;
  const file = `${pkg}/bin/${command}${process.platform === 'win32' ? '.exe' : ''}`;
  let bin;
  try {
    bin = require.resolve(file);
  } catch {
    process.stderr.write(
      `${command}: ${pkg} is not installed, so there is no ${command} for ${process.platform}-${process.arch} here.\n` +
        `It is an optional dependency of ${prefix}: npm leaves it out with --omit=optional (or --no-optional), ` +
        `and askcore is built for linux, darwin and win32 on x64 and arm64 only.\n`,
    );
    process.exit(1);
  }
  const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
  // A terminal sends SIGINT and SIGHUP to its whole foreground process
  // group, the binary included: passed on too, a second one would read as
  // "stop now" (askcore's commands exit at once on a second signal). So
  // they are passed on only when stdin is not a terminal (a host's pipes,
  // which signal this process alone); SIGTERM always.
  const fromTerminal = isatty(0);
  const forwarded = ['SIGTERM', ...(fromTerminal || process.platform === 'win32' ? [] : ['SIGINT', 'SIGHUP'])];
  const forward = (sig) => child.kill(sig);
  for (const sig of forwarded) process.on(sig, forward);
  if (fromTerminal) for (const sig of ['SIGINT', 'SIGHUP']) process.on(sig, () => {}); // the binary decides
  child.on('error', (err) => {
    process.stderr.write(`${command}: cannot run ${bin}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Ended by a signal: end the same way, so the caller sees it.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

module.exports = { launch };
