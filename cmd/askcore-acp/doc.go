// Command askcore-acp is an askcore agent that speaks the Agent Client
// Protocol (ACP) on stdio, so editors such as Zed can run it as an agent
// server. Its one tool, ask_user_question, reaches the person as an ACP form
// elicitation shown by the editor, or, for a client without forms, on a
// local answer page.
//
//	askcore-acp [--script FILE] [--engine wasm|native] [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
//
// This package is flags and wiring: the agent is package acpagent, the
// model settings and the --web flags are frontdoor's (docs/models.md,
// docs/acp.md and askcore-acp --help). What it does on the wire, line by
// line, signals and exit statuses included: docs/acp.md.
package main
