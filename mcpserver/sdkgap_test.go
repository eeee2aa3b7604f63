package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/rpcline"
)

// repairResponse gives go-sdk's code-0 errors a code, keeps the codes it
// wraps, bounds messages, and drops the "content": null of an
// input-required result only.
func TestRepairResponse(t *testing.T) {
	id, err := jsonrpc.MakeID(float64(4))
	require.NoError(t, err)
	wire := func(m *jsonrpc.Response) string {
		b, err := jsonrpc.EncodeMessage(m)
		require.NoError(t, err)
		return string(b)
	}
	plain := errors.New(`method "tools/call" is invalid during session initialization`)
	cases := []struct {
		name        string
		in          *jsonrpc.Response
		method      string
		initialized bool
		want        string
	}{
		{"code 0 before initialize", &jsonrpc.Response{ID: id, Error: plain}, "tools/call", false,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"method \"tools/call\" is invalid during session initialization"}}`},
		{"code 0 after initialize", &jsonrpc.Response{ID: id, Error: errors.New("boom")}, "tools/call", true,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"boom"}}`},
		{"code 0 from initialize itself", &jsonrpc.Response{ID: id, Error: errors.New("boom")}, "initialize", false,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"boom"}}`},
		{"a wrapped code is kept, with the outer message", &jsonrpc.Response{ID: id, Error: fmt.Errorf("handling: %w", &jsonrpc.Error{Code: -32602, Message: "invalid params"})}, "tools/call", true,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"handling: invalid params"}}`},
		{"data is kept", &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32042, Message: "m", Data: json.RawMessage(`{"a":1}`)}}, "tools/call", true,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32042,"message":"m","data":{"a":1}}}`},
		{"input required: no content", &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":null,"inputRequests":{"k":{}},"resultType":"input_required"}`)}, "tools/call", true,
			`{"jsonrpc":"2.0","id":4,"result":{"inputRequests":{"k":{}},"resultType":"input_required"}}`},
		{"a complete result keeps its content", &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":null,"resultType":"complete"}`)}, "tools/call", true,
			`{"jsonrpc":"2.0","id":4,"result":{"content":null,"resultType":"complete"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, wire(repairResponse(tc.in, tc.method, tc.initialized)))
		})
	}
	long := repairResponse(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32602, Message: strings.Repeat("é", 5000)}}, "initialize", true)
	var we *jsonrpc.Error
	require.ErrorAs(t, long.Error, &we)
	assert.LessOrEqual(t, len(we.Message), maxErrorMessage+len("…"))
	assert.True(t, strings.HasSuffix(we.Message, "é…"), "cut on a rune boundary")
}

// go-sdk's id for a valid id has the id's key: the maps of the reader
// and of the writer agree.
func TestSDKIDKeepsTheKey(t *testing.T) {
	for _, raw := range []string{`7`, `-7`, `0`, `9007199254740992`, `"7"`, `""`, `"\u00e9"`} {
		id, bad := rpcline.ParseID(json.RawMessage(raw))
		require.Nil(t, bad, raw)
		assert.Equal(t, id.Key, idKey(sdkID(id)), raw)
	}
}

// checkParams refuses the params go-sdk would not decode with a -32602
// naming the field, from the decoder's structured error, never quoting
// the params.
func TestCheckParams(t *testing.T) {
	cases := []struct{ method, params, want string }{
		{"tools/call", `{"name":5,"arguments":{"question":"MARKER"}}`, "invalid params for tools/call: name is a number, not a string"},
		{"tools/call", `{"name":"ask_user_question","arguments":{"question":"MARKER"},"inputResponses":{"ask_user_question":{"action":7}}}`,
			`invalid params for tools/call: inputResponses["ask_user_question"]: action is a number, not a string`},
		{"tools/call", `{"name":["MARKER"]}`, "invalid params for tools/call: name is an array, not a string"},
		{"tools/call", `{"name":"MARKER","_meta":"x"}`, "invalid params for tools/call: _meta is a string, not an object"},
		{"tools/list", `{"cursor":{"MARKER":1}}`, "invalid params for tools/list: cursor is an object, not a string"},
		{"tools/call", `{"name":"ask_user_question","arguments":{}}`, ""},
		{"tools/call", `{"Name":5}`, ""}, // go-sdk matches names exactly: ignored
		{"no/such/method", `{"name":5}`, ""},
	}
	for _, tc := range cases {
		msg, bad := rpcline.Check([]byte(`{"jsonrpc":"2.0","id":3,"method":"` + tc.method + `","params":` + tc.params + `}`))
		require.Nil(t, bad)
		rep := checkParams(msg)
		if tc.want == "" {
			assert.Nil(t, rep, "%s %s: %s", tc.method, tc.params, rep)
			continue
		}
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error jsonrpc.Error   `json:"error"`
		}
		require.NoError(t, json.Unmarshal(rep, &r), "%s", rep)
		assert.Equal(t, "3", string(r.ID))
		assert.Equal(t, int64(-32602), r.Error.Code)
		assert.Equal(t, tc.want, r.Error.Message)
		assert.NotContains(t, r.Error.Message, "MARKER")
	}
}

// The line limit is the core's input limit: no longer message could be
// answered.
func TestLineLimitIsTheCoresInputLimit(t *testing.T) {
	assert.Equal(t, core.MaxInputBytes, maxLineBytes)
}
