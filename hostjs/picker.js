// @askcore/askcore/picker: the keyboard picker for Node (docs/SPEC.md,
// "Keyboard picker"), the JS twin of termui's (termui/PICKER.md). A provider
// that draws the core's `picker` op layout for a whole call on a terminal and
// reads keys in raw mode: Up/Down (k/j outside the text entry, Ctrl-P for
// Up) move, 1-9 jump, Home/End, PgUp/PgDn, Space toggles (multi-select),
// Shift-Up/Down and Shift-PgUp/PgDn scroll the preview of the option under
// the cursor (drawn beside the list from 100 columns, below it otherwise),
// Ctrl-N edits the question's notes (Enter keeps them, Esc cancels the edit;
// the pick carries them), typing on the own-answer entry writes the text,
// Enter confirms (the core checks
// the pick: its INVALID_ANSWER message is shown under the question; in a
// batch, on to the next question not confirmed yet, the last one submits),
// Tab/Shift-Tab switch questions, Esc declines ({decline: true}:
// ASK_DECLINED), Ctrl-C aborts (the core's `interrupted`: ASK_ABORTED).
// Inline (no alternate screen), drawn again on resize; after the answer one
// line stays: "→ " and the core's summary (the layout's declined or
// interrupted line after Esc or Ctrl-C). Colour only where the core's
// `terminal` op allows it (never with NO_COLOR).
//
// openTerminal() asks the core's `terminal` op whether the streams get the
// keyboard picker or the line mode, and returns this provider or the
// readline one.

import { Codes, UserInteractionError } from './lib/errors.js';
import { abortedError, callOf, queueJob, queuePump } from './lib/interaction.js';
import { Picker, PickerDeclined, PickerInterrupted, PickerInputEnded, Screen } from './lib/picker-run.js';
import { validateLayout } from './lib/picker-state.js';
import { ReadlineProvider } from './readline.js';

export { Picker, PickerDeclined, PickerInterrupted, PickerInputEnded, validateLayout };

/** ASKCORE_PLAIN asks for the line mode, as --plain does (termui: EnvPlain). */
export const ENV_PLAIN = 'ASKCORE_PLAIN';

/**
 * @typedef {import('./lib/core.js').Core} Core
 * @typedef {import('./picker.js').PickerProviderOptions} PickerProviderOptions
 * @typedef {{ question: any, signal?: AbortSignal, done: boolean, controller: AbortController,
 *   resolve: (v: any) => void, reject: (e: unknown) => void }} Job
 */

/** The reason an ask is cut short by interrupt() (Ctrl-C from elsewhere). */
const INTERRUPTED = Symbol('interrupted');
/** The reason by close(). */
const CLOSED = Symbol('closed');

/**
 * The facts the core's terminal op decides from, read from the streams and
 * the environment (termui.Open's).
 * @param {any} input
 * @param {any} output
 * @param {Record<string, string | undefined>} env
 * @param {boolean} plainFlag
 */
export function terminalFacts(input, output, env, plainFlag = false) {
  const inTTY = input?.isTTY === true && typeof input.setRawMode === 'function';
  const outTTY = output?.isTTY === true;
  return {
    stdinTTY: inTTY,
    stderrTTY: outTTY,
    outTTY,
    term: env.TERM ?? '',
    noColor: env.NO_COLOR ?? '',
    plain: env[ENV_PLAIN] ?? '',
    plainFlag,
  };
}

export class PickerProvider {
  /** @type {Core} */ #core;
  /** @type {any} */ #input;
  /** @type {Screen} */ #screen;
  /** @type {boolean} */ #color;
  /** @type {Job[]} */ #queue = [];
  /** @type {Job | null} */ #current = null;
  /** Runs the queued calls in turn. */
  #pump = queuePump(this.#queue, (job) => this.#run(job), (job) => (this.#current = job));
  #closed = false;

  /**
   * @param {Core} core
   * @param {PickerProviderOptions} [options] input: a TTY stream (default
   *   process.stdin); output: where the picker draws (default
   *   process.stderr); color: default the core's terminal op's verdict.
   */
  constructor(core, options = {}) {
    this.#core = core;
    this.#input = options.input ?? process.stdin;
    const output = options.output ?? process.stderr;
    this.#screen = new Screen(output);
    this.#color = options.color ?? core.terminal(terminalFacts(this.#input, output, options.env ?? process.env)).color;
  }

  /**
   * Asks one call (a question or a batch) with the keyboard picker; resolves
   * to the answer (question.resolve's, which the seam accepts for this call)
   * or {decline: true} after Esc; rejects with the core's error: Ctrl-C and
   * interrupt() "interrupted", the input's end "eof" (a read error
   * "read_failed"), close() "withdrawn", the signal its reason (ASK_ABORTED).
   * @param {any} question what UserInteraction hands a provider, or a core.normalizeRaw result
   * @param {{signal?: AbortSignal}} [options]
   */
  ask(question, options = {}) {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(this.#safe(() => abortedError(this.#core, signal)));
      if (this.#closed) return reject(this.#failure({ situation: 'withdrawn' }));
      /** @type {Job} */
      const job = { question, signal, done: false, controller: new AbortController(), resolve, reject };
      queueJob(this.#queue, job, signal, () => job.controller.abort(signal?.reason));
      this.#pump();
    });
  }

  /**
   * Dismisses the call on screen (Ctrl-C from elsewhere, a SIGINT): it is
   * rejected with the core's "interrupted" and the layout's interrupted line
   * stays; queued calls keep their place. Reports whether there was one.
   */
  interrupt() {
    const job = this.#current;
    if (!job || job.done) return false;
    job.controller.abort(INTERRUPTED);
    return true;
  }

  /**
   * Rejects every pending call with the core's "withdrawn" (and every later
   * one); a picker on screen is erased and the terminal restored.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const job of this.#queue) this.#settle(job, this.#failure({ situation: 'withdrawn' }));
    this.#queue.length = 0;
    this.#current?.controller.abort(CLOSED);
  }

  /**
   * Writes text on the picker's terminal: above a picker on screen, which
   * is drawn again below it (model text that arrives while a question is
   * pending scrolls up past it).
   * @param {string} text
   */
  write(text) {
    this.#screen.write(String(text));
  }

  /** Calls asked and not yet answered, the one on screen included. */
  get pending() {
    return this.#queue.filter((j) => !j.done).length + (this.#current && !this.#current.done ? 1 : 0);
  }

  /** @param {() => unknown} f */
  #safe(f) {
    try {
      return f();
    } catch (err) {
      return err;
    }
  }

  /** @param {{situation: string, detail?: string}} f */
  #failure(f) {
    return this.#safe(() => this.#core.fail(f));
  }

  /** @param {Job} job @param {unknown} err */
  #settle(job, err) {
    if (job.done) return;
    job.done = true;
    job.reject(err);
  }

  /** @param {Job} job */
  async #run(job) {
    const core = this.#core;
    const call = callOf(this.#core, job.question);
    const layout = core.picker(call);
    const picker = new Picker({ input: this.#input, output: this.#screen.output, color: this.#color }, layout, this.#screen);
    const signal = job.controller.signal;
    /** @type {import('./lib/picker-state.js').Pick[]} */
    let picks;
    try {
      picks = await picker.run({
        signal,
        check: (i, pick) => {
          try {
            if (typeof call.checkPick === 'function') call.checkPick(i, pick);
            else core.summary(call, core.resolve(call, pick, i), i);
            return null;
          } catch (err) {
            if (err instanceof UserInteractionError && err.code === Codes.INVALID_ANSWER) return err.message;
            throw err; // the core could not judge the pick: end the picker with it
          }
        },
      });
    } catch (err) {
      if (err instanceof PickerDeclined) {
        picker.done(layout.declined);
        return { decline: true };
      }
      if (err instanceof PickerInterrupted || (signal.aborted && signal.reason === INTERRUPTED)) {
        picker.done(layout.interrupted);
        throw this.#failure({ situation: 'interrupted' });
      }
      picker.done('');
      if (signal.aborted && signal.reason === CLOSED) throw this.#failure({ situation: 'withdrawn' });
      if (signal.aborted) throw this.#safe(() => abortedError(core, job.signal));
      if (err instanceof PickerInputEnded) throw this.#failure({ situation: err.situation, detail: err.detail });
      throw err;
    }
    let answer;
    let summary;
    try {
      answer = typeof call.resolve === 'function' ? call.resolve({ picks }) : core.resolveAll(call, picks);
      summary = core.summary(call, answer);
    } catch (err) {
      picker.done('');
      throw err;
    }
    // One line per question, each an echo line, as in line mode.
    picker.done('→ ' + summary.replaceAll('\n', '\n→ '));
    return answer;
  }
}

/**
 * A keyboard picker provider on `input` (default process.stdin) drawing on
 * `output` (default process.stderr).
 * @param {Core} core
 * @param {PickerProviderOptions} [options]
 */
export function createPickerProvider(core, options) {
  return new PickerProvider(core, options);
}

/**
 * The terminal provider the core's terminal op chooses for the streams: the
 * keyboard picker when input and output are terminals, TERM is not "dumb",
 * and neither `plain` nor ASKCORE_PLAIN asks for the line mode; the readline
 * line mode otherwise (the screen-reader mode), on the same streams.
 * @param {Core} core
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, plain?: boolean,
 *   env?: Record<string, string | undefined>, prompt?: string}} [options]
 * @returns {PickerProvider | ReadlineProvider}
 */
export function openTerminal(core, options = {}) {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const env = options.env ?? process.env;
  const mode = core.terminal(terminalFacts(input, output, env, options.plain === true));
  if (mode.picker) return new PickerProvider(core, { input, output, color: mode.color });
  // readline.js is typed by readline.d.ts, whose Core is index.d.ts's (the
  // same object: lib/core.js's Core is what index.d.ts declares).
  return new ReadlineProvider(/** @type {import('./index.js').Core} */ (/** @type {unknown} */ (core)), { input, output, prompt: options.prompt });
}
