package acpagent

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

func TestWireKeepsCoreBytes(t *testing.T) {
	conn, _, fromAgentR := pipedConn(t)
	coreBytes := string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationClientError, Detail: `a <b> & "c" ` + "\u2028"}).JSON())
	require.Contains(t, coreBytes, `a \u003cb\u003e \u0026 \"c\"`, "the core escapes <, > and &")
	require.True(t, strings.HasPrefix(coreBytes, `{"name":"UserInteractionError","code":"ASK_FAILED","message":`), coreBytes)
	input := `{"z":1,"a":"<&>"}`
	// The model's arguments are not the core's bytes: the SDK escapes them
	// as encoding/json does, and keeps their key order.
	inputOnWire := `{"z":1,"a":"\u003c\u0026\u003e"}`
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
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"rawInput":`+inputOnWire+
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
