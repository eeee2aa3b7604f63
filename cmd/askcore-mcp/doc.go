// Command askcore-mcp is an MCP server on stdio with one tool,
// ask_user_question: any MCP client (Claude Code, Codex, VS Code, Cursor,
// ...) can let its model ask the person a question, which reaches the
// person as the client's own form (MCP form elicitation) or, where the
// client shows no forms, on a local answer page in their browser.
//
//	askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION]
//	            [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
//
// This package is flags and wiring: the server is package mcpserver, the
// flags are frontdoor's. Registering it in each host: docs/hosts.md;
// every flag, and what it does on the wire (tool calls, the answer page,
// protocol versions, hostile lines, form replies, limits, signals and exit
// statuses): docs/mcp.md (and askcore-mcp --help).
package main
