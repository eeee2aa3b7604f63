// @askcore/askcore/ai-sdk: ask_user_question as an AI SDK tool (the `ai`
// package, v6). The input schema is the core's (op schema) through the SDK's
// jsonSchema(), with no validation of its own: the core judges every call.
// execute hands the model's arguments to the UserInteraction as text and
// resolves to the core's answer; toModelOutput gives the model the core's
// answer bytes. A failed ask is thrown as an AskUserQuestionError whose
// message is the core's error object ({"name","code","message"}, its own
// bytes): the SDK sends a thrown error's message to the model, so the code
// reaches the model and the call stays a tool error for the SDK.
//
// The SDK parses the model's text itself before execute runs. Two optional
// hooks keep the text, and with it the core's verdict:
// - repairToolCall (generateText/streamText's experimental_repairToolCall):
//   for text the SDK cannot parse as JSON, it keeps the text for execute,
//   which hands it to the core (INVALID_REQUEST with a byte offset) instead
//   of the SDK's parse message, sent as a tool error, without execute.
// - middleware (wrapLanguageModel): records every tool call's text as the
//   model wrote it, so execute hands the core that text even when it is
//   valid JSON (a key sent twice, a number JSON.parse rounds: the core's
//   verdict on what the model wrote, not on the SDK's re-serialization).
// Without either, execute hands the core JSON.stringify of what the SDK
// parsed.

import { InvalidToolInputError, jsonSchema, tool } from 'ai';
import { answerText, errorText, HarnessError } from '../lib/common.js';
import { strictSchema } from './strict.js';

/** How many tool-call texts the hooks keep for execute at most (oldest dropped first). */
const MAX_KEPT = 1024;

/**
 * The core's error, as a tool error the SDK passes to the model: its
 * message is the core's error object, its bytes (errorText); `code` is the
 * core's code, `cause` the core's HarnessError.
 */
export class AskUserQuestionError extends Error {
  /** @param {HarnessError} err */
  constructor(err) {
    super(errorText(err), { cause: err });
    /** The core's code. */
    this.code = err.code;
  }
}
AskUserQuestionError.prototype.name = 'AskUserQuestionError';

/**
 * The ask_user_question tool for the AI SDK, with the two hooks that keep
 * the model's text (see the file comment).
 * @param {import('../lib/interaction.js').UserInteraction} interaction
 * @param {{strict?: boolean, timeoutMs?: number, agentId?: string}} [options]
 */
export function askUserQuestion(interaction, options = {}) {
  const core = interaction.core;
  const schema = options.strict ? strictSchema(core) : core.schema();
  /** toolCallId → the model's text, kept by the hooks until execute takes it. */
  const kept = new Map();
  /**
   * @param {string} id
   * @param {string} text
   */
  const keep = (id, text) => {
    if (typeof id !== 'string' || typeof text !== 'string') return;
    kept.delete(id);
    kept.set(id, text);
    while (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value);
  };

  const askTool = tool({
    description: schema.description,
    inputSchema: jsonSchema(/** @type {any} */ (schema.parameters)),
    ...(options.strict ? { strict: true } : {}),
    /**
     * @param {unknown} input what the SDK parsed from the model's text
     * @param {{toolCallId: string, abortSignal?: AbortSignal}} execution
     */
    async execute(input, { toolCallId, abortSignal }) {
      let text = kept.get(toolCallId);
      if (text === undefined) text = JSON.stringify(input === undefined ? null : input);
      else kept.delete(toolCallId);
      try {
        return await interaction.ask(text, {
          signal: abortSignal,
          from: { agentId: options.agentId, toolCallId },
          timeoutMs: options.timeoutMs,
        });
      } catch (err) {
        throw err instanceof HarnessError ? new AskUserQuestionError(err) : err;
      }
    },
    /** @param {{output: unknown}} result */
    toModelOutput({ output }) {
      return { type: 'text', value: answerText(output) };
    },
  });

  /**
   * For experimental_repairToolCall: a call of this tool whose text the SDK
   * could not parse goes on to execute with the text kept, for the core to
   * judge; anything else is not repaired (null).
   * @param {{toolCall: {toolCallId: string, toolName: string, input: string}, tools: Record<string, unknown>, error: unknown}} o
   */
  async function repairToolCall({ toolCall, tools, error }) {
    if (!tools || tools[toolCall.toolName] !== askTool) return null;
    if (!InvalidToolInputError.isInstance(error)) return null;
    keep(toolCall.toolCallId, toolCall.input);
    return { ...toolCall, input: '{}' };
  }

  /** @param {unknown} part */
  const record = (part) => {
    const p = /** @type {any} */ (part);
    if (p && p.type === 'tool-call' && !p.providerExecuted) keep(p.toolCallId, p.input);
  };

  /** A language model middleware (wrapLanguageModel) that keeps each tool call's text for execute. */
  const middleware = {
    specificationVersion: /** @type {const} */ ('v3'),
    /** @param {{doGenerate: () => PromiseLike<any>}} o */
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      for (const part of result.content ?? []) record(part);
      return result;
    },
    /** @param {{doStream: () => PromiseLike<any>}} o */
    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      return {
        stream: stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              record(part);
              controller.enqueue(part);
            },
          }),
        ),
        ...rest,
      };
    },
  };

  return { name: /** @type {string} */ (schema.name), tool: askTool, repairToolCall, middleware };
}
