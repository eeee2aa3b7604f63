package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, which re-encodes the
// JSON it carries. The core's bytes (an answer, an error object, a form)
// must reach the client as the core wrote them. The SDK's HTML escaping of
// '<', '>' and '&' is harmless now that the core writes them escaped too,
// but one thing still changes them:
//
//   - SessionUpdate.MarshalJSON round-trips every variant through
//     map[string]any, so the keys of rawInput and rawOutput come out
//     sorted ({"code","message","name"} instead of the core's
//     {"name","code","message"}; a batch answer's "question" no longer
//     first). toolCallNotification sends tool_call and tool_call_update
//     with the SDK's own variant structs, marshalled as structs: a
//     json.RawMessage inside keeps its bytes.
// Upstream: none filed; the issue text is
// docs/upstream/acp-go-sdk-session-update-bytes.md. Delete this file when
// the SDK marshals variants as structs;
// TestWireKeepsCoreBytes pins the bytes either way.

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// sessionNotification is session/update's params with the update as a
// value of our choosing (a variant struct, or the SDK's SessionUpdate).
type sessionNotification struct {
	SessionID acp.SessionId `json:"sessionId"`
	Update    any           `json:"update"`
}

// updatePayload is u as it should be marshalled: a tool call variant as
// its struct, with its discriminator set, anything else as the SDK
// marshals it.
func updatePayload(u acp.SessionUpdate) any {
	switch {
	case u.ToolCall != nil:
		v := *u.ToolCall
		v.SessionUpdate = "tool_call"
		return v
	case u.ToolCallUpdate != nil:
		v := *u.ToolCallUpdate
		v.SessionUpdate = "tool_call_update"
		return v
	}
	return u
}

// sendSessionUpdate sends session/update on conn's connection.
func sendSessionUpdate(ctx context.Context, conn *acp.AgentSideConnection, sessionID string, u acp.SessionUpdate) error {
	c, err := sdkConnection(conn)
	if err != nil {
		return err
	}
	return c.SendNotification(ctx, acp.ClientMethodSessionUpdate, sessionNotification{SessionID: acp.SessionId(sessionID), Update: updatePayload(u)})
}
