// @askcore/askcore/mcp: ask_user_question on an MCP TypeScript SDK server.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Core, ProviderFunction, UserInteraction } from '../index.js';

/**
 * Registers ask_user_question on `server`: the core's name, description and
 * JSON Schema (tools/list adds only "$schema"), every object let through
 * for the core to judge. Each call asks through `interaction`; the result
 * is the core's answer or error object as the text of its one text block
 * (the core's bytes) and as structuredContent, isError for an error.
 */
export declare function registerAskUserQuestion(
  server: McpServer,
  interaction: UserInteraction,
  options?: { timeoutMs?: number },
): RegisteredTool;

/**
 * A provider that asks the person through `server`'s client: the core's MCP
 * form for that client as an elicitation/create request related to the
 * tool call, notifications/progress in the core's words every
 * `progressEveryMs` (default 5000; 0: none) while the person answers when
 * the call has a progress token, and each reply judged by the core with
 * its delivery facts (core.formReply): a decline or cancel no person could
 * have given is ASK_FAILED (not_shown), an invalid reply goes back to the
 * person with the core's message. `clientEntrypoint`: how the client that
 * started this process says it runs (on stdio, pass
 * process.env.CLAUDE_CODE_ENTRYPOINT). A client without form elicitation:
 * the core's ASK_FAILED (no_form_support); a client error: its
 * client_error.
 */
export declare function createMcpElicitationProvider(
  server: McpServer,
  core: Core,
  options?: { progressEveryMs?: number; clientEntrypoint?: string },
): ProviderFunction;
