// Command askcore-acp is an askcore agent that speaks the Agent Client
// Protocol (ACP) on stdio, so editors such as Zed can run it as an agent
// server. Its one tool, ask_user_question, reaches the person as an ACP form
// elicitation shown by the editor, or, for a client without forms, on a
// local answer page.
//
// Usage:
//
//	askcore-acp [--script FILE] [--engine wasm|native] [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
//
// The model settings are those of every askcore front door (package
// frontdoor): --script FILE replays a JSON Lines script, DEEPSEEK_API_KEY or
// OPENAI_API_KEY select a real model, and with none of them a built-in demo
// runs. --engine chooses where the askcore core runs (default wasm, under
// wazero). The --web flags are frontdoor.Web's: when a question goes to
// the answer page, and where the page listens.
//
// The protocol is package acpagent's; what it does on the wire, line by
// line, is docs/acp.md. SIGTERM, SIGINT and SIGHUP withdraw every pending
// question and exit with 128 + the signal's number within 2 s; the end of
// stdin exits 0. Stdout carries only the protocol; diagnostics go to stderr
// (ASKCORE_LOG=info or debug for more).
package main
