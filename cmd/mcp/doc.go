// Command askcore-mcp is an MCP server on stdio with one tool,
// ask_user_question: any MCP client (Claude Code, Codex, VS Code, Cursor,
// ...) can let its model ask the person a question, and the question
// reaches the person as an MCP form elicitation shown by the client, or,
// where the client shows no forms, on a local answer page (package
// answerpage) in the person's browser.
//
// Usage:
//
//	askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION]
//	            [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
//
// --engine chooses where the askcore core runs (default wasm, under
// wazero; native runs it as Go code); both give the same bytes. --timeout
// ends a question that nobody answered with ASK_TIMEOUT; it is off by
// default (nothing is ever chosen for the person). --progress (default 5s,
// 0 for never) is the interval of progress notifications. --web (default
// auto) says when a question goes to the answer page: auto where the client
// did not advertise form elicitation, always for every question, never
// (such a client then gets ASK_FAILED at once). --no-browser (or
// ASKCORE_BROWSER=none) never opens a browser; --web-addr is where the page
// listens (default 127.0.0.1 and a free port; a fixed port to forward over
// SSH: ssh -L 8765:127.0.0.1:8765 host askcore-mcp --web-addr
// 127.0.0.1:8765, then open the URL printed). The server has no model of
// its own. Stdout carries only the protocol; diagnostics go to
// stderr (ASKCORE_LOG=info or debug for more; info logs each call's
// outcome). The process exits 0 when the client closes stdin or stdout
// (pending questions end with ASK_ABORTED). On SIGTERM, SIGINT or SIGHUP
// it withdraws every pending question: each call is answered with the
// core's ASK_ABORTED for the stopped situation ("the question was withdrawn
// because the program asking it was stopped (SIGTERM); nothing was
// chosen") while the client still reads, each form still open is cancelled
// with notifications/cancelled, and the process exits within 2 s with 128
// plus the signal's number (143, 130, 129), as a shell reports a process a
// signal ended; a second signal exits at once.
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
//     elicitation.form, or an empty elicitation {} meaning form) is asked on
//     the answer page (web.go; with --web=always, every client is). The
//     page listens on 127.0.0.1 behind a token in its URL and writes
//     "askcore: answer at URL" to stderr when it starts. A client that
//     advertises elicitation.url (on 2025-11-25 and older) gets that URL as
//     a URL-mode elicitation/create (mode "url", a fresh elicitationId): its
//     accept is the person's consent to open it, the answer comes from the
//     page, and notifications/elicitation/complete follows before the tool
//     result; a decline or cancel there is the core's verdict and takes the
//     question off the page. Otherwise the page is opened in the default
//     browser on a desktop session (DISPLAY or WAYLAND_DISPLAY; macOS,
//     Windows) unless --no-browser or ASKCORE_BROWSER=none. Either way,
//     each progress notification of the call (the first at once) carries
//     "askcore: answer at URL" as its message. What the person gives there
//     (picks, or a decline) goes to the seam, which has the core resolve
//     it; notifications/cancelled, --timeout and a signal withdraw the
//     question from the page, which says why. With --web=never such a
//     client gets ASK_FAILED (no_form_support) at once, never a hang.
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
// The transport is askcore-mcp's own (sdkgap_transport.go): go-sdk's
// stdio transport ends the session on any line it cannot decode, losing
// every pending call. lineTransport never does. A line that is not JSON
// gets -32700 (parse error); one that is JSON but not a valid request
// (a bare value, no method and no id, "jsonrpc" other than "2.0", an id
// that is not a string or an integer within ±2^53, a method that is not a
// string, params that are not an object) gets -32600 (invalid request),
// with the id when it is valid, else null; a request whose id is already
// in flight gets -32600 with that id; a response to nothing, and a
// notification with params that are not an object, are dropped with a log
// line. JSON-RPC batches are answered as one array on sessions of
// 2025-03-26 and older, which had them; on 2025-06-18 and later, and before
// initialize, each request in a batch gets -32600 (notifications and
// responses in it are still taken). Errors go-sdk would send with code 0
// get -32600 before initialize and -32603 after; error messages are cut at
// 1 KiB; params that do not decode (a malformed inputResponses, a name
// that is a number) get -32602 naming what is wrong, never quoting the
// request (go-sdk's message quotes the params whole).
//
// The client's response to elicitation/create is never decoded by go-sdk:
// lineTransport hands it to the provider as it came off the wire. A
// result goes to the core as the client sent it (op elicitation_result),
// so the core alone judges it: an accept without an answer is
// INVALID_ANSWER, never the form's default chosen for the person (go-sdk
// would have filled it in), and an action that is a number or content that
// is an array is the core's verdict in the core's words. A JSON-RPC error
// is client_error quoting its message, data and code; a response that is
// not one (an error whose code is not an integer, an error that is not an
// object, both a result and an error, "jsonrpc" other than "2.0", a reply
// over the line limit) is client_reply_invalid saying what is wrong; no
// result is client_no_result. Every message the model sees is the core's.
//
// Limits: one message per line, of at most 4 MiB (maxLineBytes, the core's
// input limit: nothing longer could be answered). A longer line is
// discarded as it is read, never held whole (internal/rpcline keeps its
// first 4 KiB and last 512 bytes to find its id), logged with the limit,
// and answered with -32600 (with its id when that could be read, also when
// it comes last as the TypeScript SDK writes it); an elicitation reply that
// long fails its question with client_reply_invalid. The core refuses
// arguments longer than core.MaxArgumentsBytes (256 KiB) with
// INVALID_REQUEST long before that.
package main
