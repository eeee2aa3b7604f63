// A terminal provider for Node: shows the core's `present` text, reads one
// line, and resolves it through the core's `resolve` (re-asking with the
// core's message on INVALID_ANSWER). Simultaneous questions wait in a queue so
// one prompt owns the input at a time. Pending questions are rejected with
// ASK_ABORTED on abort, on close() and at the end of the input.

import { createInterface } from 'node:readline';
import { Codes, UserInteractionError } from './lib/errors.js';
import { abortedError } from './lib/interaction.js';

/**
 * @typedef {{ request?: unknown, raw?: string }} ReadlineQuestion
 * @typedef {{ question: ReadlineQuestion, signal?: AbortSignal, done: boolean,
 *   resolve: (v: any) => void, reject: (e: unknown) => void }} Job
 */

export class ReadlineProvider {
  /** @type {import('./lib/core.js').Core} */ #core;
  /** @type {import('node:readline').Interface} */ #rl;
  /** @type {NodeJS.WritableStream} */ #output;
  /** @type {string} */ #prompt;
  /** @type {string[]} */ #lines = [];
  /** @type {{resolve: (l: string) => void, reject: (e: unknown) => void} | null} */ #waiter = null;
  /** @type {Job[]} */ #queue = [];
  /** @type {Job | null} */ #current = null;
  #running = false;
  /** @type {UserInteractionError | null} */ #ended = null;

  /**
   * @param {import('./lib/core.js').Core} core
   * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, prompt?: string}} [options]
   */
  constructor(core, options = {}) {
    this.#core = core;
    this.#output = options.output ?? process.stdout;
    this.#prompt = options.prompt ?? '> ';
    this.#rl = createInterface({ input: options.input ?? process.stdin, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line) => {
      const w = this.#waiter;
      if (w) {
        this.#waiter = null;
        w.resolve(line);
      } else {
        this.#lines.push(line); // typed (or piped) ahead of the prompt
      }
    });
    this.#rl.on('close', () => this.#end('the input ended (EOF)'));
  }

  /**
   * Asks one question; resolves to the core's answer object.
   * @param {ReadlineQuestion} question
   * @param {{signal?: AbortSignal}} [options]
   */
  ask(question, options = {}) {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError(signal));
      /** @type {Job} */
      const job = { question, signal, done: false, resolve, reject };
      const onAbort = () => this.#settle(job, abortedError(signal), true);
      signal?.addEventListener('abort', onAbort, { once: true });
      job.resolve = (v) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      job.reject = (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      };
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Stops reading the input and rejects every pending question with ASK_ABORTED. */
  close() {
    this.#end('the provider was closed');
    this.#rl.close();
  }

  /** Number of questions asked and not yet answered (the one on screen included). */
  get pending() {
    return this.#queue.filter((j) => !j.done).length + (this.#current && !this.#current.done ? 1 : 0);
  }

  /** @param {string} why */
  #end(why) {
    if (this.#ended) return;
    this.#ended = new UserInteractionError(Codes.ASK_ABORTED, 'the question was aborted: ' + why);
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(this.#ended);
    if (why !== 'the input ended (EOF)') {
      // closed on purpose: nothing buffered is answered any more
      this.#lines.length = 0;
      for (const job of this.#queue) this.#settle(job, this.#ended, false);
      this.#queue.length = 0;
    }
  }

  /**
   * @param {Job} job
   * @param {unknown} err
   * @param {boolean} fromSignal
   */
  #settle(job, err, fromSignal) {
    if (job.done) return;
    job.done = true;
    job.reject(err);
    if (fromSignal && job === this.#current) {
      const w = this.#waiter;
      this.#waiter = null;
      w?.reject(err); // frees the input for the next question
    }
  }

  async #pump() {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const job = /** @type {Job} */ (this.#queue.shift());
        if (job.done) continue;
        this.#current = job;
        try {
          const answer = await this.#run(job);
          if (!job.done) {
            job.done = true;
            job.resolve(answer);
          }
        } catch (err) {
          if (!job.done) {
            job.done = true;
            job.reject(err);
          }
        }
        this.#current = null;
      }
    } finally {
      this.#running = false;
    }
  }

  /** @param {Job} job */
  async #run(job) {
    const raw = job.question.raw ?? JSON.stringify(job.question.request);
    if (this.#ended && this.#lines.length === 0) throw this.#ended;
    const { text } = this.#core.present(raw);
    this.#write(text.endsWith('\n') ? text : text + '\n');
    this.#write(this.#prompt);
    for (;;) {
      const line = await this.#nextLine();
      if (job.done) {
        this.#lines.unshift(line); // aborted meanwhile: the line belongs to the next question
        throw job.signal?.reason ?? this.#ended;
      }
      try {
        return this.#core.resolve(raw, line);
      } catch (err) {
        if (!(err instanceof UserInteractionError) || err.code !== Codes.INVALID_ANSWER) throw err;
        this.#write(err.message + '\n' + this.#prompt);
      }
    }
  }

  /** @returns {Promise<string>} */
  #nextLine() {
    if (this.#lines.length > 0) return Promise.resolve(/** @type {string} */ (this.#lines.shift()));
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
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
