// Package acpwire reads the JSON-RPC lines an ACP agent wrote, for the
// tests that check what went on the wire, byte for byte.
package acpwire

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// ToolCallUpdate reads line as a session/update notification of a
// tool_call_update: its session, its tool call and its rawOutput as the
// agent wrote it. ok is false for any other line.
func ToolCallUpdate(line []byte) (sessionID, toolCallID string, rawOutput json.RawMessage, ok bool) {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string          `json:"sessionUpdate"`
				ToolCallID    string          `json:"toolCallId"`
				RawOutput     json.RawMessage `json:"rawOutput"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != acp.ClientMethodSessionUpdate || msg.Params.Update.SessionUpdate != "tool_call_update" {
		return "", "", nil, false
	}
	return msg.Params.SessionID, msg.Params.Update.ToolCallID, msg.Params.Update.RawOutput, true
}
