// The JS interaction seam, mirroring Go's interaction package: one provider
// reaches a person; agents ask through the UserInteraction, which normalizes
// the model's request through the core first and refuses at once when nobody
// can ask (NO_PROVIDER: never an empty answer).

import { Codes, HarnessError, UserInteractionError } from './errors.js';

const DISPOSED = 'the provider was disposed';

/**
 * Builds the ASK_ABORTED error for an aborted signal.
 * @param {AbortSignal | undefined} signal
 */
export function abortedError(signal) {
  let msg = 'the question was aborted';
  const r = signal?.reason;
  if (r instanceof UserInteractionError && r.code === Codes.ASK_ABORTED) return r;
  const isPlainAbort = r === undefined || (typeof r === 'object' && r !== null && /** @type {any} */ (r).name === 'AbortError');
  if (!isPlainAbort) msg += ': ' + (r instanceof Error ? r.message : String(r));
  return new UserInteractionError(Codes.ASK_ABORTED, msg);
}

/** @param {unknown} err */
function asHarness(err) {
  if (err instanceof HarnessError) return err;
  return new UserInteractionError(Codes.ASK_FAILED, err instanceof Error ? err.message : String(err), { cause: err });
}

/** @param {number} ms */
function formatMs(ms) {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
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
    if (!core || typeof core.normalizeRaw !== 'function') throw new TypeError('UserInteraction needs a loaded core');
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
   * rejects its pending questions with ASK_ABORTED; calling it again is harmless.
   * @param {{ask: Function} | Function} provider
   * @returns {() => void}
   */
  register(provider) {
    const p = typeof provider === 'function' ? { ask: provider } : provider;
    if (!p || typeof p.ask !== 'function') throw new TypeError('register(provider): a provider has an ask(question, {signal}) method');
    if (this.#active) {
      throw new UserInteractionError(
        Codes.DUPLICATE_PROVIDER,
        'a provider is already registered; dispose it before registering another',
      );
    }
    const reg = { provider: p, disposed: false, withdraw: new Set() };
    this.#active = reg;
    return () => {
      if (this.#active === reg) this.#active = null;
      reg.disposed = true;
      for (const withdraw of [...reg.withdraw]) withdraw();
    };
  }

  /**
   * Asks a person through the registered provider. `request` is the model's
   * raw ask_user_question arguments (an object, or its JSON text).
   * Rejects with UserInteractionError: ASK_ABORTED (signal aborted, before
   * the provider is reached if it already was; provider disposed),
   * INVALID_REQUEST, NO_PROVIDER, ASK_TIMEOUT, whatever the provider threw,
   * and ASK_FAILED for any other provider failure.
   * @param {unknown} request
   * @param {{signal?: AbortSignal, from?: object, timeoutMs?: number}} [options]
   */
  async ask(request, options = {}) {
    const { signal, from = {}, timeoutMs = this.#timeoutMs } = options;
    if (signal?.aborted) throw abortedError(signal);
    const { request: normalized, raw } = this.#core.normalizeRaw(request);
    const reg = this.#active;
    if (!reg) {
      throw new UserInteractionError(
        Codes.NO_PROVIDER,
        'no one can be asked here: no user-interaction provider is registered; continue without asking or stop and report',
      );
    }

    const controller = new AbortController();
    return new Promise((resolve, reject) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reg.withdraw.delete(onDispose);
      };
      /** @param {UserInteractionError} err */
      const fail = (err) => {
        if (controller.signal.aborted) return;
        cleanup();
        controller.abort(err); // tells the provider to give up: err is signal.reason
        reject(err);
      };
      const onAbort = () => fail(abortedError(signal));
      const onDispose = () => fail(new UserInteractionError(Codes.ASK_ABORTED, 'the question was withdrawn: ' + DISPOSED));
      signal?.addEventListener('abort', onAbort, { once: true });
      reg.withdraw.add(onDispose);
      if (reg.disposed) return onDispose();
      if (timeoutMs > 0) {
        timer = setTimeout(
          () => fail(new UserInteractionError(Codes.ASK_TIMEOUT, `no answer within ${formatMs(timeoutMs)}; nothing was chosen`)),
          timeoutMs,
        );
      }

      let pending;
      try {
        pending = Promise.resolve(reg.provider.ask({ request: normalized, raw, from }, { signal: controller.signal }));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (answer) => {
          if (controller.signal.aborted) return;
          cleanup();
          resolve(answer);
        },
        (err) => {
          if (controller.signal.aborted) return;
          cleanup();
          reject(asHarness(err));
        },
      );
    });
  }
}

/**
 * The model-facing ask_user_question tool: name, description and parameters
 * come from the core's schema op; execute normalizes through the core, asks
 * the provider and returns its answer object.
 * @param {UserInteraction} interaction
 */
export function askUserQuestionTool(interaction) {
  const schema = interaction.core.schema();
  return {
    name: /** @type {string} */ (schema.name),
    description: /** @type {string} */ (schema.description),
    parameters: schema.parameters,
    /**
     * @param {unknown} args the model's arguments (object or JSON text)
     * @param {{signal?: AbortSignal, from?: object, agentId?: string, sessionId?: string, toolCallId?: string, timeoutMs?: number}} [ctx]
     */
    execute(args, ctx = {}) {
      const from = ctx.from ?? { agentId: ctx.agentId, sessionId: ctx.sessionId, toolCallId: ctx.toolCallId };
      return interaction.ask(args, { signal: ctx.signal, from, timeoutMs: ctx.timeoutMs });
    },
  };
}
