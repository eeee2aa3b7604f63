package mcpserver

// seam.go holds every call the server makes into the askcore core and the
// interaction seam, and every error it reports. The rest of the package only
// moves bytes between the MCP SDK and these functions: it never writes
// answer or error JSON, never decides a code or a message.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/rpcline"
)

// seam is the core and the service the server asks through.
type seam struct {
	core *askcore.Core
	svc  *askcore.Service
}

// tool is the model-facing tool as the core describes it (op schema):
// name, description and the JSON Schema of its arguments, the core's bytes.
func (s *seam) tool(ctx context.Context) (name, description string, inputSchema json.RawMessage, err error) {
	t, err := s.core.Tool(ctx)
	if err != nil {
		return "", "", nil, err
	}
	return t.Name, t.Description, t.Parameters, nil
}

// ask hands the model's tool arguments, the text exactly as it came over
// the wire, to the seam; the core parses it. The result is the answer
// object as the core wrote it; the error is an *askcore.Error holding the
// core's bytes.
func (s *seam) ask(ctx context.Context, arguments json.RawMessage, asker, toolCallID string, timeout time.Duration) (json.RawMessage, error) {
	if asker == "" {
		asker = agentID
	}
	res, err := s.svc.Ask(ctx, string(arguments), askcore.AskOptions{
		From:    askcore.Identity{AgentID: asker, ToolCallID: toolCallID},
		Timeout: timeout,
	})
	if err != nil {
		return nil, err
	}
	return res.JSON(), nil
}

// agentID is the identity of a question whose client gave no clientInfo:
// the server has no agent of its own, the MCP client's model is the
// asker, named by its client (asker) where the client says who it is.
const agentID = "mcp-client"

// form is the form for a normalized call as MCP clients read it (op
// elicitation, "for":"mcp"): the message and the requestedSchema, the
// core's bytes.
func (s *seam) form(ctx context.Context, call *askcore.Call) (message string, requestedSchema json.RawMessage, err error) {
	f, err := call.Form(ctx, askcore.ForMCP)
	if err != nil {
		return "", nil, err
	}
	return f.Message, f.RequestedSchema, nil
}

// reply hands the client's reply to the form (action and content, as the
// SDK decoded them from the wire) back to the seam, which has the core
// judge it (op elicitation_result): the answer, or the core's verdict
// (ASK_DECLINED, ASK_CANCELLED, INVALID_ANSWER, ASK_FAILED for an unknown
// action).
func reply(r elicitReply) (askcore.Reply, error) {
	response, err := json.Marshal(r)
	if err != nil { // a string and a map decoded from JSON always marshal
		return askcore.Reply{}, failure(situationClientError, err.Error())
	}
	return askcore.FormReply(response), nil
}

// elicitReply is the client's reply to a form as the core reads it:
// {"action":...,"content":{...}}.
type elicitReply struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// errorObject is err as the model and the client receive it:
// {"name","code","message"}, the core's own bytes.
func errorObject(err error) json.RawMessage {
	return askcore.ErrorJSON(err)
}

// The situations in which the front door itself ends a question (the
// core's op fail writes their errors).
const (
	// The client did not advertise form elicitation.
	situationNoFormSupport = askcore.SituationNoFormSupport
	// The client answered elicitation/create with an error, or the request
	// could not be sent (the detail says which).
	situationClientError = askcore.SituationClientError
	// The client answered the form without a result, or with an input
	// response of another kind.
	situationClientNoResult = askcore.SituationClientNoResult
	// The provider was reached outside an MCP tool call (a bug).
	situationProviderFailed = askcore.SituationProviderFailed
	// The connection ended while the client was asked.
	situationClientGone = askcore.SituationClientGone
	// The client's reply to elicitation/create is not a JSON-RPC response
	// one can read (the detail says what is wrong with it).
	situationClientReplyInvalid = askcore.SituationClientReplyInvalid
	// The server was stopped by a signal (the detail names it).
	situationStopped = askcore.SituationStopped
)

// maxDetailBytes bounds the host text of a failure before it goes to the
// core, which reads no more than its first askcore's MaxFailTextChars
// (4096) characters anyway: a client's error can be megabytes long.
const maxDetailBytes = 4096

// clientErrorFailure is the failure for a JSON-RPC error the client
// answered elicitation/create with: its message, its data when there is
// any, and its code, quoted by the core (client_error).
func clientErrorFailure(code int64, message string, data json.RawMessage) *askcore.Failure {
	detail := strings.TrimSpace(message)
	if d := string(data); len(data) > 0 && d != "null" && d != "{}" && d != `""` {
		detail += " " + rpcline.Cut(d, maxDetailBytes)
	}
	detail = strings.TrimSpace(rpcline.Cut(detail, maxDetailBytes) + fmt.Sprintf(" (JSON-RPC error %d)", code))
	return &askcore.Failure{Situation: situationClientError, Detail: detail}
}

// replyInvalid is the reply of a client whose response to elicitation/create
// cannot be read; detail says what is wrong with it (client_reply_invalid).
func replyInvalid(detail string) *wireReply {
	return &wireReply{failure: &askcore.Failure{Situation: situationClientReplyInvalid, Detail: detail}}
}

// stopped is the error of a question withdrawn because the server was
// stopped by signal (e.g. "SIGTERM"; "" when it was stopped otherwise).
func (s *seam) stopped(ctx context.Context, signal string) error {
	return s.core.Fail(context.WithoutCancel(ctx), askcore.Failure{Situation: situationStopped, Detail: signal})
}

// failure ends a question for a situation; the seam has the core word it,
// sanitizing and cutting detail (text from the client or the SDK).
func failure(situation askcore.Situation, detail string) error {
	return askcore.Failure{Situation: situation, Detail: detail}
}
