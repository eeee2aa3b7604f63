// What a run recorded, read back: the protocol the host negotiated, the
// forms it was sent and what it replied (with timings) from the proxy's
// log, the server's own result bytes, and the host's wrapping of them as
// the model received them.

// protocol is the MCP protocol version the host spoke: the initialize
// result's (2025-11-25 and older) or the per-request _meta version
// (2026-07-28, no initialize).
export function protocol(log) {
  const init = log.find((e) => e.dir === 's2c' && e.msg?.result?.protocolVersion);
  if (init) return init.msg.result.protocolVersion;
  const meta = log.find((e) => e.dir === 'c2s' && e.msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion']);
  return meta ? meta.msg.params._meta['io.modelcontextprotocol/protocolVersion'] : null;
}

// client is the clientInfo the host sent, and the elicitation capability.
export function client(log) {
  const init = log.find((e) => e.dir === 'c2s' && e.msg?.method === 'initialize');
  if (init) return { info: init.msg.params.clientInfo, elicitation: init.msg.params.capabilities?.elicitation ?? null };
  const meta = log.find((e) => e.dir === 'c2s' && e.msg?.params?._meta?.['io.modelcontextprotocol/clientInfo'])?.msg.params._meta;
  if (!meta) return null;
  return {
    info: meta['io.modelcontextprotocol/clientInfo'],
    elicitation: meta['io.modelcontextprotocol/clientCapabilities']?.elicitation ?? null,
  };
}

// forms are the forms (and URL-mode requests) the server sent and the
// host's replies: {mode, message, sentAt, reply, repliedAt, ms}. Legacy:
// elicitation/create and its response. 2026-07-28: an input request in a
// tool result, and the retried call's inputResponses.
export function forms(log) {
  const out = [];
  for (let i = 0; i < log.length; i++) {
    const e = log[i];
    if (e.dir !== 's2c') continue;
    let params = null;
    let replyOf = null;
    if (e.msg?.method === 'elicitation/create') {
      params = e.msg.params;
      const id = e.msg.id;
      replyOf = (x) => x.dir === 'c2s' && x.msg?.id === id && !x.msg.method && (x.msg.result || x.msg.error);
    } else if (e.msg?.result?.inputRequests) {
      const [[key, req]] = Object.entries(e.msg.result.inputRequests);
      params = req.params;
      replyOf = (x) => x.dir === 'c2s' && x.msg?.method === 'tools/call' && x.msg.params?.inputResponses?.[key];
    }
    if (!params) continue;
    const r = log.slice(i + 1).find(replyOf);
    const reply = r ? (r.msg.params?.inputResponses ? Object.values(r.msg.params.inputResponses)[0] : r.msg.result ?? { error: r.msg.error }) : null;
    out.push({ mode: params.mode ?? 'form', message: params.message, url: params.url, schema: params.requestedSchema, sentAt: e.t, reply, repliedAt: r?.t ?? null, ms: r ? r.t - e.t : null });
  }
  return out;
}

// serverResult is the last tool result askcore-mcp wrote for
// ask_user_question (not an input request): its text and isError.
export function serverResult(log) {
  const calls = new Set(log.filter((e) => e.dir === 'c2s' && e.msg?.method === 'tools/call').map((e) => e.msg.id));
  const results = log.filter((e) => e.dir === 's2c' && calls.has(e.msg?.id) && e.msg.result?.content && !e.msg.result.inputRequests);
  const last = results.at(-1);
  if (!last) return null;
  return { at: last.t, text: last.msg.result.content.map((c) => c.text ?? '').join(''), isError: !!last.msg.result.isError };
}

// progress is the progress notifications' messages.
export function progress(log) {
  return log.filter((e) => e.dir === 's2c' && e.msg?.method === 'notifications/progress').map((e) => e.msg.params.message ?? null);
}

// unwrap takes the host's wrapping off the tool result the model received:
// {inner, wrapper} with the wrapper's place for the server's text as <text>.
// A text the host did not wrap the way it is known to is returned whole.
const wrappers = {
  // Codex: "Wall time: 0.3541 seconds\nOutput:\n<text>"
  codex: /^(Wall time: [\d.]+ seconds\nOutput:\n)([\s\S]*)()$/,
  // Gemini CLI: the text inside <untrusted_context>.
  gemini: /^(<untrusted_context>\n?)([\s\S]*?)(\n?<\/untrusted_context>)$/,
  // Claude Code: the text, then a system reminder of its own.
  claude: /^()([\s\S]*?)(\n\n<system-reminder>[\s\S]*<\/system-reminder>)?$/,
  opencode: /^()([\s\S]*)()$/,
};

// Gemini CLI words a result with isError itself, and quotes the call and
// the whole MCP result in it: {"error":"MCP tool 'NAME' reported tool error
// for function call: CALL with response: [{functionResponse: ...}]"}.
const geminiError = /^MCP tool '([^']*)' reported tool error for function call: ([\s\S]*) with response: ([\s\S]*)$/;

export function unwrap(host, text) {
  if (host === 'gemini' && text?.startsWith('{"error":"MCP tool ')) {
    const m = geminiError.exec(JSON.parse(text).error);
    const fr = m && JSON.parse(m[3])[0]?.functionResponse;
    const content = fr?.response?.content;
    if (!Array.isArray(content)) return { inner: text, wrapper: '<text>' };
    return {
      inner: content.map((c) => c.text ?? '').join(''),
      wrapper: `{"error":"MCP tool '${m[1]}' reported tool error for function call: {the call} with response: [{"functionResponse":{"name":"${fr.name}","response":{"content":[{"type":"text","text":<text>}],"structuredContent":...,"isError":true}}}]"}`,
    };
  }
  const m = wrappers[host].exec(text ?? '');
  if (!m) return { inner: text, wrapper: '<text>' };
  return { inner: m[2], wrapper: `${m[1]}<text>${m[3] ?? ''}` };
}

// summary is one run as the README rows want it.
export function summary(run, extra = {}) {
  const log = run.mcp();
  const model = run.model.result;
  const server = serverResult(log);
  const un = model ? unwrap(run.host, model.text) : null;
  return {
    host: run.host,
    protocol: protocol(log),
    client: client(log),
    forms: forms(log).map((f) => ({ mode: f.mode, reply: f.reply, ms: f.ms, message: f.message?.slice(0, 80) })),
    progress: [...new Set(progress(log))],
    toolName: run.model.toolName,
    server: server && { text: server.text, isError: server.isError },
    model: model && { text: model.text, wrapper: un.wrapper, sameBytes: un.inner === server?.text },
    callToResultMs: model && run.model.askedAt ? model.at - run.model.askedAt : null,
    ...extra,
  };
}
