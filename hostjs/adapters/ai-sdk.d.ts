// @askcore/askcore/ai-sdk: ask_user_question as an AI SDK (`ai` v6) tool.
import type { LanguageModelMiddleware, Tool, ToolCallRepairFunction, ToolSet } from 'ai';
import type { Answer, Code, HarnessError, UserInteraction } from '../index.js';

/**
 * What execute throws when the ask fails: its message is the core's error
 * object {"name","code","message"} (its bytes), which the AI SDK sends to
 * the model as the tool error's text.
 */
export declare class AskUserQuestionError extends Error {
  constructor(err: HarnessError);
  name: 'AskUserQuestionError';
  /** The core's code. */
  code: Code | (string & {});
  /** The core's error. */
  cause: HarnessError;
}

export interface AskUserQuestionOptions {
  /** The core's strict schema (op schema, "strict": true), and strict: true on the tool. */
  strict?: boolean;
  /** ASK_TIMEOUT after this many milliseconds (off by default). */
  timeoutMs?: number;
  /** Who asks (the Identity's agentId the provider receives). */
  agentId?: string;
}

export interface AskUserQuestion {
  /** The core's tool name, "ask_user_question": the key to give the tool in `tools`. */
  name: string;
  /**
   * The tool: the core's description and input schema (jsonSchema(), no
   * validation of the SDK's own), execute asking through the
   * UserInteraction, toModelOutput the core's answer bytes as text.
   */
  tool: Tool<unknown, Answer>;
  /**
   * For experimental_repairToolCall: a call of this tool whose text the SDK
   * could not parse goes on to execute, which hands the text to the core
   * (its INVALID_REQUEST, with a byte offset, instead of the SDK's parse
   * message). Anything else: null (not repaired).
   */
  repairToolCall: ToolCallRepairFunction<ToolSet>;
  /**
   * For wrapLanguageModel: keeps each tool call's text as the model wrote
   * it, so execute hands the core that text rather than JSON.stringify of
   * what the SDK parsed.
   */
  middleware: LanguageModelMiddleware;
}

/** ask_user_question for the AI SDK, asking through `interaction`. */
export declare function askUserQuestion(interaction: UserInteraction, options?: AskUserQuestionOptions): AskUserQuestion;
