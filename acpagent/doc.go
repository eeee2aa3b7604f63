// Package acpagent is askcore's agent for the Agent Client Protocol (ACP):
// the agent side of ACP over a stdio pair, whose model asks the person
// through ask_user_question. A question reaches the person as an ACP form
// elicitation in the editor, or, where the client shows no form
// (Options.Web), on askcore's local answer page (package answerpage), its
// URL sent to the session as agent message text. The core builds every
// form, judges every reply and writes every error; the agent routes and
// carries bytes.
//
// A program brings its own askcore.Service and conversations:
//
//	a := acpagent.New(acpagent.Options{Start: acpagent.Ready(acpagent.Backend{
//		Core:    core,
//		Service: svc,
//		NewConversation: func(agentID, sessionID string, hooks agent.Hooks) acpagent.Conversation {
//			return myAgent(agentID, sessionID, hooks) // an *agent.Agent with a model
//		},
//	})})
//	defer a.Close(ctx)
//	err := a.Serve(ctx, os.Stdin, os.Stdout)
//
// FromRuntime adapts a front door's runtime (frontdoor.Build), as
// askcore-acp does; Options.Start runs in the background, so initialize is
// answered while a WebAssembly engine still compiles. Serve returns nil
// when the client goes away; when ctx is done it withdraws every pending
// question with ctx's cause ("the agent received SIGTERM" for
// frontdoor.Stopped) and waits at most StopGrace for the responses. One
// Agent serves any number of connections; Router binds sub-agents to a
// session.
//
// What the agent does on the wire, and the acp-go-sdk gaps it works around
// (each in a file named sdkgap_*.go, headed by the upstream issue it waits
// for), is described in docs/acp.md.
package acpagent
