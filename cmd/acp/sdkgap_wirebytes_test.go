package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHTMLUnescaped(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"R\u0026D \u003cb\u003e"}`: `{"a":"R&D <b>"}`,
		`{"a":"\\u0026"}`:                `{"a":"\\u0026"}`, // an escaped backslash, then text
		`{"a":"\\\u0026"}`:               `{"a":"\\&"}`,
		`{"a":"\u00e9\u0027\"\u003C"}`:   `{"a":"\u00e9\u0027\"\u003C"}`, // other escapes stay
		`{"a":"x"}`:                      `{"a":"x"}`,
		`"\u00`:                          `"\u00`,
		`\`:                              `\`,
	} {
		got := htmlUnescaped([]byte(in))
		assert.Equal(t, want, string(got), in)
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil {
			require.NoError(t, json.Unmarshal(got, &b), in)
			assert.Equal(t, a, b, "the same JSON value: %s", in)
		}
	}
}

// TestWireKeepsCoreBytes: a tool_call_update goes out with rawOutput as the
// core wrote it: key order and <, >, & untouched.
func TestWireKeepsCoreBytes(t *testing.T) {
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	conn := acp.NewAgentSideConnection(nopAgent{}, unescapeHTML{fromAgentW}, toAgentR)
	defer func() {
		toAgentW.Close()
		<-conn.Done()
		fromAgentW.Close()
	}()
	coreBytes := `{"name":"UserInteractionError","code":"ASK_DECLINED","message":"a <b> & \"c\" \u2028"}`
	input := `{"z":1,"a":"<&>"}`
	sent := make(chan error, 2)
	go func() {
		sent <- sendSessionUpdate(context.Background(), conn, "sess-1", acp.StartToolCall("call_1", "Question for you",
			acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartRawInput(json.RawMessage(input))))
		sent <- sendSessionUpdate(context.Background(), conn, "sess-1", acp.UpdateToolCall("call_1",
			acp.WithUpdateStatus(acp.ToolCallStatusFailed), acp.WithUpdateRawOutput(json.RawMessage(coreBytes))))
	}()
	r := bufio.NewReader(fromAgentR)
	start, err := r.ReadString('\n')
	require.NoError(t, err)
	end, err := r.ReadString('\n')
	require.NoError(t, err)
	require.NoError(t, <-sent)
	require.NoError(t, <-sent)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"rawInput":`+input+
		`,"sessionUpdate":"tool_call","status":"in_progress","title":"Question for you","toolCallId":"call_1"}}}`+"\n", start)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"rawOutput":`+coreBytes+
		`,"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"call_1"}}}`+"\n", end)

	// The SDK's client side reads both as tool call updates.
	for _, line := range []string{start, end} {
		var msg struct {
			Params acp.SessionNotification `json:"params"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg))
		assert.True(t, msg.Params.Update.ToolCall != nil || msg.Params.Update.ToolCallUpdate != nil, line)
	}
}
