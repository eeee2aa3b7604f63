// Package askcore lets an AI agent ask the person it works for a question,
// with the same rules on every surface the question can reach: a terminal,
// an ACP or MCP client's form, a web page, your own UI.
//
// A model calls the tool ask_user_question (Core.Tool describes it: give
// its Name, Description and Parameters to the model as a function tool).
// Hand the arguments the model wrote, as the text they are, to
// Service.Ask; the result is the tool result the model receives
// (ToolResult):
//
//	svc := askcore.NewService(nil)             // the rules, natively
//	dispose, err := svc.Register(myProvider)  // who reaches the person
//	defer dispose()
//	answer, err := svc.Ask(ctx, toolCall.Arguments, askcore.AskOptions{})
//	result, isError := askcore.ToolResult(answer, err)
//
// # The rules run in the core
//
// Every rule (normalization, defaults, the free-form rule for optionless
// questions, answer resolution, forms, the messages of every error) lives
// in package core behind one JSON envelope, the same bytes natively, under
// wazero, in Node and in browsers. An Engine runs it: Native (the default,
// no WebAssembly linked) or *hostgo.Engine (package hostgo: the same rules
// compiled to WebAssembly, run by wazero). A Core speaks the envelope in Go
// types. What a model or a person reads is always the core's bytes: an
// Answer or an *Error keeps them (JSON), and every type here marshals with
// encoding/json to exactly what the core writes.
//
// # Providers hand back what the person gave
//
// A Provider receives each Call (the question or the batch, normalized by
// the core, with the asking agent's Identity) and returns what the person
// gave: Lines they typed, Picks a keyboard picker made, a FormReply from a
// client, a Decline. The seam has the core resolve it into the answer, so
// no provider ever writes an answer: one that hands back anything else (an
// Answer it built or decoded, the answer to another call) is refused with
// ASK_FAILED. The Call gives a provider the core's ops for showing the
// question (Present, Picker, Form) and judging input before handing it
// back (CheckLine, CheckPick: their INVALID_ANSWER message is for the
// person, to ask again). A provider that gives up for a reason of its own
// returns a Failure naming the situation; the core words it.
//
// Ready providers: the terminal (package termui: a keyboard picker or line
// mode, in one call, termui.Open), ACP and MCP forms (the askcore-acp and
// askcore-mcp binaries, cmd/), and in JavaScript the npm package in hostjs/.
//
// # Errors a model can tell apart
//
// Every error Ask returns is an *Error, {"name","code","message"} as the
// core wrote it, with a Code a model can act on: INVALID_REQUEST (its
// arguments; the message says what to change), NO_PROVIDER (nobody can be
// asked: never an empty answer), ASK_DECLINED, ASK_ABORTED, ASK_TIMEOUT
// (opt-in, AskOptions.Timeout), ASK_CANCELLED, INVALID_ANSWER, ASK_FAILED,
// SESSION_NOT_FOUND, DUPLICATE_PROVIDER.
//
// The specification, with every op, rule, limit and message, is
// docs/SPEC.md in the repository; the decisions a reader might question
// are in RATIONALE.md.
package askcore
