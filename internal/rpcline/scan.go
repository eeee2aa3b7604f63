package rpcline

import (
	"bytes"
	"encoding/json"
)

// Envelope is what a Scanner read of a JSON-RPC message's top level. Every
// field is what the bytes said; nothing is guessed.
type Envelope struct {
	// ID is the message's id as it was written, when it is usable as one
	// (ParseID: a string, or an integer within ±2^53) and was read whole;
	// nil otherwise.
	ID json.RawMessage
	// Method is the method's name, when "method" is a short string.
	Method string
	// Request: the message has a top-level "method" key.
	Request bool
	// Response: it has a top-level "result" or "error" key, and no
	// "method".
	Response bool
}

// Scanner reads the top level of a JSON object as its bytes go by, in
// pieces of any size, keeping only the values of "id" and "method" (when
// short) and which of "method", "result" and "error" it has: memory does
// not grow with the message. It does not validate. It is for lines too
// long to hold (Reader feeds it the line it discards) and lines that are
// not valid JSON, whose id may still be readable.
type Scanner struct {
	state    scanState
	depth    int // nesting inside the current value
	inString bool
	escaped  bool
	key      []byte // the current top-level key (its first bytes)
	keyLong  bool
	capture  *capture // the value being kept ("id" or "method"), if any
	id       capture
	method   capture

	hasMethod, result, error bool
}

// capture is a top-level value kept as it is read, up to maxValueBytes.
type capture struct {
	seen, done, long bool
	b                []byte
}

type scanState uint8

const (
	scanStart   scanState = iota // before the object
	scanKey                      // before a key (or the end)
	scanInKey                    // inside a key
	scanColon                    // after a key
	scanValue                    // before a value
	scanInValue                  // inside a value
	scanDone                     // the object ended, or this is not one
)

// MaxScannedBytes is the longest id or method a Scanner keeps: a longer
// one is not read.
const MaxScannedBytes = 128

// Feed reads the next bytes of the message.
func (s *Scanner) Feed(p []byte) {
	for _, c := range p {
		if s.state == scanDone {
			return
		}
		s.step(c)
	}
}

func (s *Scanner) step(c byte) {
	space := c == ' ' || c == '\t' || c == '\r' || c == '\n'
	switch s.state {
	case scanStart:
		s.expect(c, space, '{', scanKey)
	case scanKey:
		switch {
		case space || c == ',':
		case c == '"':
			s.state, s.key, s.keyLong, s.escaped = scanInKey, s.key[:0], false, false
		default: // '}' or junk
			s.state = scanDone
		}
	case scanInKey:
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.state = scanColon
			s.startValue()
			return
		}
		if len(s.key) < 8 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case scanColon:
		s.expect(c, space, ':', scanValue)
	case scanValue:
		if space {
			return
		}
		s.state, s.depth, s.inString, s.escaped = scanInValue, 0, false, false
		s.value(c)
	case scanInValue:
		s.value(c)
	}
}

// expect goes on to next at want, waits over space, and ends the scan at
// anything else.
func (s *Scanner) expect(c byte, space bool, want byte, next scanState) {
	switch {
	case space:
	case c == want:
		s.state = next
	default:
		s.state = scanDone
	}
}

// startValue notes the key just read and what of its value to keep.
func (s *Scanner) startValue() {
	k := string(s.key)
	if s.keyLong {
		k = ""
	}
	switch k {
	case "id":
		s.id = capture{seen: true, b: s.id.b[:0]}
		s.capture = &s.id
	case "method":
		s.hasMethod = true
		s.method = capture{seen: true, b: s.method.b[:0]}
		s.capture = &s.method
	case "result":
		s.result = true
	case "error":
		s.error = true
	}
}

// value reads one byte of a top-level member's value.
func (s *Scanner) value(c byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
		}
		s.keep(c)
		return
	}
	switch c {
	case '"':
		s.inString = true
	case '{', '[':
		s.depth++
	case '}', ']':
		if s.depth == 0 { // the object's end
			s.endValue()
			s.state = scanDone
			return
		}
		s.depth--
	case ',':
		if s.depth == 0 {
			s.endValue()
			s.state = scanKey
			return
		}
	}
	s.keep(c)
}

func (s *Scanner) keep(c byte) {
	v := s.capture
	if v == nil {
		return
	}
	if len(v.b) >= MaxScannedBytes {
		v.long = true
		return
	}
	v.b = append(v.b, c)
}

func (s *Scanner) endValue() {
	if s.capture != nil {
		s.capture.done = true
		s.capture = nil
	}
}

// Settled reports that more bytes cannot change what Envelope says of
// the message's kind and of the id of a response: a "method" key was read
// (a request or notification), or the id and a "result" or "error" key, or
// the object ended. A reader of well-formed lines can stop feeding there.
func (s *Scanner) Settled() bool {
	return s.state == scanDone || s.hasMethod || s.id.done && (s.result || s.error)
}

// Envelope is what the bytes fed so far say. A value the message ended
// inside is not read.
func (s *Scanner) Envelope() Envelope {
	env := Envelope{Request: s.hasMethod, Response: !s.hasMethod && (s.result || s.error)}
	if v, ok := s.id.value(); ok {
		if id, err := ParseID(v); err == nil && id.Key != "" {
			env.ID = append(json.RawMessage(nil), id.Raw...)
		}
	}
	if v, ok := s.method.value(); ok {
		_ = json.Unmarshal(v, &env.Method)
	}
	return env
}

// value is the captured value when it was read whole.
func (c *capture) value() ([]byte, bool) {
	if !c.seen || !c.done || c.long {
		return nil, false
	}
	return bytes.TrimSpace(c.b), true
}
