package rpcline

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Kind is what a valid message is.
type Kind uint8

const (
	Request      Kind = iota + 1 // a method and an id
	Notification                 // a method, no id
	Response                     // an id, no method
)

// ID is a valid request or response id: a string, or an integer within
// ±2^53 (the range both SDKs hold exactly: they decode ids as float64).
type ID struct {
	// Raw is the id as it was written; nil for no id.
	Raw json.RawMessage
	// Key identifies the id in maps: "n:<integer>" or "s:<string>", so
	// that 7 and "7" differ and 7 written two ways does not.
	Key string
}

// ParseID reads an id. Absent (nil raw) is the zero ID and no error; an
// id that is neither a string nor an integer within ±2^53 is an *Error
// (-32600, null id) saying why.
func ParseID(raw json.RawMessage) (ID, *Error) {
	switch {
	case len(raw) == 0:
		return ID{}, nil
	case string(raw) == "null":
		return ID{}, invalid(nil, "the id must be a string or an integer, not null")
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ID{}, invalid(nil, "the id is not a valid string")
		}
		return ID{Raw: raw, Key: "s:" + s}, nil
	case isInteger(raw):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return ID{}, invalid(nil, "the id "+Cut(string(raw), 40)+" is out of range (at most 2^53 in magnitude)")
		}
		return ID{Raw: raw, Key: "n:" + strconv.FormatInt(n, 10)}, nil
	}
	return ID{}, invalid(nil, "the id must be a string or an integer, got "+KindOf(raw))
}

// KeyValue is the JSON value of an id key (an int64 or a string), for a
// message that names an id, such as a cancellation's requestId.
func KeyValue(key string) any {
	if s, ok := cutPrefix(key, "n:"); ok {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	s, _ := cutPrefix(key, "s:")
	return s
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

// isInteger: an optional minus and digits without a leading zero.
func isInteger(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 || (raw[0] == '0' && len(raw) > 1) {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Message is a message that passed Check: its top-level members as they
// came (nil when absent), read by their exact names as the SDKs read
// them ("ID" is not "id").
type Message struct {
	Kind   Kind
	ID     ID
	Method string
	// JSONRPC is checked for requests and notifications only: what to do
	// with a response that is not "2.0" is the caller's (it answers one of
	// the caller's own requests).
	JSONRPC, Params, Result, Error json.RawMessage
}

// Error is the guard's verdict on a message: the JSON-RPC error to answer
// it with.
type Error struct {
	Code    int64
	Message string
	// ID is the id to answer with; nil writes null (no valid id could be
	// read).
	ID json.RawMessage
	// Notification: the message was a notification, which is never
	// answered (log it and drop it).
	Notification bool
}

func (e *Error) Error() string { return e.Message }

// Response is the error response line for e (without a newline).
func (e *Error) Response() []byte { return ErrorResponse(e.ID, e.Code, e.Message, nil) }

func invalid(id json.RawMessage, why string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "Invalid request: " + why, ID: id}
}

// Check validates one message: a line, or an element of a batch (see
// Split). It returns the message, or the error to answer it with:
//
//   - not JSON: -32700, null id;
//   - not an object: -32600, null id;
//   - no method: a response, whose id must be valid (else -32600, null);
//   - a method that is not a string, "jsonrpc" other than "2.0": -32600
//     with the id when it is valid;
//   - an invalid id: -32600, null id;
//   - params neither an object nor an array: -32600 with the id, or, for
//     a notification, an Error marked Notification.
//
// Params that are null are dropped (nil), as absent params.
func Check(raw []byte) (Message, *Error) {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return Message{}, &Error{Code: CodeParseError, Message: "Parse error"}
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return Message{}, invalid(nil, "a JSON-RPC message is an object, got "+KindOf(raw))
	}
	msg := Message{JSONRPC: m["jsonrpc"], Params: m["params"], Result: m["result"], Error: m["error"]}
	rawID, method := m["id"], m["method"]
	id, idErr := ParseID(rawID)
	if len(method) == 0 {
		if id.Key == "" {
			if idErr != nil {
				return Message{}, idErr
			}
			return Message{}, invalid(nil, "it has neither a method nor an id")
		}
		msg.Kind, msg.ID = Response, id
		return msg, nil
	}
	answerID := id.Raw // nil when invalid or absent
	if method[0] != '"' || json.Unmarshal(method, &msg.Method) != nil {
		return Message{}, invalid(answerID, "the method must be a string, got "+KindOf(method))
	}
	if string(msg.JSONRPC) != `"2.0"` {
		return Message{}, invalid(answerID, `"jsonrpc" must be "2.0", got `+Describe(msg.JSONRPC))
	}
	if idErr != nil {
		return Message{}, idErr
	}
	msg.ID, msg.Kind = id, Request
	if id.Key == "" {
		msg.Kind = Notification
	}
	if p := msg.Params; len(p) > 0 && p[0] != '{' && p[0] != '[' {
		if string(p) == "null" {
			msg.Params = nil
		} else {
			e := invalid(id.Raw, "params must be an object, got "+KindOf(p))
			e.Notification = msg.Kind == Notification
			return Message{}, e
		}
	}
	return msg, nil
}

// ErrorResponse is a JSON-RPC error response (without a newline); a nil
// id is written null, a nil data is left out. Text is written as is
// (no HTML escaping).
func ErrorResponse(id json.RawMessage, code int64, message string, data any) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type errorObject struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, err := Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errorObject     `json:"error"`
	}{"2.0", id, errorObject{code, message, data}})
	if err != nil { // an id that is not JSON (never one ParseID gave)
		b, _ = Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": errorObject{code, message, nil}})
	}
	return b
}

// Marshal is json.Marshal without HTML escaping: text goes on the wire as
// it is.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// KindOf names the kind of a JSON value with its article ("a number").
func KindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Describe is a short value as it came ("a string (\"x\")", "a number
// (1.5)"), or only its kind when it is long or a container; "missing" for
// an absent one.
func Describe(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "missing"
	}
	k := KindOf(raw)
	if k == "null" || len(raw) > 40 || k == "an object" || k == "an array" {
		return k
	}
	return k + " (" + string(raw) + ")"
}

// Cut bounds s to n bytes, on a rune boundary, marking the cut with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
