// @askcore/askcore/openai: ask_user_question for the `openai` package's
// function tools, Chat Completions and Responses, normal and strict, and
// the glue from a tool call to the message that answers it. The openai
// package hands over a call's arguments as the text the model wrote: that
// text goes to the core as it is, and the message carries only the core's
// bytes, its answer or its error object ({"name","code","message"}).
//
// Nothing here imports `openai`: the tools and messages are the plain
// objects its requests take.

import { answerText, errorText, HarnessError } from '../lib/common.js';
import { strictSchema } from './strict.js';

/**
 * ask_user_question for the openai package.
 * @param {import('../lib/interaction.js').UserInteraction} interaction
 * @param {{strict?: boolean, timeoutMs?: number, agentId?: string}} [options]
 *   strict: the core's strict schema (op schema, "strict": true) and
 *   strict: true on the tools, for strict function calling
 */
export function askUserQuestion(interaction, options = {}) {
  const core = interaction.core;
  const strict = options.strict === true;
  const schema = strict ? strictSchema(core) : core.schema();
  const name = /** @type {string} */ (schema.name);
  const description = /** @type {string} */ (schema.description);
  const parameters = schema.parameters;

  /**
   * The core's answer text, or its error text, for the model's arguments.
   * @param {unknown} args the arguments text as the model wrote it
   * @param {string} id the call's id
   * @param {{signal?: AbortSignal, timeoutMs?: number}} o
   */
  async function answer(args, id, o) {
    try {
      const a = await interaction.ask(typeof args === 'string' ? args : JSON.stringify(args ?? null), {
        signal: o.signal,
        from: { agentId: options.agentId, toolCallId: id },
        timeoutMs: o.timeoutMs ?? options.timeoutMs,
      });
      return answerText(a);
    } catch (err) {
      if (err instanceof HarnessError) return errorText(err);
      throw err;
    }
  }

  return {
    name,
    /** The Chat Completions tool (a ChatCompletionFunctionTool). */
    chatTool: { type: /** @type {const} */ ('function'), function: { name, description, parameters, strict } },
    /** The Responses tool (a FunctionTool). */
    responsesTool: { type: /** @type {const} */ ('function'), name, description, parameters, strict },
    /**
     * Asks for a Chat Completions tool call ({id, function: {arguments}})
     * and resolves to the tool message that answers it.
     * @param {{id: string, function: {arguments: string}}} toolCall
     * @param {{signal?: AbortSignal, timeoutMs?: number}} [o]
     */
    async toolMessage(toolCall, o = {}) {
      const content = await answer(toolCall.function.arguments, toolCall.id, o);
      return { role: /** @type {const} */ ('tool'), tool_call_id: toolCall.id, content };
    },
    /**
     * Asks for a Responses function call item ({call_id, arguments}) and
     * resolves to the function_call_output input item that answers it.
     * @param {{call_id: string, arguments: string}} item
     * @param {{signal?: AbortSignal, timeoutMs?: number}} [o]
     */
    async functionCallOutput(item, o = {}) {
      const output = await answer(item.arguments, item.call_id, o);
      return { type: /** @type {const} */ ('function_call_output'), call_id: item.call_id, output };
    },
  };
}
