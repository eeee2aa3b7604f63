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
// call: the core's MCP form for that client (op elicitation, "for":"mcp",
// its clientInfo name) as an elicitation/create request related to the
// tool call, progress notifications in the core's words every 5 s while
// the person answers when the call has a progress token, and each reply
// judged by the core (op form_reply) with what the provider knows of its
// delivery: the time it took, the client's name and version, Codex's
// turn_trigger (in _meta["x-codex-turn-metadata"]) and the entrypoint the
// embedder passes. A reply no
// person could have given (a decline or cancel at once, or in a turn
// nobody runs) is the core's not_shown, never ASK_DECLINED or
// ASK_CANCELLED; a reply the core judges INVALID_ANSWER goes back to the
// person with the core's message (the core says how many times). A client
// that did not advertise form elicitation gets the core's ASK_FAILED
// (no_form_support) at once; a client error is the core's client_error.
// Every error is the core's.

import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { answerText, errorText, HarnessError } from '../lib/common.js';

/** Who asks when the client gave no clientInfo: the client's model (askcore-mcp's agent id). */
const AGENT_ID = 'mcp-client';

/**
 * The asking agent of a call, as askcore-mcp names it: the client's
 * clientInfo title (or name) and version, "Claude Code 2.1.328".
 * @param {any} server an McpServer
 */
function asker(server) {
  const ci = server.server.getClientVersion();
  const name = ci?.title || ci?.name;
  return name ? `${name} ${ci.version ?? ''}`.trim() : AGENT_ID;
}

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
      const from = { agentId: asker(server), sessionId: extra.sessionId, toolCallId: String(extra.requestId) };
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
 * @param {{progressEveryMs?: number, clientEntrypoint?: string}} [options] progressEveryMs: the interval of progress
 *   notifications (0: none); clientEntrypoint: how the client that started this process says it runs (pass
 *   process.env.CLAUDE_CODE_ENTRYPOINT on stdio: "sdk-cli" is claude -p, whose cancel is then known for what it is)
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
    const client = low.getClientVersion();
    /** @type {import('../index.js').Delivery} */
    const facts = { ms: 0, client: client?.name, clientVersion: client?.version, mode: 'form' };
    const trigger = turnTrigger(extra?._meta);
    if (trigger) facts.trigger = trigger;
    if (options.clientEntrypoint) facts.entrypoint = options.clientEntrypoint;
    let form = q.form({ for: 'mcp', client: facts.client });
    let round = 0;
    const stop = extra ? progress(extra, every, core) : () => {};
    try {
      for (;;) {
        const request = { method: 'elicitation/create', params: { mode: 'form', message: form.message, requestedSchema: form.requestedSchema } };
        const sent = performance.now();
        const reply = await elicit(core, low, extra, request, signal);
        const step = q.judgeForm({ response: reply, round, for: 'mcp', delivery: { ...facts, ms: performance.now() - sent } });
        if (step.next === 'answer') return step.answer;
        if (step.next !== 'ask_again') throw step.error;
        form = step.form;
        round = step.round;
      }
    } finally {
      stop();
    }
  };
}

/**
 * Codex's word on who started the turn, from a call's _meta: "exec" under
 * codex exec. Codex 0.169.0 sends it inside _meta["x-codex-turn-metadata"];
 * a turn_trigger at the top of _meta is read first.
 * @param {any} meta
 * @returns {string | undefined}
 */
function turnTrigger(meta) {
  for (const t of [meta?.turn_trigger, meta?.['x-codex-turn-metadata']?.turn_trigger]) {
    if (typeof t === 'string') return t;
  }
  return undefined;
}

/**
 * Sends one form to the client (related to the tool call when there is
 * one) and returns its reply as it came: {action, content?}.
 * @param {import('../lib/core.js').Core} core
 * @param {any} low the SDK's Server
 * @param {any} extra the call's RequestHandlerExtra, if any
 * @param {object} request
 * @param {AbortSignal} signal
 */
async function elicit(core, low, extra, request, signal) {
  const requestOptions = { signal, timeout: ELICIT_TIMEOUT_MS };
  let res;
  try {
    // The result as the client sent it (the SDK's ResultSchema keeps
    // every key): the core judges the action and the content.
    res = await (extra ? extra.sendRequest(request, ResultSchema, requestOptions) : low.request(request, ResultSchema, requestOptions));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw core.fail({ situation: 'client_error', detail: err instanceof Error ? err.message : String(err) });
  }
  if (!res || typeof res !== 'object') throw core.fail({ situation: 'client_no_result' });
  /** @type {{action: unknown, content?: unknown}} */
  const reply = { action: res.action };
  if (res.content !== undefined && res.content !== null) reply.content = res.content;
  return reply;
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
 * Sends notifications/progress every `every` ms while a person answers,
 * when the call has a progress token, in the core's words ("Waiting for
 * your answer… (5 seconds so far)"); returns what stops it.
 * @param {any} extra
 * @param {number} every
 * @param {import('../lib/core.js').Core} core
 */
function progress(extra, every, core) {
  const token = extra._meta?.progressToken;
  if (token === undefined || token === null || !(every > 0)) return () => {};
  const start = performance.now();
  let n = 0;
  const timer = setInterval(() => {
    n++;
    const message = core.progress({ ms: performance.now() - start });
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, message } }).catch(() => {});
  }, every);
  return () => clearInterval(timer);
}
