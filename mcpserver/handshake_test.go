package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInitializeThenDiscover: a client that sends initialize for
// 2025-11-25 and then server/discover (Claude Code's fallback, when the
// server is slow to start, can deliver them in this order) talks
// 2025-11-25 to the end: the discover is refused, and the form goes out
// as elicitation/create, never as a 2026-07-28 input request.
func TestInitializeThenDiscover(t *testing.T) {
	w := startWire(t)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.328"}}}}`)
	for range 2 {
		var m struct {
			ID     int                 `json:"id"`
			Error  *struct{ Code int } `json:"error"`
			Result json.RawMessage     `json:"result"`
		}
		require.NoError(t, json.Unmarshal(w.recv(), &m))
		switch m.ID {
		case 1:
			require.Nil(t, m.Error, "initialize refused")
			require.Contains(t, string(m.Result), `"protocolVersion":"2025-11-25"`)
		case 2:
			require.NotNil(t, m.Error, "server/discover after initialize was served: %s", m.Result)
			require.Equal(t, -32600, m.Error.Code)
		}
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}}}`)
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(w.recv(), &m))
	require.Equal(t, "elicitation/create", m.Method, "the form went out as %s", m.Result)
}

// TestDiscoverThenInitialize: the other order: go-sdk refuses the
// initialize, and the session stays on discover's 2026-07-28.
func TestDiscoverThenInitialize(t *testing.T) {
	w := startWire(t)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.328"}}}}`)
	require.Contains(t, string(w.recv()), `"supportedVersions"`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`)
	require.Contains(t, string(w.recv()), `"error"`, "initialize after server/discover was served")
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"Which?","options":[{"label":"A"},{"label":"B"}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.328"}}}}`)
	var m struct {
		ID     int `json:"id"`
		Result struct {
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(w.recv(), &m))
	require.Equal(t, 3, m.ID)
	require.Contains(t, m.Result.InputRequests, "ask_user_question")
}
