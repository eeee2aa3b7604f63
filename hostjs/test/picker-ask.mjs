#!/usr/bin/env node
// The Node twin of `askcore-stdio ask`, for the pty tests that drive both
// from one key script (cmd/askcore-stdio/nodepicker_tmux_test.go, and
// test/picker-tmux.test.mjs): asks the request with the terminal provider
// @askcore/askcore/picker chooses (the keyboard picker, or the line mode
// where the core's terminal op says so) through the JS seam, and prints the
// core's answer, or its error, on stdout, with askcore-stdio's exit status.
//
//   node test/picker-ask.mjs [--plain] [--request JSON]   (else the request is read from stdin)
//
// Where the keys come from and where the picker draws, as askcore-stdio:
// with --request, keys from stdin, drawn on /dev/tty (stderr without one);
// with the request on stdin, both on /dev/tty.
import { openSync, readFileSync } from 'node:fs';
import tty from 'node:tty';
import { load, UserInteraction, answerText, errorText, HarnessError } from '@askcore/askcore';
import { openTerminal } from '@askcore/askcore/picker';

const EXIT = { ASK_FAILED: 1, INVALID_REQUEST: 2, ASK_ABORTED: 3, ASK_TIMEOUT: 4, ASK_DECLINED: 5 };

const args = process.argv.slice(2);
let plain = false;
/** @type {string | undefined} */
let request;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--plain') plain = true;
  else if (args[i] === '--request') request = args[++i];
  else {
    console.error(`picker-ask: unexpected argument ${args[i]}`);
    process.exit(2);
  }
}

// ASKCORE_WASM: another build of the core (to compare with another askcore-stdio).
const core = await load(process.env.ASKCORE_WASM ? readFileSync(process.env.ASKCORE_WASM) : undefined);
const requestSet = request !== undefined;
if (!requestSet) request = readFileSync(0, 'utf8');

/** @param {unknown} err */
function fail(err) {
  const he = err instanceof HarnessError && typeof err.raw === 'string' ? err : core.fail({ situation: 'engine_fault' });
  process.stdout.write(errorText(he) + '\n');
  return EXIT[/** @type {keyof typeof EXIT} */ (he.code)] ?? 1;
}

function openTTY(/** @type {'r' | 'w'} */ mode) {
  try {
    const fd = openSync('/dev/tty', mode === 'r' ? 'r' : 'w');
    return mode === 'r' ? new tty.ReadStream(fd) : new tty.WriteStream(fd);
  } catch {
    return null;
  }
}

let code = 0;
try {
  core.normalize(request); // a bad request is reported as such first
  /** @type {any} */
  let input = process.stdin;
  /** @type {any} */
  let output = process.stderr;
  if (!requestSet) {
    input = openTTY('r');
    output = openTTY('w');
    if (!input || !output) throw core.fail({ situation: 'no_terminal' });
  } else if (process.stdin.isTTY) {
    output = openTTY('w') ?? process.stderr;
  }
  const provider = openTerminal(core, { input, output, plain });
  const interaction = new UserInteraction(core);
  interaction.register(provider);
  // A signal from elsewhere (kill) aborts the ask with askcore-stdio's
  // reasons; the picker is erased and the terminal restored first.
  const ac = new AbortController();
  process.on('SIGINT', () => ac.abort(new Error('interrupted (Ctrl-C)')));
  process.on('SIGTERM', () => ac.abort(new Error('terminated (SIGTERM)')));
  try {
    const answer = await interaction.ask(request, { from: { agentId: 'askcore-stdio-ask' }, signal: ac.signal });
    process.stdout.write(answerText(answer) + '\n');
  } finally {
    provider.close();
  }
} catch (err) {
  code = fail(err);
}
process.exit(code);
