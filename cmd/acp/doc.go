// Command askcore-acp is an askcore agent that speaks the Agent Client
// Protocol (ACP) on stdio, so editors such as Zed can run it as an agent
// server. Its one tool, ask_user_question, reaches the person as an ACP form
// elicitation (elicitation/create, mode "form") shown by the editor.
//
// Usage:
//
//	askcore-acp [--script FILE] [--engine wasm|native]
//
// The model settings are those of every askcore front door
// (package frontdoor): --script FILE replays a JSON Lines script (each ACP
// session from its own first line); otherwise DEEPSEEK_API_KEY selects
// DeepSeek, OPENAI_API_KEY (with OPENAI_BASE_URL and OPENAI_MODEL) any
// OpenAI-compatible server, and with none of them a built-in demo script
// runs. --engine chooses where the askcore core runs (default wasm, under
// wazero; native runs it as Go code). The engine opens in the background:
// initialize is answered at once, session/new waits for the engine.
//
// Protocol behaviour:
//
//   - initialize records whether the client advertised
//     clientCapabilities.elicitation.form. Without it every question fails
//     at once with ASK_FAILED (the model sees the error and goes on).
//   - session/new creates one agent per session; its history is kept
//     across the session's prompts. session/prompt runs the agent loop and
//     ends with stopReason end_turn, or cancelled after session/cancel.
//   - The agent's text is sent as agent_message_chunk updates, made safe
//     by the core (op sanitize), whatever its length (text.go): a reply
//     goes to the core in pieces of at most 512 KiB cut at line breaks
//     (the core takes envelopes of at most 4 MiB) and to the client in
//     chunks of at most 64 KiB, so no line comes near an ACP peer's line
//     limit (10 MiB for acp-go-sdk, 32 MiB for the TypeScript SDK). Each
//     tool call is a tool_call update
//     (toolCallId = the model's call id, kind "other", status in_progress,
//     rawInput = the arguments; the title "Question for you" for
//     ask_user_question, else the tool name as the core makes it fit a
//     title), then a tool_call_update with status completed, rawOutput =
//     the answer object as the core wrote it and the core's summary of the
//     answer on the card (op summary), or status failed, rawOutput = the
//     error object {name, code, message} as the core wrote it and its
//     message on the card.
//   - A question becomes one elicitation/create with mode "form", the
//     session's sessionId and the asking tool call's toolCallId; the form
//     is built by the core's elicitation op, one form for a whole batch
//     (fields choice_N, choices_N, custom_answer_N, answer_N; a
//     multi-select question is an array field), and the client's response
//     is judged by its elicitation_result op: accept gives the answer (a
//     batch's {"answers":[...]}) or INVALID_ANSWER, decline is
//     ASK_DECLINED, cancel is ASK_CANCELLED, any other action or a
//     response that is not an object is ASK_FAILED.
//   - Situations around the form are named here and written by the core
//     (op fail): an agent bound to no session is SESSION_NOT_FOUND, a
//     client without forms, a client error (a response the SDK cannot
//     decode becomes one, repair.go) or a result-less response is
//     ASK_FAILED: a broken client never leaves a question hanging.
//   - session/cancel during a question cancels the elicitation request
//     ($/cancel_request), the tool fails with ASK_ABORTED and the prompt
//     ends with stopReason cancelled; other sessions are unaffected. The
//     SDK sends $/cancel_request from its own goroutine, so a client may
//     see the prompt's response before it.
//
// Input lines (sdkgap_lines.go). No line a client sends ends the agent:
//
//   - A line is at most 10 MiB (10,485,760 bytes), its newline included:
//     the line limit of acp-go-sdk v0.13.0's reader, which otherwise ends
//     the connection on a longer line. A longer line is discarded as it
//     streams in (at most the limit is held, then given back) and logged
//     naming the limit. A request in it whose top-level id can be read
//     gets -32600 for that id ("Invalid request: the line is N bytes;
//     askcore-acp reads lines of at most 10485760 bytes, newline
//     included", data {bytes, maxLineBytes}); a response to one of the
//     agent's requests (an answer to a form) fails that question at once
//     with ASK_FAILED naming the limit; anything else is dropped with the
//     log line.
//   - Not JSON gets -32700 "Parse error"; JSON that is not an object (a
//     number, a string, null) -32600; a batch array -32600 "JSON-RPC
//     batches are not supported" (ACP has none); an object without a
//     method or an id, or with members of the wrong type, -32600: each
//     with the line's id when it can be read, else a null id, as the
//     official TypeScript SDK answers. A malformed notification is only
//     logged; a malformed response to one of the agent's requests (a
//     string error code, "jsonrpc":2, JSON cut short) fails that request
//     (repair.go), so a question never waits for a reply that was lost.
//   - Every other line reaches the SDK as it was, including the SDK's own
//     leniencies ("jsonrpc":"1.0" or none is served). Notifications are
//     read at the pace the SDK handles them (it ends the connection when
//     1,024 wait): a flood of them slows the client down, it no longer
//     ends the agent.
//
// Signals. SIGTERM, SIGINT and SIGHUP end askcore-acp: every prompt in
// flight is cancelled with the signal as the cause, so a pending question
// is withdrawn ($/cancel_request to the client) and its tool fails with
// ASK_ABORTED "the question was aborted: the agent received SIGTERM" (the
// final tool_call_update, status failed, rawOutput the error object), and
// each prompt ends with stopReason cancelled. The agent waits until every
// request of the client has its response on the wire (at most 1.5 s),
// releases the engine (at most 0.3 s) and exits with 128 + the signal's
// number (SIGHUP 129, SIGINT 130, SIGTERM 143): within 2 s of the signal
// (measured: a few milliseconds on the native engine, under 0.5 s on
// wasm, most of it the engine's release). A second signal skips the wait.
// The end of stdin still ends it with status 0.
//
// Routing: app.router (an askcore.Router) maps each agent to its
// session; the provider maps each session to its connection. A session
// holds its agent and any sub-agents that code running in it creates with
// frontdoor.Runtime.NewSubAgent(app.router, parentAgentID, id, hooks):
// their questions reach the same client, scoped to the session and to the
// sub-agent's own tool call. session/close (and the end of the
// connection) unbinds every agent of the session; their later questions
// are SESSION_NOT_FOUND.
//
// acp-go-sdk v0.13.0 cannot send sessionId and toolCallId on
// elicitation/create (sdkgap_elicitation.go), re-encodes the JSON it
// carries (sorted keys, escaped <, >, &: sdkgap_wirebytes.go), and ends
// the connection on a line over its scanner's 10 MiB buffer while it logs
// and drops unparseable lines unanswered (sdkgap_lines.go). The three
// files work around it and are meant to be deleted once the SDK is fixed
// (upstream gaps: coder/acp-go-sdk PR #51 for the first; none filed yet
// for the line reader, which has no option for its buffer size).
//
// Stdout carries only the protocol; diagnostics go to stderr.
package main
