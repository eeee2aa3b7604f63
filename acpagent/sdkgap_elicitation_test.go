package acpagent

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SDK layout the workaround relies on: AgentSideConnection.conn.
// If this fails after an acp-go-sdk upgrade, check whether the upgrade fixed
// the elicitation scope (then delete sdkgap_elicitation.go) or moved the
// field.
func TestSDKGapConnectionField(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	conn := acp.NewAgentSideConnection(nopAgent{}, io.Discard, r)
	c, err := sdkConnection(conn)
	require.NoError(t, err, "acp-go-sdk changed AgentSideConnection's layout")
	require.NotNil(t, c)
	w.Close()
	<-conn.Done()
}

// The exact bytes of elicitation/create on the wire (the request the
// TypeScript client accepts), and the client's result handed back raw.
func TestElicitationWireBytes(t *testing.T) {
	conn, toAgentW, fromAgentR := pipedConn(t)

	schema := `{"type":"object","title":"Which database?","properties":{"choice":{"type":"string","oneOf":[{"const":"postgres","title":"PostgreSQL"},{"const":"sqlite","title":"SQLite"}],"default":"sqlite"}},"required":["choice"]}`
	type reply struct {
		raw json.RawMessage
		err error
	}
	done := make(chan reply, 1)
	go func() {
		raw, err := createElicitation(context.Background(), conn, elicitationRequest{
			Mode: "form", SessionID: "sess-1", ToolCallID: "call_ask_1",
			Message: "Which database should I use?", RequestedSchema: json.RawMessage(schema),
		})
		done <- reply{raw, err}
	}()

	line, err := bufio.NewReader(fromAgentR).ReadString('\n')
	require.NoError(t, err)
	want := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","sessionId":"sess-1","toolCallId":"call_ask_1","message":"Which database should I use?","requestedSchema":` + schema + "}}\n"
	assert.Equal(t, want, line)

	// The client's result reaches the core unchanged, whatever its action.
	_, err = io.WriteString(toAgentW, `{"jsonrpc":"2.0","id":1,"result":{"action":"_custom","content":{"choice":"sqlite"}}}`+"\n")
	require.NoError(t, err)
	select {
	case r := <-done:
		require.NoError(t, r.err)
		assert.Equal(t, `{"action":"_custom","content":{"choice":"sqlite"}}`, string(r.raw))
	case <-time.After(patience):
		t.Fatal("no result")
	}
}

// Without a tool call id the field is left out (the schema makes it
// optional); the session scope is always there.
func TestElicitationWireWithoutToolCall(t *testing.T) {
	b, err := json.Marshal(elicitationRequest{Mode: "form", SessionID: "s", Message: "m", RequestedSchema: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"mode":"form","sessionId":"s","message":"m","requestedSchema":{}}`, string(b))
}

// The Go SDK's own client side still reads our request as a form.
func TestElicitationDecodesAsForm(t *testing.T) {
	var req acp.UnstableCreateElicitationRequest
	require.NoError(t, json.Unmarshal([]byte(`{"mode":"form","sessionId":"sess-1","toolCallId":"c","message":"m","requestedSchema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}}`), &req))
	require.NotNil(t, req.Form)
	assert.Equal(t, "m", req.Form.Message)
}

// pipedConn is nopAgent's side of a connection on pipes: the test writes
// the client's lines to toAgent and reads the agent's from fromAgent. The
// connection is closed when the test ends.
func pipedConn(t *testing.T) (conn *acp.AgentSideConnection, toAgent *io.PipeWriter, fromAgent *io.PipeReader) {
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	conn = acp.NewAgentSideConnection(nopAgent{}, fromAgentW, toAgentR)
	t.Cleanup(func() {
		toAgentW.Close()
		<-conn.Done()
		fromAgentW.Close()
	})
	return conn, toAgentW, fromAgentR
}

// nopAgent is an acp.Agent that does nothing.
type nopAgent struct{}

func (nopAgent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}
func (nopAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{}, nil
}
func (nopAgent) Cancel(context.Context, acp.CancelNotification) error { return nil }
func (nopAgent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}
func (nopAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}
func (nopAgent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{}, nil
}
func (nopAgent) Prompt(context.Context, acp.PromptRequest) (acp.PromptResponse, error) {
	return acp.PromptResponse{}, nil
}
func (nopAgent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, nil
}
func (nopAgent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}
func (nopAgent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}
