// @askcore/askcore/mcp: ask_user_question on an MCP TypeScript SDK server
// (McpServer, @modelcontextprotocol/sdk 1.x), the JS twin of askcore-mcp.
//
// registerAskUserQuestion lists the tool with the core's description and
// the core's JSON Schema, and hands each call's arguments to the
// UserInteraction; the result carries the core's answer (or error) object
// twice, as structuredContent and as the text of its one text block (the
// core's bytes), with isError for an error.
//
// createMcpElicitationProvider asks the person through the client of the
// call: the core's MCP form (op elicitation, "for":"mcp") as an
// elicitation/create request related to the tool call, progress
// notifications every 5 s while the person answers when the call has a
// progress token, and the client's reply, as it came, handed back for the
// core to judge ({form}). A client that did not advertise form elicitation
// gets the core's ASK_FAILED (no_form_support) at once; a client error is
// the core's client_error. Every error is the core's.

import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { answerText, errorText, HarnessError } from '../lib/common.js';

/** Who asks, for every question of an MCP tool call: the client's model (askcore-mcp's agent id). */
const AGENT_ID = 'mcp-client';

/** The default interval of progress notifications while a person answers. */
const PROGRESS_EVERY_MS = 5000;

/**
 * The longest the SDK waits for the client's reply to the form: its
 * request timeout (60 s by default) must not end a person's thinking, and
 * setTimeout's range ends here (2^31-1 ms, about 24.8 days).
 */
const ELICIT_TIMEOUT_MS = 0x7fffffff;

/**
 * The tool calls under way per MCP server: the `from` of each ask (the
 * Identity the seam hands its provider) to the call's handler extra, so
 * the provider elicits on that call's connection, related to that call.
 * @type {WeakMap<object, {byFrom: WeakMap<object, any>, byId: Map<string, any>}>}
 */
const callsOf = new WeakMap();

/** @param {object} server */
function calls(server) {
  let c = callsOf.get(server);
  if (!c) {
    c = { byFrom: new WeakMap(), byId: new Map() };
    callsOf.set(server, c);
  }
  return c;
}

/** @param {{sessionId?: string, toolCallId?: string}} from */
const callKey = (from) => JSON.stringify([from.sessionId ?? null, from.toolCallId ?? null]);

/**
 * Registers ask_user_question on `server` (an McpServer): the core's name,
 * description and input schema; each call asks through `interaction`.
 * Returns the SDK's RegisteredTool.
 * @param {any} server an McpServer
 * @param {import('../lib/interaction.js').UserInteraction} interaction
 * @param {{timeoutMs?: number}} [options]
 */
export function registerAskUserQuestion(server, interaction, options = {}) {
  const core = interaction.core;
  const schema = core.schema();
  const registry = calls(server);
  return server.registerTool(
    schema.name,
    { description: schema.description, inputSchema: coreInputSchema(schema.parameters) },
    /**
     * @param {unknown} args the arguments as the SDK decoded them from the JSON-RPC message
     * @param {any} extra the SDK's RequestHandlerExtra
     */
    async (args, extra) => {
      const from = { agentId: AGENT_ID, sessionId: extra.sessionId, toolCallId: String(extra.requestId) };
      const key = callKey(from);
      registry.byFrom.set(from, extra);
      registry.byId.set(key, extra);
      try {
        // The SDK decoded the JSON-RPC message: the text of the arguments
        // is gone, so the core reads them re-encoded.
        const answer = await interaction.ask(JSON.stringify(args ?? {}), { signal: extra.signal, from, timeoutMs: options.timeoutMs });
        return toolResult(answerText(answer), false);
      } catch (err) {
        const e = err instanceof HarnessError && typeof err.raw === 'string' ? err : core.fail({ situation: 'tool_failed', detail: err instanceof Error ? err.message : String(err) });
        return toolResult(errorText(e), true);
      } finally {
        if (registry.byId.get(key) === extra) registry.byId.delete(key);
      }
    },
  );
}

/**
 * A tool result carrying the core's object twice: the text of the one text
 * block (its bytes) and structuredContent.
 * @param {string} text
 * @param {boolean} isError
 */
function toolResult(text, isError) {
  /** @type {{content: {type: 'text', text: string}[], structuredContent: any, isError?: boolean}} */
  const result = { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) };
  if (isError) result.isError = true;
  return result;
}

/**
 * What McpServer takes for an input schema (a Zod object schema), standing
 * for the core's JSON Schema: an object schema that lets every object
 * through (the core alone judges the call), whose JSON Schema in tools/list
 * is the core's (zod writes its metadata over its own "type", "properties"
 * and "additionalProperties"; the SDK adds "$schema").
 * @param {{[key: string]: unknown}} parameters the core's JSON Schema
 */
function coreInputSchema(parameters) {
  return z.looseObject({}).meta(parameters);
}

/**
 * A provider for `interaction` that asks through `server`'s client (see the
 * file comment).
 * @param {any} server an McpServer
 * @param {import('../lib/core.js').Core} core
 * @param {{progressEveryMs?: number}} [options] progressEveryMs: the interval of progress notifications (0: none)
 */
export function createMcpElicitationProvider(server, core, options = {}) {
  const every = options.progressEveryMs ?? PROGRESS_EVERY_MS;
  const registry = calls(server);
  /**
   * @param {import('../index.js').Question} q
   * @param {{signal: AbortSignal}} o
   */
  return async function ask(q, { signal }) {
    const extra = registry.byFrom.get(q.from) ?? registry.byId.get(callKey(q.from ?? {}));
    const low = server.server;
    if (!formElicitation(low.getClientCapabilities())) throw core.fail({ situation: 'no_form_support' });
    const form = mcpForm(core, q);
    const request = { method: 'elicitation/create', params: { mode: 'form', message: form.message, requestedSchema: form.requestedSchema } };
    const requestOptions = { signal, timeout: ELICIT_TIMEOUT_MS };
    const stop = extra ? progress(extra, every) : () => {};
    let res;
    try {
      // The result as the client sent it (the SDK's ResultSchema keeps
      // every key): the core judges the action and the content.
      res = await (extra ? extra.sendRequest(request, ResultSchema, requestOptions) : low.request(request, ResultSchema, requestOptions));
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw core.fail({ situation: 'client_error', detail: err instanceof Error ? err.message : String(err) });
    } finally {
      stop();
    }
    if (!res || typeof res !== 'object') throw core.fail({ situation: 'client_no_result' });
    /** @type {{action: unknown, content?: unknown}} */
    const reply = { action: res.action };
    if (res.content !== undefined && res.content !== null) reply.content = res.content;
    return { form: reply };
  };
}

/**
 * Whether the client can show forms: its elicitation capability lists
 * form, or lists no mode (an empty {} means form).
 * @param {any} caps
 */
function formElicitation(caps) {
  const el = caps?.elicitation;
  if (!el || typeof el !== 'object') return false;
  return el.form !== undefined || el.url === undefined;
}

/**
 * The core's form for MCP clients (op elicitation, "for":"mcp"): the
 * normalized call goes back as the core's own bytes.
 * @param {import('../lib/core.js').Core} core
 * @param {{raw: string}} q
 * @returns {{message: string, requestedSchema: object}}
 */
function mcpForm(core, q) {
  const out = core.handle('{"op":"elicitation","request":' + q.raw + ',"for":"mcp"}');
  const env = JSON.parse(out);
  if (env.ok) return env.result;
  // The core refuses only a call it did not normalize, which q is not.
  throw core.fail({ situation: 'engine_fault' });
}

/**
 * Sends notifications/progress every `every` ms while a person answers,
 * when the call has a progress token; returns what stops it.
 * @param {any} extra
 * @param {number} every
 */
function progress(extra, every) {
  const token = extra._meta?.progressToken;
  if (token === undefined || token === null || !(every > 0)) return () => {};
  let n = 0;
  const timer = setInterval(() => {
    n++;
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n } }).catch(() => {});
  }, every);
  return () => clearInterval(timer);
}
