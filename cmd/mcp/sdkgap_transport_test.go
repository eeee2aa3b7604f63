package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestParseID(t *testing.T) {
	cases := []struct {
		raw, key string
		bad      bool
	}{
		{``, "", false},
		{`7`, "n:7", false},
		{`-7`, "n:-7", false},
		{`0`, "n:0", false},
		{`9007199254740992`, "n:9007199254740992", false},
		{`9007199254740993`, "", true},
		{`"7"`, "s:7", false},
		{`""`, "s:", false},
		{`null`, "", true},
		{`1.5`, "", true},
		{`1e3`, "", true},
		{`07`, "", true},
		{`true`, "", true},
		{`{}`, "", true},
		{`[]`, "", true},
	}
	for _, tc := range cases {
		id, key, idErr := parseID(json.RawMessage(tc.raw))
		assert.Equal(t, tc.key, key, tc.raw)
		assert.Equal(t, tc.bad, idErr != "", "%s: %s", tc.raw, idErr)
		if key != "" {
			assert.Equal(t, key, idKey(id), "the SDK's id has the same key: %s", tc.raw)
		}
	}
}
