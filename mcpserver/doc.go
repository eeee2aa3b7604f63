// Package mcpserver serves askcore's one tool, ask_user_question, over the
// Model Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). It is what the askcore-mcp
// binary runs; a Go program serves askcore with its own service in a few
// lines:
//
//	svc := askcore.NewService(nil)
//	srv, err := mcpserver.New(svc, nil)
//	dispose, err := svc.Register(srv.Provider()) // or a provider of your own
//	defer dispose()
//	err = srv.Serve(ctx, os.Stdin, os.Stdout)
//
// Every tools/call is svc.Ask with the arguments as they came: the core
// writes every answer and every error. The server's Provider asks the
// person through the MCP client of the call: its form (elicitation/create,
// or an input-required result on 2026-07-28), or the local answer page
// (package answerpage) where the client shows no form, its URL given
// through the client's URL-mode elicitation where it has one (on
// 2026-07-28 in the result, the page holding the question until the client
// calls again). Register a
// provider of your own instead and the client is never asked.
//
// Serve runs one session on newline-delimited JSON-RPC (stdio) through
// askcore's own connection, which no line a client writes can end, and
// stops gracefully when its context ends. Handler serves streamable HTTP
// (a fresh go-sdk server per session; authentication is the caller's),
// Connect any go-sdk transport.
//
// What the server does on the wire, message by message, is described in
// docs/mcp.md in the repository; the workarounds for go-sdk's gaps are the
// files sdkgap_*.go, each headed by the upstream issue it waits for.
package mcpserver
