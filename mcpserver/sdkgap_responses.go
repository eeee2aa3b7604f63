package mcpserver

// Waits for the upstream issue in docs/upstream/go-sdk-error-responses.md:
// go-sdk answers a request before initialize with a plain Go error, which
// goes on the wire with code 0; it quotes the whole params (%q) in the
// -32602 of params that do not decode, so a malformed request is echoed
// back; and it writes an input-required result (2026-07-28) with
// "content": null. Here params are decoded as go-sdk decodes them before
// it sees them, and refused with a -32602 that names the field
// (checkParams); every error response gets a code and a bounded message,
// and the null content is dropped (repairResponse). Delete this file when
// go-sdk's error responses carry codes and no params.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/askcore/askcore/internal/rpcline"
)

// maxErrorMessage bounds the message of an error response go-sdk writes
// (some quote what they refuse).
const maxErrorMessage = 1024

// paramsOf are the params go-sdk's server decodes, by method (initialize
// is decoded into a type of go-sdk's own, and bounded by repairResponse).
var paramsOf = map[string]func() any{
	"completion/complete":      func() any { return new(*mcp.CompleteParams) },
	"server/discover":          func() any { return new(*mcp.DiscoverParams) },
	"ping":                     func() any { return new(*mcp.PingParams) },
	"prompts/list":             func() any { return new(*mcp.ListPromptsParams) },
	"prompts/get":              func() any { return new(*mcp.GetPromptParams) },
	"tools/list":               func() any { return new(*mcp.ListToolsParams) },
	"tools/call":               func() any { return new(*mcp.CallToolParamsRaw) },
	"resources/list":           func() any { return new(*mcp.ListResourcesParams) },
	"resources/templates/list": func() any { return new(*mcp.ListResourceTemplatesParams) },
	"resources/read":           func() any { return new(*mcp.ReadResourceParams) },
	"resources/subscribe":      func() any { return new(*mcp.SubscribeParams) },
	"resources/unsubscribe":    func() any { return new(*mcp.UnsubscribeParams) },
	"subscriptions/listen":     func() any { return new(*mcp.SubscriptionsListenParams) },
	"logging/setLevel":         func() any { return new(*mcp.SetLoggingLevelParams) },
}

// checkParams is the -32602 for the params of a request that go-sdk would
// not decode, naming what is wrong without quoting them; nil when they
// decode.
func checkParams(msg rpcline.Message) []byte {
	newParams, ok := paramsOf[msg.Method]
	if !ok || len(msg.Params) == 0 {
		return nil
	}
	why := ""
	if msg.Method == "tools/call" {
		why = inputResponsesProblem(msg.Params)
	}
	if why == "" {
		// As go-sdk decodes them (internal/json: segmentio's decoder,
		// case-sensitive names).
		dec := segjson.NewDecoder(bytes.NewReader(msg.Params))
		dec.DontMatchCaseInsensitiveStructFields()
		if err := dec.Decode(newParams()); err != nil {
			why = decodeProblem(err)
		}
	}
	if why == "" {
		return nil
	}
	return rpcline.ErrorResponse(msg.ID.Raw, rpcline.CodeInvalidParams,
		"invalid params for "+rpcline.Cut(msg.Method, 100)+": "+rpcline.Cut(why, 300), nil)
}

// inputResponsesProblem is why an entry of the inputResponses of
// tools/call params does not decode as go-sdk decodes it ("" if each
// does), naming the entry.
func inputResponsesProblem(params json.RawMessage) string {
	var top struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &top) != nil {
		return "" // not a map: the decoding of the whole params says so
	}
	for key, raw := range top.InputResponses {
		entry, err := json.Marshal(map[string]json.RawMessage{key: raw})
		if err != nil {
			continue
		}
		var m mcp.InputResponseMap
		if err := json.Unmarshal(entry, &m); err != nil {
			return fmt.Sprintf("inputResponses[%q]: %s", key, decodeProblem(err))
		}
	}
	return ""
}

// decodeProblem words a decoding error from its structure, never quoting
// the value: "name is a number, not a string".
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		field := te.Field
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		if field == "" {
			field = "a value"
		}
		return field + " is " + valueNoun(te.Value) + ", not " + goNoun(te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d", se.Offset)
	}
	return "the params do not have the fields and types of the method"
}

// valueNoun names the kind of an UnmarshalTypeError's Value: a JSON kind
// ("number": encoding/json) or the rest of the input from the value,
// quoted ("\"5,...\"": segmentio's decoder, go-sdk's).
func valueNoun(v string) string {
	var rest string
	if len(v) < 2 || v[0] != '"' || json.Unmarshal([]byte(v), &rest) != nil {
		return jsonNoun(v)
	}
	return rpcline.KindOf(json.RawMessage(rest))
}

// jsonNoun is encoding/json's name of a JSON value kind with an article.
func jsonNoun(v string) string {
	switch {
	case v == "array", v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "null":
		return v
	}
	return "a " + v
}

// goNoun is what a Go type expects, in JSON's words.
func goNoun(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map, reflect.Struct, reflect.Interface:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "a number"
}

// repairResponse gives an error code to an error go-sdk would send with
// code 0 (-32600 before initialize: go-sdk's initialization gate; -32603
// after) and bounds its message; and drops the "content": null of an
// input-required result.
func repairResponse(m *jsonrpc.Response, method string, initialized bool) *jsonrpc.Response {
	if m.Error != nil {
		var we *jsonrpc.Error
		code := int64(0)
		if errors.As(m.Error, &we) {
			code = we.Code
		}
		msg := m.Error.Error()
		var data json.RawMessage
		if we != nil && m.Error == error(we) {
			data = we.Data
		}
		if code == 0 {
			code = jsonrpc.CodeInternalError
			if !initialized && method != "initialize" {
				code = jsonrpc.CodeInvalidRequest
			}
		}
		return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: code, Message: rpcline.Cut(msg, maxErrorMessage), Data: data}}
	}
	if method == "tools/call" && bytes.Contains(m.Result, []byte(`"content":null`)) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(m.Result, &obj) == nil && string(obj["content"]) == "null" && string(obj["resultType"]) == `"input_required"` {
			delete(obj, "content")
			if b, err := rpcline.Marshal(obj); err == nil {
				return &jsonrpc.Response{ID: m.ID, Result: b}
			}
		}
	}
	return m
}
