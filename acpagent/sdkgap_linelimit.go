package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, whose line reader
// (Connection.receive) is a bufio.Scanner with a 10 MiB buffer and no
// option to change it: a longer line ends the connection ("bufio.Scanner:
// token too long"), every pending request fails, and the agent exits 0
// with nothing on stderr at the default log level. Upstream: none filed;
// the issue text is docs/upstream/acp-go-sdk-line-reader.md.
//
// The guard (lines.go) discards a line longer than maxLineBytes as it
// streams by, never holding more of it than the limit (only its top-level
// "id" and the names of its top-level keys are kept, by envelopeScan),
// logs it naming the limit, and answers it: a request with a readable id
// gets -32600 for that id; a response to one of the agent's requests (an
// elicitation answer) becomes an error response for its id, fed to the
// SDK, so the question fails with ASK_FAILED instead of waiting; anything
// else is dropped with the log line. Delete this file when the SDK skips
// oversized lines; TestBinaryHostileLinesWithAQuestionPending and
// TestBinaryOversizedAnswerFailsTheQuestion pin the behaviour either way.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/askcore/askcore/internal/rpcline"
)

// maxLineBytes is the longest line askcore-acp reads, its newline
// included: 10 MiB, what acp-go-sdk v0.13.0's scanner holds. A longer
// line is discarded as it streams in, never held whole.
const maxLineBytes = 10 << 20

const (
	// guardReadBytes is the guard's read buffer.
	guardReadBytes = 64 << 10
	// keepLineBytes is the line buffer kept from line to line; a longer
	// line goes on in blocks of that size, released once it is read.
	keepLineBytes = 1 << 20
	// maxQueuedReplies bounds the guard's answers waiting for a client
	// that does not read; more are dropped with a log line.
	maxQueuedReplies = 256
	// logExcerptBytes is how much of a refused line a log record quotes.
	logExcerptBytes = 80
)

// discard skips the rest of a line longer than maxLineBytes (line holds
// its first bytes, chunk the next ones) without keeping it, then answers
// it from what envelopeScan read on the way.
func (g *lineGuard) discard(chunk []byte, err error) {
	var scan envelopeScan
	scan.feed(g.line)
	for _, m := range g.more {
		scan.feed(m)
	}
	n := g.size
	g.more = nil // let the head go now
	for {
		scan.feed(chunk)
		n += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = g.src.ReadSlice('\n')
	}
	if err != nil {
		g.err = err
	}
	if n > 0 && err == nil {
		n-- // the newline
	}
	// The head's blocks (up to maxLineBytes) are garbage now: give the
	// memory back at once rather than minutes later, so that one
	// oversized line does not leave the process that much bigger.
	debug.FreeOSMemory()
	id := scan.usableID()
	attrs := []any{"bytes", n, "limit", maxLineBytes}
	if id != nil {
		attrs = append(attrs, "id", string(id))
	}
	switch {
	case id != nil && scan.method:
		g.log.Warn("discarded a request longer than the line limit; answered -32600", attrs...)
		g.reply(errorResponse(id, rpcline.CodeInvalidRequest,
			fmt.Sprintf("Invalid request: the line is %d bytes; askcore-acp reads lines of at most %d bytes, newline included", n, maxLineBytes),
			map[string]any{"bytes": n, "maxLineBytes": maxLineBytes}))
	case id != nil && (scan.result || scan.error):
		g.log.Warn("discarded a response longer than the line limit; the request it answers fails", attrs...)
		g.pending = errorResponse(id, rpcline.CodeInternalError,
			fmt.Sprintf("the client's response is %d bytes, over the %d-byte line limit of askcore-acp", n, maxLineBytes), nil)
	default:
		g.log.Warn("discarded a line longer than the line limit (no id to answer)", attrs...)
	}
}

// envelopeScan reads the top level of a JSON object as its bytes go by,
// in pieces, keeping only the value of "id" (when short) and which of
// "method", "result" and "error" it has. It does not validate: it is for
// lines too long to parse or not valid JSON at all.
type envelopeScan struct {
	state    scanState
	depth    int // nesting inside the current value
	inString bool
	escaped  bool
	key      []byte // the current top-level key (its first bytes)
	keyLong  bool
	capture  bool // reading the value of "id"
	id       []byte
	idLong   bool
	keys     int // top-level keys seen

	method, result, error, hasID bool
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

const maxIDBytes = 128

func (s *envelopeScan) feed(p []byte) {
	for _, c := range p {
		if s.state == scanDone {
			return
		}
		s.step(c)
	}
}

func (s *envelopeScan) step(c byte) {
	space := c == ' ' || c == '\t' || c == '\r' || c == '\n'
	switch s.state {
	case scanStart:
		switch {
		case space:
		case c == '{':
			s.state = scanKey
		default:
			s.state = scanDone
		}
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
			s.keys++
			k := string(s.key)
			if s.keyLong {
				k = ""
			}
			switch k {
			case "id":
				s.hasID, s.capture, s.id, s.idLong = true, true, s.id[:0], false
			case "method":
				s.method = true
			case "result":
				s.result = true
			case "error":
				s.error = true
			}
			return
		}
		if len(s.key) < 8 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case scanColon:
		switch {
		case space:
		case c == ':':
			s.state = scanValue
		default:
			s.state = scanDone
		}
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

// value reads one byte of a top-level member's value.
func (s *envelopeScan) value(c byte) {
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
			s.capture = false
			s.state = scanDone
			return
		}
		s.depth--
	case ',':
		if s.depth == 0 {
			s.capture = false
			s.state = scanKey
			return
		}
	}
	s.keep(c)
}

func (s *envelopeScan) keep(c byte) {
	if !s.capture {
		return
	}
	if len(s.id) >= maxIDBytes {
		s.idLong = true
		return
	}
	s.id = append(s.id, c)
}

// usableID is the top-level id when it was read whole and is valid
// (rpcline.ParseID: a string or an integer within ±2^53), else nil.
func (s *envelopeScan) usableID() json.RawMessage {
	if !s.hasID || s.idLong || s.capture { // capture: the line ended inside the id
		return nil
	}
	id, err := rpcline.ParseID(bytes.TrimSpace(s.id))
	if err != nil || id.Key == "" {
		return nil
	}
	return append(json.RawMessage(nil), id.Raw...)
}
