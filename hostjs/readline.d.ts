// @askcore/askcore/readline: a terminal provider for Node.
import type { Core, Provider, Question, Answer } from './index.js';

export interface ReadlineProviderOptions {
  /** Default process.stdin. */
  input?: NodeJS.ReadableStream;
  /** Default process.stdout. */
  output?: NodeJS.WritableStream;
  /** Written after the question and after each re-ask. Default "> ". */
  prompt?: string;
}

/**
 * Shows the core's `present` text, resolves each typed line through the core
 * (re-asking with the core's message on INVALID_ANSWER), one question at a
 * time; rejects pending questions with ASK_ABORTED on abort, close() and EOF.
 */
export declare class ReadlineProvider implements Provider {
  constructor(core: Core, options?: ReadlineProviderOptions);
  ask(question: Pick<Question, 'raw'> | Pick<Question, 'request'> | Question, options?: { signal?: AbortSignal }): Promise<Answer>;
  /** Stops reading the input and rejects every pending question with ASK_ABORTED. */
  close(): void;
  /** Questions asked and not yet answered, the one on screen included. */
  readonly pending: number;
}

export declare function createReadlineProvider(core: Core, options?: ReadlineProviderOptions): ReadlineProvider;
