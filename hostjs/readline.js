// A terminal provider for Node, in line mode (docs/SPEC.md, "Typed lines and
// picks"): for each question of a call in turn it shows the core's `present`
// text, reads one line and has the core judge it (`resolve`, re-asking with
// the core's INVALID_ANSWER message), echoes what was chosen (the core's
// `summary`), and once every question has its line, hands the lines back
// ({lines}: the seam has the core resolve them). Simultaneous calls wait in a
// queue so one prompt owns the input at a time. Pending calls are rejected on
// abort, close(), interrupt(), a read error and at the end of the input (a
// batch fails whole), always with the core's error (op `fail`).

import { createInterface } from 'node:readline';
import { Codes, UserInteractionError } from './lib/errors.js';
import { abortedError, callOf, queueJob, queuePump } from './lib/interaction.js';

/**
 * @typedef {{ request?: unknown, raw?: string, questions?: unknown[], batch?: boolean }} ReadlineQuestion
 * @typedef {{ question: ReadlineQuestion, signal?: AbortSignal, done: boolean,
 *   resolve: (v: any) => void, reject: (e: unknown) => void }} Job
 * @typedef {import('./index.js').Failure} Failure
 */

export class ReadlineProvider {
  /** @type {import('./lib/core.js').Core} */ #core;
  /** @type {import('node:readline').Interface} */ #rl;
  /** @type {NodeJS.WritableStream} */ #output;
  /** @type {string} */ #prompt;
  /** The input is a terminal that echoes the typed line, newline included. */ #echoed;
  /** @type {string[]} */ #lines = [];
  /** @type {{resolve: (l: string) => void, reject: (e: unknown) => void} | null} */ #waiter = null;
  /** @type {Job[]} */ #queue = [];
  /** @type {Job | null} */ #current = null;
  /** Runs the queued calls in turn. */
  #pump = queuePump(this.#queue, (job) => this.#run(job), (job) => (this.#current = job));
  /** Why the input is over (the core's error), once it is. @type {unknown} */ #ended = null;

  /**
   * @param {import('./lib/core.js').Core} core
   * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, prompt?: string}} [options]
   */
  constructor(core, options = {}) {
    this.#core = core;
    this.#output = options.output ?? process.stdout;
    this.#prompt = options.prompt ?? '> ';
    const input = options.input ?? process.stdin;
    this.#echoed = /** @type {any} */ (input).isTTY === true;
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line) => {
      const w = this.#waiter;
      if (w) {
        this.#waiter = null;
        w.resolve(line);
      } else {
        this.#lines.push(line); // typed (or piped) ahead of the prompt
      }
    });
    // Lines read before the end still answer what is asked; then every
    // question fails with the core's "eof" (or "read_failed").
    this.#rl.on('close', () => this.#end({ situation: 'eof' }, false));
    this.#rl.on('error', (err) => this.#end({ situation: 'read_failed', detail: err instanceof Error ? err.message : String(err) }, false));
  }

  /**
   * Asks one call (a question or a batch); resolves to the person's reply,
   * {lines}: one line per question, each one the core accepted (the seam
   * has the core resolve them into the answer). `question` is what
   * UserInteraction hands a provider, or the result of core.normalizeRaw.
   * @param {ReadlineQuestion} question
   * @param {{signal?: AbortSignal}} [options]
   */
  ask(question, options = {}) {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(this.#aborted(signal));
      /** @type {Job} */
      const job = { question, signal, done: false, resolve, reject };
      queueJob(this.#queue, job, signal, () => this.#settle(job, this.#aborted(signal), true));
      this.#pump();
    });
  }

  /** Stops reading the input and rejects every pending question with the core's "input_closed". */
  close() {
    this.#end({ situation: 'input_closed' }, true);
    this.#rl.close();
  }

  /**
   * Rejects the question on screen with the core's "interrupted" (Ctrl-C);
   * queued questions keep their place. Reports whether there was one.
   */
  interrupt() {
    const job = this.#current;
    if (!job || job.done) return false;
    this.#settle(job, this.#failure({ situation: 'interrupted' }), true);
    return true;
  }

  /** Number of questions asked and not yet answered (the one on screen included). */
  get pending() {
    return this.#queue.filter((j) => !j.done).length + (this.#current && !this.#current.done ? 1 : 0);
  }

  /**
   * The core's error for an aborted signal (a host fault when the engine is
   * gone: never thrown from an abort listener).
   * @param {AbortSignal} signal
   */
  #aborted(signal) {
    try {
      return abortedError(this.#core, signal);
    } catch (err) {
      return err;
    }
  }

  /**
   * The core's error for a situation (a host fault when the engine is gone).
   * @param {Failure} f
   */
  #failure(f) {
    try {
      return this.#core.fail(f);
    } catch (err) {
      return err;
    }
  }

  /**
   * @param {Failure} f
   * @param {boolean} discard closed on purpose: nothing buffered is answered any more
   */
  #end(f, discard) {
    if (this.#ended) return;
    this.#ended = this.#failure(f);
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(this.#ended);
    if (discard) {
      this.#lines.length = 0;
      for (const job of this.#queue) this.#settle(job, this.#ended, false);
      this.#queue.length = 0;
    }
  }

  /**
   * @param {Job} job
   * @param {unknown} err
   * @param {boolean} freeInput
   */
  #settle(job, err, freeInput) {
    if (job.done) return;
    job.done = true;
    job.reject(err);
    if (freeInput && job === this.#current) {
      const w = this.#waiter;
      this.#waiter = null;
      w?.reject(err); // frees the input for the next question
    }
  }

  /** @param {Job} job */
  async #run(job) {
    if (this.#ended && this.#lines.length === 0) throw this.#ended;
    const call = callOf(this.#core, job.question);
    const n = Array.isArray(call.questions) ? call.questions.length : 1;
    /** @type {string[]} */
    const lines = [];
    for (let i = 0; i < n; i++) {
      const { text } = this.#core.present(call, i);
      this.#write(text.endsWith('\n') ? text : text + '\n');
      this.#write(this.#prompt);
      for (;;) {
        const line = await this.#nextLine(job);
        if (!this.#echoed) this.#write('\n'); // a pipe: end the prompt line ourselves
        let answer;
        try {
          answer = this.#core.resolve(call, line, i);
        } catch (err) {
          if (!(err instanceof UserInteractionError) || err.code !== Codes.INVALID_ANSWER) throw err;
          this.#write(err.message + '\n' + this.#prompt);
          continue;
        }
        this.#write('→ ' + this.#core.summary(call, answer, i) + '\n');
        lines.push(line);
        break;
      }
    }
    return { lines };
  }

  /**
   * The next line for job; rejects when the job ended meanwhile (the line,
   * if one came, is left for the next question) or the input is over.
   * @param {Job} job
   * @returns {Promise<string>}
   */
  async #nextLine(job) {
    /** @type {string} */
    let line;
    if (this.#lines.length > 0) {
      line = /** @type {string} */ (this.#lines.shift());
    } else {
      if (this.#ended) throw this.#ended;
      line = await new Promise((resolve, reject) => {
        this.#waiter = { resolve, reject };
      });
    }
    if (job.done) {
      this.#lines.unshift(line); // aborted meanwhile: the line belongs to the next question
      throw job.signal?.reason ?? this.#ended;
    }
    return line;
  }

  /** @param {string} s */
  #write(s) {
    if (s) this.#output.write(s);
  }
}

/**
 * Creates a terminal provider reading lines from `input` (default
 * process.stdin) and writing prompts to `output` (default process.stdout).
 * @param {import('./lib/core.js').Core} core
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, prompt?: string}} [options]
 */
export function createReadlineProvider(core, options) {
  return new ReadlineProvider(core, options);
}
