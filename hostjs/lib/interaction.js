// The JS interaction seam, mirroring Go's interaction.Service: one provider
// reaches a person; agents ask through the UserInteraction, which has the
// core parse and normalize the model's arguments first and refuses at once
// when nobody can ask (NO_PROVIDER: never an empty answer).
//
// Every error an ask rejects with is written by the core: the rules' own
// verdicts, and for the situations around them (no provider, an abort at any
// stage, a timeout, a disposed or broken provider, an engine fault) the
// core's op "fail". Go's seam meets the same situations with the same bytes;
// testdata/seam pins both (test/seam-corpus.test.mjs runs it here).

import { HarnessError, HostFaultError } from './errors.js';
import { remember } from './core.js';

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

    const question = remember({ ...call, from }, call.raw);
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
        (answer) => {
          if (settled) return;
          // A provider that gives neither an answer nor an error must not
          // become an empty answer for the model.
          if (answer === undefined || answer === null || typeof answer !== 'object') {
            return end(() => this.#fail({ situation: 'no_answer' }));
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
   * The core's structured errors stay as they are; an engine fault becomes
   * engine_fault and anything else provider_failed (quoting its message),
   * so the model always receives {name, code, message} as the core wrote it.
   * @param {unknown} err
   * @returns {HarnessError}
   */
  #harness(err) {
    if (err instanceof HarnessError) return err;
    if (err instanceof HostFaultError) return this.#fail({ situation: 'engine_fault' });
    if (err === undefined || err === null) return this.#fail({ situation: 'no_answer' });
    return this.#fail({ situation: 'provider_failed', detail: err instanceof Error ? err.message : String(err) });
  }
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
