package main

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, which re-encodes the
// JSON it carries. The core's bytes (an answer, an error object, a form)
// must reach the client as the core wrote them; two things in the SDK
// change them:
//
//   - SessionUpdate.MarshalJSON round-trips every variant through
//     map[string]any, so the keys of rawInput and rawOutput come out
//     sorted ({"code","message","name"} instead of the core's
//     {"name","code","message"}; a batch answer's "question" no longer
//     first). toolCallNotification sends tool_call and tool_call_update
//     with the SDK's own variant structs, marshalled as structs: a
//     json.RawMessage inside keeps its bytes.
//   - encoding/json escapes <, > and & in every string, raw messages
//     included ("R&D" becomes "R\u0026D": the same JSON value, other
//     bytes). unescapeHTML, on the agent's output, writes those three
//     characters back as themselves. The SDK writes one whole message per
//     Write call (connection.go sendMessage), so an escape is never split.
//
// Delete this file when the SDK marshals variants as structs and writes
// without HTML escaping; TestWireKeepsCoreBytes pins the bytes either way.

import (
	"bytes"
	"context"
	"io"

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

// unescapeHTML writes to w what it is given with the JSON escapes \u003c,
// \u003e and \u0026 written back as <, > and &.
type unescapeHTML struct{ w io.Writer }

func (u unescapeHTML) Write(p []byte) (int, error) {
	if _, err := u.w.Write(htmlUnescaped(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// htmlUnescaped is JSON text b with \u003c, \u003e and \u0026 replaced by
// the characters they stand for. A backslash starts an escape only inside
// a string, and every escape is consumed whole, so "\\u0026" (an escaped
// backslash, then text) is left alone.
func htmlUnescaped(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			if c, ok := htmlEscapes[string(b[i+2:i+6])]; ok {
				out = append(out, c)
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

var htmlEscapes = map[string]byte{"003c": '<', "003e": '>', "0026": '&'}
