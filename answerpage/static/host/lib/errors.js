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
 * The JSON text to hand a model for an error: the core's own bytes when
 * known (`err.raw`), else {name, code, message} through JSON.stringify (a
 * HarnessError a provider built itself).
 * @param {HarnessError} err
 * @returns {string}
 */
export function errorText(err) {
  if (!(err instanceof HarnessError)) throw new TypeError('errorText(err): err is not a HarnessError');
  return typeof err.raw === 'string' ? err.raw : JSON.stringify(err);
}
