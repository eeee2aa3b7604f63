// The JS interaction seam, mirroring Go's askcore.Service: one provider
// reaches a person; agents ask through the UserInteraction, which has the
// core parse and normalize the model's arguments first and refuses at once
// when nobody can ask (NO_PROVIDER: never an empty answer).
//
// A provider hands back what the person gave, a reply: {lines: [...]} (one
// typed line per question), {picks: [{options, text}...]} (a keyboard
// picker's), {form: response} (a client's reply to the form), {decline:
// true}, or the answer question.resolve(reply) returned for that very
// question. The seam has the core resolve a reply; anything else (an object
// the core did not write for this question, a Date, a string, an error
// returned instead of thrown) is the core's not_a_reply, an answer to
// another question its stale_answer, and a reply the core finds does not
// answer (INVALID_ANSWER, worded for the person) its invalid_reply.
//
// Every error an ask rejects with is written by the core: the rules' own
// verdicts, and for the situations around them (no provider, an abort at any
// stage, a timeout, a disposed or broken provider, an engine fault) the
// core's op "fail". Go's seam meets the same situations with the same bytes;
// testdata/seam pins both (test/seam-corpus.test.mjs runs it here).

import { Codes, HarnessError, HostFaultError, situationOf } from './errors.js';
import { remember } from './core.js';

/**
 * The question each answer question.resolve made belongs to, so that an
 * answer is accepted for that question only (Go: Answer's call).
 * @type {WeakMap<object, object>}
 */
const answerOf = new WeakMap();

/** The keys of a reply; exactly one is set. */
const REPLY_KEYS = ['lines', 'picks', 'form', 'decline'];

/**
 * Has the core turn `reply` into the answer to `question`, or throws the
 * core's error (see the file comment). Go: Call.Resolve.
 * @param {import('./core.js').Core} core
 * @param {object & {questions: unknown[]}} question
 * @param {unknown} reply
 */
function resolveReply(core, question, reply) {
  const owner = reply && typeof reply === 'object' ? answerOf.get(reply) : undefined;
  if (owner !== undefined) {
    if (owner === question) return reply;
    throw core.fail({ situation: 'stale_answer' });
  }
  const notAReply = () => core.fail({ situation: 'not_a_reply' });
  if (!isPlainObject(reply)) throw notAReply();
  const r = /** @type {Record<string, unknown>} */ (reply);
  const keys = Object.keys(r);
  if (keys.length !== 1 || !REPLY_KEYS.includes(keys[0])) throw notAReply();
  const n = question.questions.length;
  try {
    switch (keys[0]) {
      case 'lines':
        if (!Array.isArray(r.lines) || r.lines.length !== n || !r.lines.every((l) => typeof l === 'string')) throw notAReply();
        return core.resolveAll(question, r.lines);
      case 'picks':
        if (!Array.isArray(r.picks) || r.picks.length !== n || !r.picks.every((p) => isPlainObject(p) && isJSON(p))) throw notAReply();
        return core.resolveAll(question, /** @type {any[]} */ (r.picks));
      case 'form':
        // A form the core cannot be sent (nothing, a BigInt, a cycle) is no
        // reply, as Go's FormReply of text that is not JSON.
        if (!isJSON(r.form)) throw notAReply();
        return core.elicitationResult(question, r.form);
      default:
        if (r.decline !== true) throw notAReply();
        throw core.fail({ situation: 'declined' });
    }
  } catch (err) {
    throw forTheModel(core, err);
  }
}

/**
 * Whether JSON.stringify gives v a JSON text (it throws for a BigInt or a
 * cycle, and gives nothing for undefined or a function).
 * @param {unknown} v
 */
function isJSON(v) {
  try {
    return JSON.stringify(v) !== undefined;
  } catch {
    return false;
  }
}

/** @param {unknown} v */
function isPlainObject(v) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A core-written INVALID_ANSWER is worded for the person (the re-prompt):
 * the model gets the core's invalid_reply, quoting it. Everything else is
 * passed on.
 * @param {import('./core.js').Core} core
 * @param {unknown} err
 */
function forTheModel(core, err) {
  if (err instanceof HarnessError && typeof err.raw === 'string' && err.code === Codes.INVALID_ANSWER && !forModel.has(err) && situationOf(err)?.situation !== 'invalid_reply') {
    const reworded = core.fail({ situation: 'invalid_reply', detail: err.message });
    forModel.add(reworded);
    return reworded;
  }
  return err;
}

/**
 * The invalid_reply errors forTheModel wrote: already worded for the model
 * (also INVALID_ANSWER), so a provider that lets question.resolve's error
 * through has it passed on as it is, not quoted a second time.
 * @type {WeakSet<object>}
 */
const forModel = new WeakSet();

/**
 * A normalized call on its way to a person (Go: askcore.Call): the
 * normalized call (`request`, `raw`, `questions`, `batch`), who asks
 * (`from`), and the core's ops a provider needs to judge what the person
 * gives.
 */
class Question {
  #core;

  /**
   * @param {import('./core.js').Core} core
   * @param {{request: any, raw: string, questions: any[], batch: boolean}} call
   * @param {object} from
   */
  constructor(core, call, from) {
    this.#core = core;
    this.request = call.request;
    this.raw = call.raw;
    this.questions = call.questions;
    this.batch = call.batch;
    this.from = from;
    remember(this, call.raw);
  }

  /**
   * Judges one line typed for question i: the core's summary of what it
   * chose (to echo), or throws INVALID_ANSWER with the message for the
   * person (show it, ask again). Go: Call.CheckLine.
   * @param {number} i
   * @param {string} line
   * @returns {string}
   */
  checkLine(i, line) {
    return this.#core.summary(this, this.#core.resolve(this, String(line), i), i);
  }

  /**
   * checkLine for a keyboard picker's pick {options, text}.
   * @param {number} i
   * @param {{options?: number[], text?: string}} pick
   * @returns {string}
   */
  checkPick(i, pick) {
    return this.#core.summary(this, this.#core.resolve(this, pick, i), i);
  }

  /** The core the question was normalized by (Go: Call.Core). */
  get core() {
    return this.#core;
  }

  /**
   * The form for this question (op "elicitation"; Go: Call.Form,
   * Call.FormFor): for ACP (default) or MCP clients, and for a known
   * client (its clientInfo name).
   * @param {{for?: 'acp' | 'mcp', client?: string}} [options]
   */
  form(options) {
    return this.#core.elicitation(this, options);
  }

  /**
   * What to do next with a client's reply to this question's form (op
   * "form_reply"; Go: Call.JudgeForm), so that a provider only loops:
   * "answer" (return step.answer: it is accepted for this question),
   * "ask_again" (send step.form, judge its reply with step.round), "end" or
   * "next_surface" (throw step.error; FirstReply drops a surface whose
   * error is next_surface's).
   * @param {{response: unknown, round?: number, for?: 'acp' | 'mcp', delivery?: {ms: number, client?: string, clientVersion?: string, mode?: 'form' | 'url', trigger?: string, entrypoint?: string}}} reply
   */
  judgeForm(reply) {
    const step = this.#core.formReply(this, reply);
    if (step.answer && typeof step.answer === 'object') answerOf.set(step.answer, this);
    return step;
  }

  /**
   * The answer to this question for `reply`, as the seam would resolve it:
   * for a provider that shows the answer before handing it back (return
   * it: it is accepted for this question only). Go: Call.Resolve.
   * @param {unknown} reply
   */
  resolve(reply) {
    const answer = resolveReply(this.#core, this, reply);
    if (answer && typeof answer === 'object') answerOf.set(answer, this);
    return answer;
  }
}

/**
 * The core's ASK_ABORTED error for an aborted signal: with the reason's
 * message as detail unless the reason is a plain AbortError (what
 * `controller.abort()` gives). A reason that is already an error the core
 * wrote (the error an ask rejected with, passed on to its provider as its
 * signal's reason) is that error; any other reason is quoted, as Go quotes
 * a ctx's cause.
 * @param {{fail: (f: object) => HarnessError}} core
 * @param {AbortSignal | undefined} signal
 * @returns {HarnessError}
 */
export function abortedError(core, signal) {
  const r = signal?.reason;
  if (r instanceof HarnessError && typeof r.raw === 'string') return r;
  return core.fail({ situation: 'aborted', detail: abortDetail(r) });
}

/**
 * Queues a terminal provider's call (picker.js, readline.js: one prompt
 * owns the input at a time): once the job settles, it stops listening for
 * its signal's abort (onAbort).
 * @template {{resolve: (v: any) => void, reject: (e: unknown) => void}} J
 * @param {J[]} queue
 * @param {J} job
 * @param {AbortSignal | undefined} signal
 * @param {() => void} onAbort
 */
export function queueJob(queue, job, signal, onAbort) {
  const { resolve, reject } = job;
  signal?.addEventListener('abort', onAbort, { once: true });
  job.resolve = (v) => {
    signal?.removeEventListener('abort', onAbort);
    resolve(v);
  };
  job.reject = (e) => {
    signal?.removeEventListener('abort', onAbort);
    reject(e);
  };
  queue.push(job);
}

/**
 * A terminal provider's pump: a function that runs the queued calls in
 * turn until none is left (one run at a time: a call while it runs
 * returns at once), each settled once with what run gave or threw (a job
 * settled already, by an abort, is skipped). current is told of the call
 * running.
 * @template {{done: boolean, resolve: (v: any) => void, reject: (e: unknown) => void}} J
 * @param {J[]} queue
 * @param {(job: J) => Promise<unknown>} run
 * @param {(job: J | null) => void} current
 * @returns {() => Promise<void>}
 */
export function queuePump(queue, run, current) {
  let running = false;
  // No await but run's: between a job's settling and the loop's end
  // nothing yields, so a call its caller queues on resuming finds the loop
  // ended and starts it again.
  return async () => {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) {
        const job = /** @type {J} */ (queue.shift());
        if (job.done) continue;
        current(job);
        try {
          const reply = await run(job);
          if (!job.done) {
            job.done = true;
            job.resolve(reply);
          }
        } catch (err) {
          if (!job.done) {
            job.done = true;
            job.reject(err);
          }
        }
        current(null);
      }
    } finally {
      running = false;
    }
  };
}

/**
 * The call as the core reads it: a Question (or a normalizeRaw result)
 * goes back as it is; anything else is normalized here.
 * @param {{normalizeRaw: (raw: any) => any}} core
 * @param {any} q
 */
export function callOf(core, q) {
  if (q && typeof q.raw === 'string' && Array.isArray(q.questions) && typeof q.batch === 'boolean') return q;
  if (q && typeof q.raw === 'string') return core.normalizeRaw(q.raw);
  return core.normalizeRaw(q?.request ?? q);
}

/** @param {unknown} reason */
function abortDetail(reason) {
  if (reason === undefined || reason === null) return undefined;
  if (typeof reason === 'object' && /** @type {any} */ (reason).name === 'AbortError') return undefined;
  return reason instanceof Error ? reason.message : String(reason);
}

/** setTimeout's largest delay (2^31-1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 0x7fffffff;

/**
 * Calls fn after ms milliseconds, however long (a chain of timers, each
 * within setTimeout's range); returns a function that cancels it.
 * @param {() => void} fn
 * @param {number} ms
 * @returns {() => void}
 */
export function longTimeout(fn, ms) {
  const clock = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
  const deadline = clock() + ms;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const arm = () => {
    const left = deadline - clock();
    if (left <= 0) {
      timer = undefined;
      fn();
      return;
    }
    timer = setTimeout(arm, Math.min(Math.ceil(left), MAX_TIMER_MS));
  };
  timer = setTimeout(arm, Math.min(Math.ceil(ms), MAX_TIMER_MS));
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}

export class UserInteraction {
  /** @type {import('./core.js').Core} */ #core;
  /** @type {number} */ #timeoutMs;
  // withdraw holds one callback per pending question (a Set, not listeners on
  // an AbortSignal: Node warns past 10 listeners, and a provider may have
  // hundreds of questions queued).
  /** @type {{provider: {ask: Function}, disposed: boolean, withdraw: Set<() => void>} | null} */ #active = null;

  /**
   * @param {import('./core.js').Core} core
   * @param {{timeoutMs?: number}} [options]
   */
  constructor(core, options = {}) {
    if (!core || typeof core.normalizeRaw !== 'function' || typeof core.fail !== 'function') {
      throw new TypeError('UserInteraction needs a loaded core');
    }
    this.#core = core;
    this.#timeoutMs = options.timeoutMs ?? 0;
  }

  get core() {
    return this.#core;
  }

  get hasProvider() {
    return this.#active !== null;
  }

  /**
   * Makes `provider` the one that reaches a person. Throws DUPLICATE_PROVIDER
   * while another is registered. The returned function unregisters it and
   * rejects its pending questions with ASK_ABORTED at once; calling it again
   * is harmless.
   * @param {{ask: Function} | Function} provider
   * @returns {() => void}
   */
  register(provider) {
    const p = typeof provider === 'function' ? { ask: provider } : provider;
    if (!p || typeof p.ask !== 'function') throw new TypeError('register(provider): a provider has an ask(question, {signal}) method');
    if (this.#active) throw this.#fail({ situation: 'duplicate_provider' });
    const reg = { provider: p, disposed: false, withdraw: new Set() };
    this.#active = reg;
    return () => {
      if (this.#active === reg) this.#active = null;
      reg.disposed = true;
      for (const withdraw of [...reg.withdraw]) withdraw();
    };
  }

  /**
   * Asks a person through the registered provider. `args` are the model's
   * ask_user_question arguments: their text as the model wrote it (the core
   * parses it), or an object a JS caller built. Resolves to the core's answer
   * (its bytes under RAW: answerText). Rejects with the core's error (its
   * bytes in `raw`: errorText): ASK_ABORTED (the signal aborted, at any
   * stage; the provider disposed), INVALID_REQUEST, NO_PROVIDER,
   * ASK_TIMEOUT, whatever structured error the provider threw, and
   * ASK_FAILED for a provider that failed or gave no answer, or an engine
   * fault.
   * @param {unknown} args
   * @param {{signal?: AbortSignal, from?: object, timeoutMs?: number}} [options]
   */
  async ask(args, options = {}) {
    const { signal, from = {}, timeoutMs = this.#timeoutMs } = options;
    if (signal?.aborted) throw abortedError(this.#core, signal);
    let call;
    try {
      call = this.#core.normalizeRaw(args);
    } catch (err) {
      if (err instanceof HarnessError) throw err;
      if (err instanceof HostFaultError) throw this.#fail({ situation: 'engine_fault' });
      throw err; // a TypeError from serializing the caller's object (a cycle, a BigInt)
    }
    const reg = this.#active;
    if (!reg) throw this.#fail({ situation: 'no_provider' });

    const question = new Question(this.#core, call, from);
    const controller = new AbortController();
    return new Promise((resolve, reject) => {
      let settled = false;
      /** @type {(() => void) | undefined} */
      let cancelTimer;
      const settle = () => {
        if (settled) return false;
        settled = true;
        cancelTimer?.();
        signal?.removeEventListener('abort', onAbort);
        reg.withdraw.delete(onDispose);
        return true;
      };
      // Ends the ask at once with err, whatever the provider does later (its
      // late answer is dropped), and tells the provider to give up: err is
      // its signal's reason.
      /** @param {() => HarnessError} errFn */
      const end = (errFn) => {
        if (settled) return;
        let err;
        try {
          err = errFn();
        } catch (e) {
          err = e; // the engine is gone: its host fault, as it is
        }
        if (!settle()) return;
        controller.abort(err);
        reject(err);
      };
      const onAbort = () => end(() => abortedError(this.#core, signal));
      const onDispose = () => end(() => this.#fail({ situation: 'withdrawn' }));
      signal?.addEventListener('abort', onAbort, { once: true });
      reg.withdraw.add(onDispose);
      if (reg.disposed) return onDispose();
      if (timeoutMs > 0) {
        // Go reports Duration.Milliseconds(): whole milliseconds.
        cancelTimer = longTimeout(() => end(() => this.#fail({ situation: 'timeout', ms: Math.floor(timeoutMs) })), timeoutMs);
      }

      let pending;
      try {
        pending = Promise.resolve(reg.provider.ask(question, { signal: controller.signal }));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (reply) => {
          if (settled) return;
          // A provider that gives neither a reply nor an error must not
          // become an empty answer for the model.
          if (reply === undefined || reply === null) return end(() => this.#fail({ situation: 'no_answer' }));
          let answer;
          try {
            answer = resolveReply(this.#core, question, reply);
          } catch (err) {
            // The core's verdict on the reply, as it is (Go: structured).
            return end(() => (err instanceof HarnessError && typeof err.raw === 'string' ? err : this.#harness(err)));
          }
          settle();
          resolve(answer);
        },
        (err) => end(() => this.#harness(err)),
      );
    });
  }

  /** @param {{situation: string, detail?: string, ms?: number}} f */
  #fail(f) {
    return this.#core.fail(f);
  }

  /**
   * The core's errors stay as they are (an INVALID_ANSWER worded for the
   * person becomes invalid_reply); an engine fault becomes engine_fault and
   * anything else (a HarnessError built in JS among them) provider_failed,
   * quoting it, so the model always receives {name, code, message} as the
   * core wrote it.
   * @param {unknown} err
   * @returns {HarnessError}
   */
  #harness(err) {
    if (err instanceof HarnessError && typeof err.raw === 'string') return /** @type {HarnessError} */ (forTheModel(this.#core, err));
    if (err instanceof HarnessError) return this.#fail({ situation: 'provider_failed', detail: `${err.code}: ${err.message}` });
    if (err instanceof HostFaultError) return this.#fail({ situation: 'engine_fault' });
    if (err === undefined || err === null) return this.#fail({ situation: 'no_answer' });
    return this.#fail({ situation: 'provider_failed', detail: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * The situations in which a surface could not show the question at all:
 * FirstReply drops it out while the others may still reach the person.
 */
const DROP_OUT = new Set(['not_shown', 'no_surface', 'no_form_support', 'no_terminal', 'session_not_found', 'no_provider']);

/**
 * A provider that puts the question to the person through every surface at
 * once (Go: askcore.FirstReply, same semantics). `surfaces` are
 * {name, provider}: name is what the core's messages call it ("the form",
 * "the answer page"), provider a provider ({ask} or a function). The first
 * surface to end the ask wins: its reply (or what it threw: the person
 * dismissed the question there) is the outcome, and the others are
 * withdrawn: their signal aborts with the core's answered_elsewhere error
 * (ASK_ABORTED, naming the winner) as its reason. A surface that throws an
 * error of a situation in which it could not show the question (not_shown,
 * no_form_support, no_terminal, session_not_found, no_provider,
 * no_surface) drops out while the others wait; when all dropped out, the
 * core's no_surface error (ASK_FAILED) lists why each could not, in the
 * order of the surfaces.
 * @param {Array<{name?: string, provider: {ask: Function} | Function}>} surfaces
 * @returns {{ask: (question: any, options?: {signal?: AbortSignal}) => Promise<unknown>}}
 */
export function firstReply(surfaces) {
  if (!Array.isArray(surfaces)) throw new TypeError('firstReply(surfaces): surfaces is an array of {name, provider}');
  const list = surfaces.map((s) => ({ name: s?.name, provider: typeof s?.provider === 'function' ? { ask: s.provider } : s?.provider }));
  /** @param {number} i */
  const nameOf = (i) => (list[i].name ? String(list[i].name) : `surface ${i + 1}`);
  return {
    ask(question, { signal } = {}) {
      const core = question.core;
      if (list.length === 0) return Promise.reject(core.fail({ situation: 'no_surface' }));
      const controllers = list.map(() => new AbortController());
      /** @type {(string | undefined)[]} */
      const reasons = new Array(list.length);
      return new Promise((resolve, reject) => {
        let left = list.length;
        let done = false;
        const onAbort = () => {
          if (done) return;
          done = true;
          for (const c of controllers) c.abort(signal?.reason);
          reject(signal?.reason);
        };
        /**
         * @param {number} i
         * @param {boolean} failed
         * @param {unknown} value the reply, or what the surface threw
         */
        const outcome = (i, failed, value) => {
          if (done) return;
          const info = failed ? situationOf(value) : undefined;
          if (info && DROP_OUT.has(info.situation)) {
            reasons[i] = nameOf(i) + ': ' + (info.reason || /** @type {Error} */ (value).message);
            if (--left > 0) return;
            done = true;
            signal?.removeEventListener('abort', onAbort);
            reject(core.fail({ situation: 'no_surface', reasons: reasons.filter((r) => r !== undefined) }));
            return;
          }
          done = true;
          signal?.removeEventListener('abort', onAbort);
          // The others are withdrawn with the core's words for why.
          const elsewhere = core.fail({ situation: 'answered_elsewhere', detail: nameOf(i) });
          controllers.forEach((c, j) => j !== i && c.abort(elsewhere));
          if (failed) reject(value);
          else resolve(value);
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        list.forEach((s, i) => {
          let pending;
          try {
            if (!s.provider || typeof s.provider.ask !== 'function') throw core.fail({ situation: 'no_provider' });
            pending = Promise.resolve(s.provider.ask(question, { signal: controllers[i].signal }));
          } catch (err) {
            pending = Promise.reject(err);
          }
          pending.then(
            (reply) => outcome(i, false, reply),
            (err) => outcome(i, true, err),
          );
        });
      });
    },
  };
}

/**
 * The model-facing ask_user_question tool: name, description and parameters
 * come from the core's schema op; execute has the core parse the model's
 * arguments, asks the provider and returns the core's answer object.
 * @param {UserInteraction} interaction
 */
export function askUserQuestionTool(interaction) {
  const schema = interaction.core.schema();
  return {
    name: /** @type {string} */ (schema.name),
    description: /** @type {string} */ (schema.description),
    parameters: schema.parameters,
    /**
     * @param {unknown} args the model's arguments: their text as the model wrote it, or an object
     * @param {{signal?: AbortSignal, from?: object, agentId?: string, sessionId?: string, toolCallId?: string, timeoutMs?: number}} [ctx]
     */
    execute(args, ctx = {}) {
      const from = ctx.from ?? { agentId: ctx.agentId, sessionId: ctx.sessionId, toolCallId: ctx.toolCallId };
      return interaction.ask(args, { signal: ctx.signal, from, timeoutMs: ctx.timeoutMs });
    },
  };
}
