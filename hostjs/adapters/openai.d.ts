// @askcore/askcore/openai: ask_user_question for the `openai` package.
import type { JSONSchema, UserInteraction } from '../index.js';

/** A Chat Completions function tool (openai's ChatCompletionFunctionTool). */
export interface ChatCompletionsTool {
  type: 'function';
  function: { name: string; description: string; parameters: JSONSchema; strict: boolean };
}

/** A Responses function tool (openai's FunctionTool). */
export interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JSONSchema;
  strict: boolean;
}

/** The Chat Completions tool message answering a call (openai's ChatCompletionToolMessageParam). */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  /** The core's answer or error object, its bytes. */
  content: string;
}

/** The Responses input item answering a function call (openai's ResponseInputItem.FunctionCallOutput). */
export interface FunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  /** The core's answer or error object, its bytes. */
  output: string;
}

export interface AskOptions {
  signal?: AbortSignal;
  /** ASK_TIMEOUT after this many milliseconds (default: the adapter's, off). */
  timeoutMs?: number;
}

export interface AskUserQuestion {
  /** "ask_user_question": dispatch the model's calls by it. */
  name: string;
  chatTool: ChatCompletionsTool;
  responsesTool: ResponsesTool;
  /** Asks for a Chat Completions tool call; the arguments text goes to the core as the model wrote it. */
  toolMessage(toolCall: { id: string; function: { arguments: string } }, options?: AskOptions): Promise<ToolMessage>;
  /** Asks for a Responses function_call item; the arguments text goes to the core as the model wrote it. */
  functionCallOutput(item: { call_id: string; arguments: string }, options?: AskOptions): Promise<FunctionCallOutput>;
}

/**
 * ask_user_question for the openai package. `strict`: the core's strict
 * schema (op schema, "strict": true) and strict: true on both tools; the
 * core reads the nulls a strict model sends for fields it leaves out as
 * absent. Throws a TypeError when the core writes no strict schema.
 */
export declare function askUserQuestion(
  interaction: UserInteraction,
  options?: { strict?: boolean; timeoutMs?: number; agentId?: string },
): AskUserQuestion;
