// @askcore/askcore/readline: a terminal provider for Node, in line mode.
import type { Core, Provider, Question, Call, CallLike, LinesReply } from './index.js';

export interface ReadlineProviderOptions {
  /** Default process.stdin. */
  input?: NodeJS.ReadableStream;
  /** Default process.stdout. */
  output?: NodeJS.WritableStream;
  /** Written after each question and after each re-ask. Default "> ". */
  prompt?: string;
}

/**
 * Line mode (docs/SPEC.md, "Typed lines and picks"): each question of a call
 * in turn shows the core's `present` text and takes one line, judged by the
 * core's `resolve` (re-asked with the core's INVALID_ANSWER message) and
 * echoed with the core's `summary`; once every question has its line the
 * provider hands the lines back ({lines}), and the seam has the core resolve
 * them into the answer. One call owns the input at a time; the others queue.
 * Pending calls are rejected with the core's errors (op "fail"): "eof" at
 * the end of the input (a batch fails whole), "input_closed" on close(),
 * "interrupted" on interrupt(), "read_failed" on a read error, "aborted" on
 * abort.
 */
export declare class ReadlineProvider implements Provider {
  constructor(core: Core, options?: ReadlineProviderOptions);
  /**
   * `question`: what UserInteraction hands a provider, a core.normalizeRaw
   * result, {raw} or {request}. Resolves to the lines the person typed, one
   * per question, each one the core accepted (core.resolveAll(call, lines)
   * gives the answer, as the seam does).
   */
  ask(question: Question | Call | { raw: string } | { request: CallLike }, options?: { signal?: AbortSignal }): Promise<LinesReply>;
  /** Stops reading the input and rejects every pending call with the core's "input_closed". */
  close(): void;
  /** Rejects the call on screen with the core's "interrupted" (Ctrl-C); queued calls keep their place. Reports whether there was one. */
  interrupt(): boolean;
  /** Calls asked and not yet answered, the one on screen included. */
  readonly pending: number;
}

export declare function createReadlineProvider(core: Core, options?: ReadlineProviderOptions): ReadlineProvider;
