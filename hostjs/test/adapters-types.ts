// The adapters' declarations against the SDKs' own types (tsc, strict; see
// test/tsconfig.adapters.json): what each adapter gives is what its SDK takes.
import type { Tool, ToolSet, LanguageModelMiddleware, ToolCallRepairFunction } from 'ai';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ChatCompletionFunctionTool, ChatCompletionTool, ChatCompletionToolMessageParam, ChatCompletionMessageParam, ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions';
import type { FunctionTool, Tool as ResponsesToolUnion, ResponseInputItem, ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import type { Answer, Core, UserInteraction, Provider } from '../index.js';
import * as aiSdk from '@askcore/askcore/ai-sdk';
import * as mcp from '@askcore/askcore/mcp';
import * as openai from '@askcore/askcore/openai';

declare const ui: UserInteraction;
declare const core: Core;
declare const server: McpServer;

// ai-sdk
const a = aiSdk.askUserQuestion(ui, { strict: true, timeoutMs: 1000, agentId: 'agent' });
const tools: ToolSet = { ask_user_question: a.tool };
const t: Tool<unknown, Answer> = a.tool;
const m: LanguageModelMiddleware = a.middleware;
const r: ToolCallRepairFunction<{ ask_user_question: typeof a.tool }> = a.repairToolCall;
const name: string = a.name;
declare const failure: unknown;
if (failure instanceof aiSdk.AskUserQuestionError) {
  const code: string = failure.code;
  const raw: string | undefined = failure.cause.raw;
  void code, raw;
}

// mcp
const registered: RegisteredTool = mcp.registerAskUserQuestion(server, ui, { timeoutMs: 5 });
const provider: Provider['ask'] = mcp.createMcpElicitationProvider(server, core, { progressEveryMs: 0 });
ui.register(provider);

// openai
const o = openai.askUserQuestion(ui, { strict: false });
const chatTool: ChatCompletionFunctionTool = o.chatTool;
const chatTools: ChatCompletionTool[] = [o.chatTool];
const responsesTool: FunctionTool = o.responsesTool;
const responsesTools: ResponsesToolUnion[] = [o.responsesTool];
declare const toolCall: ChatCompletionMessageFunctionToolCall;
declare const item: ResponseFunctionToolCall;
async function glue() {
  const msg: ChatCompletionToolMessageParam = await o.toolMessage(toolCall, { signal: AbortSignal.timeout(1) });
  const messages: ChatCompletionMessageParam[] = [await o.toolMessage(toolCall)];
  const out: ResponseInputItem = await o.functionCallOutput(item, { timeoutMs: 10 });
  return [msg, messages, out];
}

void tools, t, m, r, name, registered, chatTool, chatTools, responsesTool, responsesTools, glue;
