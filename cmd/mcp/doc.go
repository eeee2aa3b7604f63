// Command askcore-mcp is an MCP server on stdio with one tool,
// ask_user_question: any MCP client (Claude Code, Codex, VS Code, Cursor,
// ...) can let its model ask the person a question, and the question
// reaches the person as an MCP form elicitation shown by the client.
//
// Usage:
//
//	askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION]
//
// --engine chooses where the askcore core runs (default wasm, under
// wazero; native runs it as Go code); both give the same bytes. --timeout
// ends a question that nobody answered with ASK_TIMEOUT; it is off by
// default (nothing is ever chosen for the person). --progress (default 5s,
// 0 for never) is the interval of progress notifications. The server has no
// model of its own. Stdout carries only the protocol; diagnostics go to
// stderr (ASKCORE_LOG=info or debug for more; info logs each call's
// outcome). The process exits 0 when the client closes stdin or stdout, or
// on SIGINT/SIGTERM, after aborting its pending questions.
//
// Protocol behaviour:
//
//   - tools/list lists ask_user_question with the core's description and the
//     core's JSON Schema as inputSchema, byte for byte. The tool is
//     registered raw: the arguments reach the core exactly as they came, so
//     a bad request is the core's INVALID_REQUEST, never an SDK message.
//   - Each tools/call goes through the interaction seam: the core parses
//     and normalizes the arguments (their JSON text as it was on the wire)
//     and writes the form (op elicitation, one form for a whole batch); the
//     client's reply is judged by the core (op elicitation_result). Every
//     error is the core's: its verdicts, and the situations around them
//     (no form support, a client error, an abort, a timeout) through its
//     op fail. seam.go holds every call into the core and the seam.
//   - Success: a tool result whose structuredContent is the answer object
//     and whose one text content block is the same bytes. Failure: isError
//     true with the error object {name, code, message} in both places.
//   - A client that did not advertise form elicitation (capabilities
//     elicitation.form, or an empty elicitation {} meaning form) gets
//     ASK_FAILED at once, never a hang.
//   - Protocol 2025-11-25 and older: the form is an elicitation/create
//     request (mode "form") sent while the call stays open. When the call
//     carries a progress token, notifications/progress go out every 5 s
//     while the person answers. notifications/cancelled for the call
//     cancels the elicitation request (the client is told with its own
//     notifications/cancelled) and the call ends with ASK_ABORTED; a lost
//     connection ends every pending question the same way.
//   - Protocol 2026-07-28 (SEP-2322, multi round-trip requests): go-sdk
//     refuses elicitation/create on this version, so the call returns an
//     input-required result carrying the form under the key
//     "ask_user_question"; the client asks the person and retries the call
//     with the same arguments and its reply in inputResponses, which the
//     core judges. The server holds nothing between the two rounds, so
//     there is nothing to withdraw, no progress to send, and --timeout does
//     not apply (the question lives in the client).
//   - Calls are independent: concurrent calls on one connection each get
//     their own form and their own answer.
//
// go-sdk's ServerSession.Elicit validates an accepted reply against the
// form and fills in the form's defaults before returning it. askcore-mcp
// records the reply as it came off the wire (sending middleware,
// captureReplies) and gives that to the core, so the core alone judges it:
// an accept without an answer is INVALID_ANSWER, never the default chosen
// for the person.
//
// Limits: go-sdk reads one JSON-RPC message per line of at most 16 MiB
// (mcp.DefaultMaxLineLength); a longer line ends the session. The core
// refuses arguments longer than core.MaxArgumentsBytes (256 KiB) with
// INVALID_REQUEST long before that.
package main
