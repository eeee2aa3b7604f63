// A scripted fake model server, one per host test, on 127.0.0.1 and an
// ephemeral port. It speaks the API the host under test speaks:
//
//   anthropic  Messages API with SSE (Claude Code, ANTHROPIC_BASE_URL)
//   responses  OpenAI Responses API with SSE (Codex, wire_api = "responses")
//   gemini     Gemini API, streamGenerateContent?alt=sse (Gemini CLI)
//   chat       OpenAI chat completions with SSE (opencode, @ai-sdk/openai-compatible)
//
// The script: the first turn calls the MCP tool ask_user_question with the
// given arguments (Claude Code first needs a ToolSearch call, which loads
// its deferred MCP tools); the next turn records the tool result exactly as
// the model received it (after the host's own wrapping) and ends with a
// short text. Requests that are not the agent's turn (titles, quota checks,
// classifiers) get a short text answer. Every request is kept in `requests`.
//
// With `subagent` (anthropic only), the main agent's first turn hands the
// ask to a sub-agent instead: it calls Claude Code's sub-agent tool (Agent)
// with SUBAGENT_PROMPT; the sub-agent's turns are the script above, its
// last one a report (REPORT, then the tool result it received); the main
// agent's turn that holds the report records it in `handback`.
import http from 'node:http';

const ASK = 'ask_user_question';
export const SUBAGENT_PROMPT = 'Sub-agent task: ask the person which database to use, with the askcore tool.';
export const REPORT = 'Sub-agent report: the tool said ';

export async function startFakeModel({ api, args, subagent = false, log = () => {} }) {
  const state = {
    api,
    args,
    subagent,
    requests: [],
    subagentTools: null, // the tool names the sub-agent was offered (over all its turns)
    mainTools: null, // the tool names the main agent was offered (its first turn)
    handback: null, // { at, text }: the main agent's message that holds the report
    askedAt: null, // when the tool call went out (ms since the epoch)
    result: null, // { at, text, raw }: the tool result the model received
    toolName: null, // the name the host gave the MCP tool
  };
  let settle;
  state.resultPromise = new Promise((resolve) => (settle = resolve));
  let settleHandback;
  state.handbackPromise = new Promise((resolve) => (settleHandback = resolve));
  state.settleHandback = (h) => {
    if (state.handback) return;
    state.handback = { at: Date.now(), ...h };
    settleHandback(state.handback);
  };

  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    let json = null;
    try {
      json = body ? JSON.parse(body) : null;
    } catch {
      // kept as text in requests
    }
    state.requests.push({ t: Date.now(), method: req.method, url: req.url, body: json ?? body });
    log(`${req.method} ${req.url}`);
    try {
      handlers[api](req, res, json, state, (r) => {
        if (!state.result) {
          state.result = { at: Date.now(), ...r };
          settle(state.result);
        }
      });
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err?.stack || err) } }));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  state.url = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return state;
}

function sse(res) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  return (event, data) => {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
}

function notFound(res, url) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `fake model: no route for ${url}` } }));
}

const DONE_TEXT = 'Thanks, noted.';

// ---------------------------------------------------------------- anthropic

function anthropicReply(res, json, blocks, stopReason) {
  const message = {
    id: `msg_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: json?.model || 'claude-fake',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (!json?.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason, usage: { ...message.usage, output_tokens: 5 } }));
    return;
  }
  const send = sse(res);
  send('message_start', { type: 'message_start', message });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { ...b, input: {} } });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

// texts are the texts of an Anthropic message's content: its text blocks
// and its tool results' texts.
function texts(content) {
  if (typeof content === 'string') return [content];
  return (content || []).flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'tool_result' ? texts(b.content) : []));
}

// subagentTurn: the main agent hands the ask to a sub-agent (Agent), then
// records the sub-agent's report once a message of its turn holds it.
function subagentTurn(res, json, state, tools) {
  state.mainTools ??= tools.map((t) => t.name);
  for (const m of json.messages || []) {
    if (m.role !== 'user') continue;
    const report = texts(m.content).find((t) => t.includes(REPORT));
    if (report !== undefined) {
      state.settleHandback({ text: report });
      return anthropicReply(res, json, [{ type: 'text', text: DONE_TEXT }], 'end_turn');
    }
  }
  const launched = (json.messages || []).some((m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.tool_use_id === 'toolu_agent_1'));
  // A sub-agent in the background answers the call at once; its report
  // comes in a later turn.
  if (launched) return anthropicReply(res, json, [{ type: 'text', text: 'Waiting for the sub-agent.' }], 'end_turn');
  return anthropicReply(
    res,
    json,
    [{ type: 'tool_use', id: 'toolu_agent_1', name: 'Agent', input: { description: 'Ask the person', prompt: SUBAGENT_PROMPT, subagent_type: 'general-purpose' } }],
    'tool_use',
  );
}

function anthropic(req, res, json, state, done) {
  const path = req.url.split('?')[0];
  if (path.endsWith('/count_tokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ input_tokens: 10 }));
    return;
  }
  if (req.method !== 'POST' || !path.endsWith('/v1/messages')) return notFound(res, req.url);
  const tools = json?.tools || [];
  const askTool = tools.find((t) => t.name?.endsWith(`__${ASK}`) || t.name === ASK);
  const search = tools.find((t) => t.name === 'ToolSearch');
  if (!askTool && !search) return anthropicReply(res, json, [{ type: 'text', text: 'ok' }], 'end_turn');
  const first = (json.messages || [])[0];
  const inSubagent = state.subagent && first?.role === 'user' && texts(first.content).some((t) => t.includes(SUBAGENT_PROMPT));
  if (state.subagent && !inSubagent) {
    if (tools.some((t) => t.name === 'Agent')) return subagentTurn(res, json, state, tools);
    return anthropicReply(res, json, [{ type: 'text', text: 'ok' }], 'end_turn');
  }
  // The sub-agent's tools over all its turns: a deferred MCP tool is listed
  // once ToolSearch has loaded it.
  if (inSubagent) state.subagentTools = [...new Set([...(state.subagentTools ?? []), ...tools.map((t) => t.name)])];
  // The agent's turn: what did it get back so far?
  const results = new Map();
  for (const m of json.messages || []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
  }
  const asked = results.get('toolu_ask_1');
  if (asked) {
    const content = asked.content;
    const text = typeof content === 'string' ? content : (content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
    done({ text, raw: asked });
    return anthropicReply(res, json, [{ type: 'text', text: inSubagent ? REPORT + text : DONE_TEXT }], 'end_turn');
  }
  const loaded = askTool && !askTool.defer_loading;
  if (loaded || results.has('toolu_search_1')) {
    const name = askTool?.name || `mcp__askcore__${ASK}`;
    state.toolName = name;
    state.askedAt = Date.now();
    return anthropicReply(res, json, [{ type: 'tool_use', id: 'toolu_ask_1', name, input: state.args }], 'tool_use');
  }
  return anthropicReply(
    res,
    json,
    [{ type: 'tool_use', id: 'toolu_search_1', name: 'ToolSearch', input: { query: `select:mcp__askcore__${ASK}`, max_results: 5 } }],
    'tool_use',
  );
}

// ---------------------------------------------------------------- responses

function responsesReply(res, item) {
  const send = sse(res);
  const id = `resp_${Date.now()}`;
  send('response.created', { type: 'response.created', response: { id } });
  send('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
  send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
  send('response.completed', {
    type: 'response.completed',
    response: {
      id,
      usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 },
    },
  });
  res.end();
}

// responsesTool finds the MCP tool among the request's tools: Codex lists
// MCP tools in a namespace tool ({type: "namespace", name: "mcp__askcore",
// tools: [...]}), and a call names the namespace beside the tool.
function responsesTool(tools) {
  for (const t of tools || []) {
    if (t.type === 'function' && t.name?.endsWith(ASK)) return { name: t.name };
    for (const sub of t.tools || []) if (sub.name?.endsWith(ASK)) return { name: sub.name, namespace: t.name };
  }
  return null;
}

function responses(req, res, json, state, done) {
  const path = req.url.split('?')[0];
  if (req.method === 'GET' && path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
    return;
  }
  if (req.method !== 'POST' || !path.endsWith('/responses')) return notFound(res, req.url);
  const tool = responsesTool(json?.tools);
  const text = (t) => ({ type: 'message', role: 'assistant', id: `msg_${Date.now()}`, content: [{ type: 'output_text', text: t, annotations: [] }] });
  if (!tool) return responsesReply(res, text('ok'));
  // state.again(text), when a test sets it, makes the model call the tool
  // again with the same arguments after a result it matches (a host's
  // timeout), up to 20 times; the last call's result is the one recorded.
  const n = state.calls || 1;
  const out = (json.input || []).find((i) => i.type === 'function_call_output' && i.call_id === `call_ask_${n}`);
  if (out) {
    const o = out.output;
    const t = typeof o === 'string' ? o : Array.isArray(o) ? o.map((c) => c.text ?? '').join('') : o?.content ?? JSON.stringify(o);
    if (state.again?.(t) && n < 20) {
      state.calls = n + 1;
      (state.earlier ??= []).push(t);
      return responsesReply(res, { type: 'function_call', id: `fc_ask_${n + 1}`, call_id: `call_ask_${n + 1}`, ...tool, arguments: JSON.stringify(state.args) });
    }
    done({ text: t, raw: out });
    return responsesReply(res, text(DONE_TEXT));
  }
  state.toolName = tool.namespace ? `${tool.namespace}.${tool.name}` : tool.name;
  state.askedAt = Date.now();
  return responsesReply(res, {
    type: 'function_call',
    id: 'fc_ask_1',
    call_id: 'call_ask_1',
    ...tool,
    arguments: JSON.stringify(state.args),
  });
}

// ---------------------------------------------------------------- gemini

function geminiReply(res, path, parts) {
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'gemini-fake',
  };
  if (path.includes(':streamGenerateContent')) {
    const send = sse(res);
    send(null, chunk);
    res.end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
  }
}

function gemini(req, res, json, state, done) {
  const path = req.url.split('?')[0];
  if (path.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totalTokens: 10 }));
    return;
  }
  if (req.method !== 'POST' || !/:(stream)?[gG]enerateContent$/.test(path)) return notFound(res, req.url);
  const decls = (json?.tools || []).flatMap((t) => t.functionDeclarations || []);
  const decl = decls.find((d) => d.name?.endsWith(ASK));
  if (!decl || !path.includes(':streamGenerateContent')) {
    // Side requests (routing, next-speaker and loop checks) want JSON text.
    return geminiReply(res, path, [{ text: '{"next_speaker":"user","reasoning":"done","model_choice":"flash","complexity_reasoning":"simple","complexity_score":10}' }]);
  }
  for (const c of json.contents || []) {
    for (const p of c.parts || []) {
      if (p.functionResponse && p.functionResponse.name === decl.name) {
        const r = p.functionResponse.response;
        const text = typeof r?.output === 'string' ? r.output : JSON.stringify(r);
        done({ text, raw: p.functionResponse });
        return geminiReply(res, path, [{ text: DONE_TEXT }]);
      }
    }
  }
  state.toolName = decl.name;
  state.askedAt = Date.now();
  return geminiReply(res, path, [{ functionCall: { name: decl.name, args: state.args } }]);
}

// ---------------------------------------------------------------- chat

function chatReply(res, json, delta, finish) {
  const base = { id: `chatcmpl_${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: json?.model || 'fake' };
  if (!json?.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: delta.content ?? null, tool_calls: delta.tool_calls }, finish_reason: finish }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
    return;
  }
  const send = sse(res);
  send(null, { ...base, choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: null }] });
  send(null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  send(null, '[DONE]');
  res.end();
}

function chat(req, res, json, state, done) {
  const path = req.url.split('?')[0];
  if (req.method === 'GET' && path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake', object: 'model' }] }));
    return;
  }
  if (req.method !== 'POST' || !path.endsWith('/chat/completions')) return notFound(res, req.url);
  const name = (json?.tools || []).map((t) => t.function?.name).find((n) => n?.endsWith(ASK));
  if (!name) return chatReply(res, json, { content: 'Fake title' }, 'stop');
  const out = (json.messages || []).find((m) => m.role === 'tool' && m.tool_call_id === 'call_ask_1');
  if (out) {
    const c = out.content;
    const text = typeof c === 'string' ? c : (c || []).map((p) => p.text ?? '').join('');
    done({ text, raw: out });
    return chatReply(res, json, { content: DONE_TEXT }, 'stop');
  }
  state.toolName = name;
  state.askedAt = Date.now();
  return chatReply(
    res,
    json,
    { tool_calls: [{ index: 0, id: 'call_ask_1', type: 'function', function: { name, arguments: JSON.stringify(state.args) } }] },
    'tool_calls',
  );
}

const handlers = { anthropic, responses, gemini, chat };
