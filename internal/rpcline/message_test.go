package rpcline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckHostileLines holds every kind of line docs/HARDENING.md lists
// for the JSON-RPC front doors (rows 71, 73, 87-89, 91 and 97): each is
// either a message with a valid id, or the error the JSON-RPC 2.0
// specification gives, with the id when it is valid, else null.
func TestCheckHostileLines(t *testing.T) {
	cases := []struct {
		name, line string
		kind       Kind   // 0: refused
		key        string // the id key of an accepted message
		code       int64
		id         string // the reply's id ("null")
		contains   string
		notify     bool // a refused notification: not answered
	}{
		{name: "not JSON", line: `not json`, code: CodeParseError, id: "null", contains: "Parse error"},
		{name: "NUL bytes", line: "\x00\x00", code: CodeParseError, id: "null", contains: "Parse error"},
		{name: "FF bytes", line: "\xff\xfe", code: CodeParseError, id: "null", contains: "Parse error"},
		{name: "cut JSON", line: `{"jsonrpc":"2.0","id":3,"method":"pi`, code: CodeParseError, id: "null", contains: "Parse error"},
		{name: "a request cut short", line: `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"a":`, code: CodeParseError, id: "null"},
		{name: "trailing data", line: `{"jsonrpc":"2.0","id":3,"method":"ping"} x`, code: CodeParseError, id: "null"},
		{name: "two objects", line: `{"jsonrpc":"2.0","id":3,"method":"ping"}{"jsonrpc":"2.0","id":4,"method":"ping"}`, code: CodeParseError, id: "null"},
		{name: "a bare number", line: `42`, code: CodeInvalidRequest, id: "null", contains: "got a number"},
		{name: "a bare string", line: `"hello"`, code: CodeInvalidRequest, id: "null", contains: "got a string"},
		{name: "null", line: `null`, code: CodeInvalidRequest, id: "null", contains: "got null"},
		{name: "true", line: `true`, code: CodeInvalidRequest, id: "null", contains: "got a boolean"},
		{name: "an empty object", line: `{}`, code: CodeInvalidRequest, id: "null", contains: "neither a method nor an id"},
		{name: "no method and no id", line: `{"jsonrpc":"2.0"}`, code: CodeInvalidRequest, id: "null", contains: "neither a method nor an id"},
		{name: "jsonrpc 1.0", line: `{"jsonrpc":"1.0","id":5,"method":"ping"}`, code: CodeInvalidRequest, id: "5", contains: `"jsonrpc" must be "2.0", got a string ("1.0")`},
		{name: "jsonrpc a number", line: `{"jsonrpc":2,"id":5,"method":"ping"}`, code: CodeInvalidRequest, id: "5", contains: `"jsonrpc" must be "2.0", got a number (2)`},
		{name: "no jsonrpc", line: `{"id":5,"method":"ping"}`, code: CodeInvalidRequest, id: "5", contains: `got missing`},
		{name: "an object id", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "got an object"},
		{name: "an array id", line: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "got an array"},
		{name: "a fractional id", line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "got a number"},
		{name: "an exponent id", line: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "got a number"},
		{name: "a null id", line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "not null"},
		{name: "an id past 2^53", line: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "out of range"},
		{name: "a method that is a number, with an id", line: `{"jsonrpc":"2.0","id":7,"method":7}`, code: CodeInvalidRequest, id: "7", contains: "the method must be a string, got a number"},
		{name: "a method that is a number, without an id", line: `{"jsonrpc":"2.0","method":5}`, code: CodeInvalidRequest, id: "null", contains: "the method must be a string"},
		{name: "params that are a number", line: `{"jsonrpc":"2.0","id":8,"method":"ping","params":5}`, code: CodeInvalidRequest, id: "8", contains: "params must be an object, got a number"},
		{name: "a notification with params that are a number", line: `{"jsonrpc":"2.0","method":"notifications/progress","params":5}`, code: CodeInvalidRequest, id: "null", notify: true},
		{name: "keys in another case", line: `{"JSONRPC":"2.0","ID":5,"METHOD":"ping"}`, code: CodeInvalidRequest, id: "null", contains: "neither a method nor an id"},
		{name: "a response without an id", line: `{"jsonrpc":"2.0","result":{}}`, code: CodeInvalidRequest, id: "null", contains: "neither a method nor an id"},
		{name: "a malformed response with a null id", line: `{"jsonrpc":"2.0","id":null,"error":{"code":"x"}}`, code: CodeInvalidRequest, id: "null", contains: "not null"},
		{name: "an empty batch line is not one message", line: `[]`, code: CodeInvalidRequest, id: "null", contains: "got an array"},
		{name: "a batch line is not one message", line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: CodeInvalidRequest, id: "null", contains: "got an array"},

		{name: "a request", line: ` {"jsonrpc":"2.0","id":1,"method":"ping"} `, kind: Request, key: "n:1"},
		{name: "a string id", line: `{"jsonrpc":"2.0","id":"7","method":"ping","params":{}}`, kind: Request, key: "s:7"},
		{name: "null params are no params", line: `{"jsonrpc":"2.0","id":2,"method":"ping","params":null}`, kind: Request, key: "n:2"},
		{name: "array params", line: `{"jsonrpc":"2.0","id":2,"method":"m","params":[1]}`, kind: Request, key: "n:2"},
		{name: "a notification", line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: Notification},
		{name: "a response to anything", line: `{"jsonrpc":"2.0","id":9999,"result":{}}`, kind: Response, key: "n:9999"},
		{name: "a response whose error code is a string", line: `{"jsonrpc":"2.0","id":4,"error":{"code":"x","message":7}}`, kind: Response, key: "n:4"},
		{name: "a response with jsonrpc 2 (the caller judges it)", line: `{"jsonrpc":2,"id":4,"result":{}}`, kind: Response, key: "n:4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := Check([]byte(tc.line))
			if tc.kind != 0 {
				require.Nil(t, err, "%v", err)
				assert.Equal(t, tc.kind, msg.Kind)
				assert.Equal(t, tc.key, msg.ID.Key)
				if string(msg.Params) == "null" {
					t.Error("null params are dropped")
				}
				return
			}
			require.NotNil(t, err, "accepted: %+v", msg)
			assert.Equal(t, tc.code, err.Code)
			assert.Equal(t, tc.notify, err.Notification)
			assert.Contains(t, err.Message, tc.contains)
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(err.Response(), &resp))
			assert.Equal(t, "2.0", resp.JSONRPC)
			assert.Equal(t, tc.id, string(resp.ID))
			assert.Equal(t, tc.code, resp.Error.Code)
			if tc.code == CodeParseError { // the specification's words, as both TypeScript SDKs write them
				assert.Equal(t, "Parse error", resp.Error.Message)
			} else {
				assert.True(t, strings.HasPrefix(resp.Error.Message, "Invalid request: "), resp.Error.Message)
			}
		})
	}
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
		{`-9007199254740992`, "n:-9007199254740992", false},
		{`9007199254740993`, "", true},
		{`"7"`, "s:7", false},
		{`""`, "s:", false},
		{`"\u0037"`, "s:7", false},
		{`null`, "", true},
		{`1.5`, "", true},
		{`1e3`, "", true},
		{`07`, "", true},
		{`-`, "", true},
		{`true`, "", true},
		{`{}`, "", true},
		{`[]`, "", true},
	}
	for _, tc := range cases {
		id, err := ParseID(json.RawMessage(tc.raw))
		assert.Equal(t, tc.key, id.Key, tc.raw)
		assert.Equal(t, tc.bad, err != nil, "%s: %v", tc.raw, err)
		if err != nil {
			assert.Nil(t, err.ID, "an invalid id is answered with null")
			assert.Nil(t, id.Raw)
		}
	}
	assert.Equal(t, int64(-7), KeyValue("n:-7"))
	assert.Equal(t, "7", KeyValue("s:7"))
}

// TestBatches: a batch's elements are checked one by one; its responses go
// out as one array once every request is answered, none for
// notifications.
func TestBatches(t *testing.T) {
	for _, tc := range []struct{ name, line, contains string }{
		{"an empty batch", `[]`, "an empty batch"},
		{"a cut batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Parse error"},
		{"junk after a batch", `[] x`, "Parse error"},
	} {
		_, err := Split([]byte(tc.line))
		require.NotNil(t, err, tc.name)
		assert.Contains(t, err.Message, tc.contains, tc.name)
		assert.Nil(t, err.ID)
	}

	line := `[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{}},{"jsonrpc":"2.0","id":{},"method":"ping"},[1],42]`
	require.True(t, IsBatch([]byte(" "+line)))
	elems, err := Split([]byte(line))
	require.Nil(t, err)
	var b Batch
	var kinds []string
	for _, e := range elems {
		msg, err := CheckElement(e)
		switch {
		case err != nil:
			kinds = append(kinds, err.Message)
			assert.Nil(t, b.Add(err.Response()), "not complete before the request is answered")
		case msg.Kind == Request:
			kinds = append(kinds, "request "+msg.ID.Key)
			b.Expect()
		default:
			kinds = append(kinds, "notification")
		}
	}
	assert.Equal(t, []string{"request n:20", "notification", "Invalid request: the id must be a string or an integer, got an object",
		"Invalid request: a batch inside a batch", "Invalid request: a JSON-RPC message is an object, got a number"}, kinds)
	assert.Nil(t, b.Seal(), "the ping is not answered yet")
	out := b.Reply([]byte(`{"jsonrpc":"2.0","id":20,"result":{}}`))
	require.NotNil(t, out)
	var replies []map[string]any
	require.NoError(t, json.Unmarshal(out, &replies), "%s", out)
	assert.Len(t, replies, 4)

	var notes Batch
	assert.Nil(t, notes.Seal(), "a batch of notifications is not answered")
}

func TestErrorResponse(t *testing.T) {
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"<&>"}}`,
		string(ErrorResponse(nil, CodeParseError, "<&>", nil)), "no HTML escaping")
	assert.Equal(t, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"m","data":{"bytes":3}}}`,
		string(ErrorResponse(json.RawMessage(`"a"`), CodeInvalidRequest, "m", map[string]int{"bytes": 3})))
	assert.Equal(t, `{"error":{"code":-32600,"message":"m"},"id":null,"jsonrpc":"2.0"}`,
		string(ErrorResponse(json.RawMessage(`{`), CodeInvalidRequest, "m", nil)), "an id that is not JSON is null")
}

func TestCut(t *testing.T) {
	assert.Equal(t, "abc", Cut("abc", 3))
	assert.Equal(t, "ab…", Cut("abc", 2))
	assert.Equal(t, "…", Cut("é", 1), "never inside a rune")
	assert.True(t, strings.HasSuffix(Cut(strings.Repeat("é", 100), 51), "é…"))
}
