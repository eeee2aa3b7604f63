// Package askcore lets an AI agent ask the person it works for a question,
// with the same rules on every surface the question can reach: a terminal,
// an ACP or MCP client's form, a web page, your own UI.
//
// A model calls the tool ask_user_question (Core.Tool describes it). Hand
// the arguments the model wrote, as text, to Service.Ask; ToolResult turns
// the outcome into the tool result the model receives:
//
//	svc := askcore.NewService(nil)             // the rules, natively
//	dispose, err := svc.Register(myProvider)  // who reaches the person
//	defer dispose()
//	answer, err := svc.Ask(ctx, toolCall.Arguments, askcore.AskOptions{})
//	result, isError := askcore.ToolResult(answer, err)
//
// Every error Ask returns is an *Error whose Code a model can act on
// (INVALID_REQUEST, NO_PROVIDER, ASK_DECLINED, ASK_TIMEOUT, ...). No provider
// writes an answer: it hands back what the person gave, and the core
// resolves it.
//
// # Glossary
//
//   - core: package core, every rule and message behind one JSON envelope;
//     the same bytes natively, under wazero, in Node and in browsers.
//   - engine: what runs the core (Native, or hostgo.Engine on WebAssembly).
//   - op: one operation of the envelope (normalize, resolve, present, ...).
//   - call: one ask_user_question call, one question or a batch of several.
//   - provider: the code that reaches the person and returns their reply.
//   - reply: what the person gave (lines, picks, a form, a decline), never
//     an answer; the core turns it into the answer.
//   - seam: the Service between agent and provider, where arguments are
//     checked, replies resolved and every outcome worded by the core.
//   - situation: a reason an ask cannot finish (timeout, client gone, ...);
//     a provider names it and the core words the error.
//   - surface: anywhere the rules run or a question shows (Go, Node, a
//     browser; a terminal, a form, a page).
//   - front door: a program that puts askcore in front of an agent or client
//     (askcore-stdio, askcore-acp, askcore-mcp); package frontdoor is what
//     they share.
//   - answer page: the local web page a front door falls back to.
//
// The specification is docs/SPEC.md; the choices behind the API are in
// RATIONALE.md.
package askcore
