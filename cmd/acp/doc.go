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
// (internal/frontdoor): --script FILE replays a JSON Lines script (each ACP
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
//   - The agent's text is sent as agent_message_chunk updates. Each
//     ask_user_question call is a tool_call update (toolCallId = the model's
//     call id, kind "other", status in_progress, rawInput = the arguments),
//     then a tool_call_update with status completed and rawOutput = the
//     answer object, or status failed and rawOutput = the error object
//     {name, code, message}.
//   - A question becomes elicitation/create with mode "form", the session's
//     sessionId and the tool call's toolCallId; the form is built by the
//     core's elicitation op and the client's response is judged by its
//     elicitation_result op (accept gives an answer or INVALID_ANSWER,
//     decline is ASK_DECLINED, cancel is ASK_CANCELLED, a client error, a
//     result that is not an object or a response the SDK cannot decode
//     (repair.go) is ASK_FAILED: a broken client never leaves a question
//     hanging).
//   - session/cancel during a question cancels the elicitation request
//     ($/cancel_request), the tool fails with ASK_ABORTED and the prompt
//     ends with stopReason cancelled; other sessions are unaffected.
//
// acp-go-sdk v0.13.0 cannot send sessionId and toolCallId on
// elicitation/create; sdkgap_elicitation.go works around it and is meant to
// be deleted once the SDK is fixed.
//
// Stdout carries only the protocol; diagnostics go to stderr.
package main
