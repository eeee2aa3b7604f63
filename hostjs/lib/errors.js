// The error vocabulary (docs/SPEC.md in the repository, "Errors"). Every
// code and message comes from the Go core: rule verdicts from the op that
// judged, the situations around them (no provider, an abort, a timeout, ...)
// from its `fail` op. JS only carries {name, code, message}, and the core's
// own JSON text of the error (`raw`), which is what a model should receive.

/** The codes a UserInteractionError may carry. */
export const Codes = Object.freeze({
  INVALID_REQUEST: 'INVALID_REQUEST',
  INVALID_ANSWER: 'INVALID_ANSWER',
  NO_PROVIDER: 'NO_PROVIDER',
  DUPLICATE_PROVIDER: 'DUPLICATE_PROVIDER',
  ASK_ABORTED: 'ASK_ABORTED',
  ASK_TIMEOUT: 'ASK_TIMEOUT',
  ASK_DECLINED: 'ASK_DECLINED',
  ASK_CANCELLED: 'ASK_CANCELLED',
  ASK_FAILED: 'ASK_FAILED',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
});

/** A structured error that survives tool execution as {name, code, message}. */
export class HarnessError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{cause?: unknown, raw?: string}} [options] raw: the error object's JSON text as the core wrote it
   */
  constructor(code, message, options) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    /**
     * The error object ({"name","code","message"}) exactly as the core wrote
     * it; undefined for an error built in JS. Not enumerable.
     * @type {string | undefined}
     */
    this.raw = undefined;
    Object.defineProperty(this, 'raw', { value: options?.raw, enumerable: false, writable: false });
  }

  toJSON() {
    return { name: this.name, code: this.code, message: this.message };
  }
}
HarnessError.prototype.name = 'HarnessError';

export class UserInteractionError extends HarnessError {
  /**
   * Builds the error from the `error` object of an ok:false envelope (or a
   * `fail` result); `raw` is that object's JSON text as the core wrote it.
   * @param {{name?: unknown, code?: unknown, message?: unknown}} obj
   * @param {string} [raw]
   * @returns {HarnessError}
   */
  static fromJSON(obj, raw) {
    return errorFromCore(obj, raw);
  }
}
UserInteractionError.prototype.name = 'UserInteractionError';

/**
 * The error the core described: a UserInteractionError, or (for the agent
 * loop's ToolError situations) a HarnessError carrying the core's name.
 * @param {{name?: unknown, code?: unknown, message?: unknown}} obj
 * @param {string} [raw]
 * @returns {HarnessError}
 */
export function errorFromCore(obj, raw) {
  const name = String(obj?.name ?? 'UserInteractionError');
  const code = String(obj?.code ?? Codes.ASK_FAILED);
  const message = String(obj?.message ?? '');
  if (name === 'UserInteractionError') return new UserInteractionError(code, message, { raw });
  const err = new HarnessError(code, message, { raw });
  Object.defineProperty(err, 'name', { value: name, enumerable: false, configurable: true, writable: true });
  return err;
}

/** A fault of the host itself (a trap in the module, a refused input buffer), not a rule of the core. */
/**
 * The situation the core wrote an error for, and why its surface could not
 * show the question (Go: Error's situation and reason): FirstReply drops a
 * surface whose error says it could not show the question, and lists why.
 * Internal to the package.
 * @type {WeakMap<object, {situation: string, reason: string}>}
 */
const situations = new WeakMap();

/**
 * Records the situation of an error the core wrote.
 * @template T
 * @param {T} err
 * @param {string} situation
 * @param {string} reason
 * @returns {T}
 */
export function markSituation(err, situation, reason) {
  if (err && typeof err === 'object') situations.set(err, { situation, reason });
  return err;
}

/**
 * The situation and reason recorded for err, if any.
 * @param {unknown} err
 * @returns {{situation: string, reason: string} | undefined}
 */
export function situationOf(err) {
  return err && typeof err === 'object' ? situations.get(err) : undefined;
}

export class HostFaultError extends Error {}
HostFaultError.prototype.name = 'AskcoreHostFault';

/**
 * @param {unknown} err
 * @param {string} [code]
 * @returns {err is UserInteractionError}
 */
export function isUserInteractionError(err, code) {
  return err instanceof UserInteractionError && (code === undefined || err.code === code);
}

/**
 * The core errorText asks for the words of an error the core did not write:
 * the last one loaded in this realm, held weakly (a Core dropped by its
 * owner is not kept alive for this).
 * @type {{deref(): ({fail(f: {situation: string, detail?: string}): HarnessError} | undefined)} | null}
 */
let lastCore = null;

/**
 * Records the core errorText falls back on. Internal to the package (every
 * Core registers itself when loaded).
 * @param {{fail(f: {situation: string, detail?: string}): HarnessError}} core
 */
export function rememberCore(core) {
  lastCore = typeof WeakRef === 'function' ? new WeakRef(core) : { deref: () => core };
}

/** What errorText gives when no core can be reached at all (none loaded, or it failed). */
const NO_CORE_TEXT = '{"name":"ToolError","code":"TOOL_FAILED","message":"a tool failed"}';

/**
 * The JSON text to hand a model for anything a tool call threw (a catch
 * hands it over as unknown); it never throws. A HarnessError the core
 * wrote (`raw` set): its own bytes. Anything else is the core's
 * "tool_failed" (TOOL_FAILED, as Go's askcore.ErrorJSON writes for an error
 * that never went through the seam), quoting it: `CODE: message` for a
 * HarnessError built in JS, the message for an Error, String(value)
 * otherwise; a HostFaultError is the core's "engine_fault" (whose words
 * leave the host's details out). The words come from `core` when given,
 * else from the last core loaded; with no core at all,
 * {"name":"ToolError","code":"TOOL_FAILED","message":"a tool failed"}.
 * @param {unknown} err
 * @param {{fail(f: {situation: string, detail?: string}): HarnessError}} [core]
 * @returns {string}
 */
export function errorText(err, core) {
  try {
    if (err instanceof HarnessError && typeof err.raw === 'string') return err.raw;
    const c = core && typeof core.fail === 'function' ? core : lastCore?.deref();
    if (!c) return NO_CORE_TEXT;
    const f = err instanceof HostFaultError ? { situation: 'engine_fault' } : { situation: 'tool_failed', detail: describe(err) };
    const e = c.fail(f);
    return typeof e?.raw === 'string' ? e.raw : NO_CORE_TEXT;
  } catch {
    return NO_CORE_TEXT;
  }
}

/**
 * What errorText quotes of a thrown value (never throws: a getter or a
 * toString that throws gives nothing to quote).
 * @param {unknown} err
 */
function describe(err) {
  try {
    if (err instanceof HarnessError) return `${err.code}: ${err.message}`;
    if (err instanceof Error) return String(err.message);
    return String(err);
  } catch {
    return '';
  }
}
