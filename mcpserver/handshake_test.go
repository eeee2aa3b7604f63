package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDiscoverThenInitialize: a client that sends server/discover and,
// while waiting, falls back to initialize for 2025-11-25 (Claude Code
// does when the server is slow to start) talks 2025-11-25: the form goes
// out as elicitation/create, never as a 2026-07-28 input request.
func TestDiscoverThenInitialize(t *testing.T) {
	w := startWire(t)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.328"}}}}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`)
	for range 2 {
		var m struct {
			ID     int             `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal(w.recv(), &m))
		if m.ID == 2 {
			require.Nil(t, m.Error, "initialize refused")
			require.Contains(t, string(m.Result), `"protocolVersion":"2025-11-25"`)
		}
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}}}`)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(w.recv(), &m))
	require.Equal(t, "elicitation/create", m.Method, "the form went out as %s", m.Result)
}
