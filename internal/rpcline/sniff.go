package rpcline

import (
	"bytes"
	"encoding/json"
)

// Envelope is what Sniff could read of a JSON-RPC message it has only the
// ends of. Every field is a best effort from the kept bytes: the parts of
// the line that were discarded are never guessed at.
type Envelope struct {
	// ID is the message's id as it was written (a JSON number or string),
	// nil when it was not found in the kept bytes.
	ID json.RawMessage
	// Method is the method of a request, when "method" was found.
	Method string
	// Request: a "method" or "params" key was found at the top level.
	// Response: a "result" or "error" key was (and no "method").
	Request, Response bool
}

// Sniff reads the envelope keys of a line from its head and its tail (a
// *TooLong's Head and Tail). The head is read as JSON up to where it was
// cut: top-level keys before the large value are found exactly. The tail
// yields the id when the line ends with `"id":<number or string>}` after a
// comma or an opening brace: the closing brace of a valid JSON-RPC message
// closes the top-level object, so such an id is the message's own.
func Sniff(head, tail []byte) Envelope {
	var env Envelope
	sniffHead(head, &env)
	if env.ID == nil {
		env.ID = tailID(tail)
	}
	if env.Request {
		env.Response = false
	}
	return env
}

// tailID is the id of a tail that ends with `"id":<integer or string>}`
// (spaces allowed between the tokens) after a comma or an opening brace,
// read from the end; nil for any other ending.
func tailID(tail []byte) json.RawMessage {
	b := trimSpaceRight(tail)
	if !endsWith(b, '}') {
		return nil
	}
	b = trimSpaceRight(b[:len(b)-1])
	var start int
	switch {
	case endsWith(b, '"'):
		start = len(b) - 2
		for start >= 0 && (b[start] != '"' || escaped(b, start)) {
			start--
		}
		if start < 0 {
			return nil
		}
	default:
		start = len(b)
		for start > 0 && b[start-1] >= '0' && b[start-1] <= '9' {
			start--
		}
		if start == len(b) {
			return nil
		}
		if start > 0 && b[start-1] == '-' {
			start--
		}
	}
	id := b[start:]
	b = trimSpaceRight(b[:start])
	if !endsWith(b, ':') {
		return nil
	}
	b = trimSpaceRight(b[:len(b)-1])
	if !bytes.HasSuffix(b, []byte(`"id"`)) {
		return nil
	}
	b = trimSpaceRight(b[:len(b)-len(`"id"`)])
	if !endsWith(b, ',') && !endsWith(b, '{') {
		return nil
	}
	return clip(id)
}

func trimSpaceRight(b []byte) []byte { return bytes.TrimRight(b, " \t\r\n\f") }

func endsWith(b []byte, c byte) bool { return len(b) > 0 && b[len(b)-1] == c }

// escaped reports whether the quote at b[i] follows an odd number of
// backslashes (it is inside a string, not its end).
func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// sniffHead walks the top level of the object that head starts, until the
// head ends or stops being JSON.
func sniffHead(head []byte, env *Envelope) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		switch key {
		case "method":
			env.Request = true
		case "params":
			env.Request = true
		case "result", "error":
			env.Response = true
		}
		var v json.RawMessage
		if key == "id" || key == "method" {
			// Small values: read them whole.
			if err := dec.Decode(&v); err != nil {
				return
			}
			switch {
			case key == "method":
				_ = json.Unmarshal(v, &env.Method)
			case len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')):
				env.ID = v
			}
			continue
		}
		if !skipValue(dec) {
			return
		}
	}
}

// skipValue reads one value token by token (a large value is cut short by
// the end of the head, so it cannot be decoded whole).
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}
