// The error vocabulary of the contract (section 3). Every rule that produces
// one of these lives in the Go core or mirrors Go's interaction seam; JS only
// carries {name, code, message}.

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
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
  }

  toJSON() {
    return { name: this.name, code: this.code, message: this.message };
  }
}
HarnessError.prototype.name = 'HarnessError';

export class UserInteractionError extends HarnessError {
  /**
   * Builds the error from the `error` object of an ok:false envelope.
   * @param {{code?: unknown, message?: unknown}} obj
   */
  static fromJSON(obj) {
    return new UserInteractionError(String(obj?.code ?? Codes.ASK_FAILED), String(obj?.message ?? ''));
  }
}
UserInteractionError.prototype.name = 'UserInteractionError';

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
