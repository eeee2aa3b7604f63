#!/usr/bin/env node
// A logging proxy around an MCP server on stdio, for the host tests: the
// host spawns it in place of askcore-mcp, it spawns the server and copies
// both directions unchanged, appending every JSON-RPC line (and the
// server's stderr) to LOG as one JSON object per line:
//   {"t": ms since the epoch, "dir": "c2s" | "s2c" | "stderr", "msg": ...}
//
//   node mcp-proxy.mjs LOG -- COMMAND [ARGS...]
//
// The log is how a test learns the protocol version a host negotiated, the
// form it was sent, what it replied and how long it took, without touching
// the server.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, sep, cmd, ...args] = process.argv.slice(2);
if (!log || sep !== '--' || !cmd) {
  process.stderr.write('usage: mcp-proxy.mjs LOG -- COMMAND [ARGS...]\n');
  process.exit(2);
}

function record(dir, line) {
  let msg = line;
  try {
    msg = JSON.parse(line);
  } catch {
    // not JSON (stderr, or a broken line): kept as text
  }
  appendFileSync(log, JSON.stringify({ t: Date.now(), dir, msg }) + '\n');
}

// lines calls fn with each complete line of a stream, and the rest at its end.
function lines(stream, fn) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      fn(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  stream.on('end', () => {
    if (buf) fn(buf);
  });
}

record('start', { cmd, args, pid: process.pid });
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
child.on('error', (err) => {
  record('stderr', `mcp-proxy: ${err.message}`);
  process.exit(127);
});

process.stdin.on('data', (chunk) => child.stdin.write(chunk));
process.stdin.on('end', () => child.stdin.end());
lines(process.stdin, (l) => record('c2s', l));
child.stdin.on('error', () => {}); // the server went away first: its exit ends us

child.stdout.on('data', (chunk) => process.stdout.write(chunk));
lines(child.stdout, (l) => record('s2c', l));
child.stderr.on('data', (chunk) => process.stderr.write(chunk));
lines(child.stderr, (l) => record('stderr', l));
process.stdout.on('error', () => {});

for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(sig, () => {
    record('signal', sig);
    child.kill(sig);
  });
}
child.on('exit', (code, signal) => {
  record('exit', { code, signal });
  process.exit(code ?? 1);
});
