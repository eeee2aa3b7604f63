// Command askcore-mcp is an MCP server on stdio with one tool,
// ask_user_question: any MCP client (Claude Code, Codex, VS Code, Cursor,
// ...) can let its model ask the person a question, which reaches the
// person as the client's own form (MCP form elicitation) or, where the
// client shows no forms, on a local answer page in their browser.
//
// Usage:
//
//	askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION]
//	            [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
//
// --engine chooses where the askcore core runs (default wasm, under
// wazero; native runs it as Go code); both give the same bytes. --timeout
// ends a question nobody answered with ASK_TIMEOUT (off by default:
// nothing is ever chosen for the person). --progress (default 5s, 0 for
// never) is the interval of progress notifications. --web says when a
// question goes to the answer page (auto: where the client shows no form);
// --no-browser (or ASKCORE_BROWSER=none) never opens a browser; --web-addr
// fixes the page's address (to forward it over SSH).
//
// Stdout carries only the protocol; diagnostics go to stderr
// (ASKCORE_LOG=info or debug for more). The process exits 0 when the
// client closes stdin or stdout; on SIGTERM, SIGINT or SIGHUP it withdraws
// every pending question and exits within 2 s with 128 plus the signal's
// number.
//
// This file's package is flags and wiring: the server is package
// mcpserver, and what it does on the wire (tool calls, the answer page,
// protocol versions, hostile lines, form replies, limits, signals) is
// described once in docs/mcp.md.
package main
