package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, whose line reader
// logs a line that is not a JSON object it can decode (not JSON, a bare
// value, a batch array, members of the wrong type) whole, at any length,
// and drops it: the client never learns, and a request in it waits for a
// response that never comes. Upstream: none filed; the issue text is
// docs/upstream/acp-go-sdk-line-reader.md.
//
// lineGuard sits between the client and the SDK and frames the lines
// itself: not JSON gets -32700, a bare value -32600, a batch array -32600
// ("JSON-RPC batches are not supported"), an object the SDK cannot decode
// -32600: with the line's id when one can be read, else a null id, as the
// JSON-RPC 2.0 specification says and as the official TypeScript SDK does;
// a malformed response to one of the agent's requests is replaced
// (sdkgap_responses.go), an oversized line discarded
// (sdkgap_linelimit.go), notifications admitted at the SDK's pace
// (sdkgap_flow.go); every other line reaches the SDK byte for byte. The
// guard answers the client through output (output.go), with the error
// responses, wording, id rules and envelope scanner of internal/rpcline,
// askcore-mcp's too, and reads them with its Reader, which frames them as
// acp-go-sdk's bufio.Scanner will (a CR counts toward the limit) and
// hands each over as it came, newline included. Delete the
// SDK-specific parts when the SDK answers unparseable lines; TestLineGuard
// and TestBinaryHostileLines pin the behaviour either way.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore/internal/rpcline"
)

// lineGuard is the io.Reader the SDK reads the client's lines from.
type lineGuard struct {
	lines *rpcline.Reader
	out   *output
	log   *slog.Logger

	flowMu   sync.Mutex
	flowCond *sync.Cond
	flowSent int    // notifications since the last barrier
	flowSeq  uint64 // the last barrier queued
	flowDone uint64 // the last barrier the SDK handled

	pending []byte // what the SDK reads next
	err     error  // the source's error, returned once pending is empty
}

func newLineGuard(r io.Reader, out *output, log *slog.Logger) *lineGuard {
	// The SDK's scanner holds a line and its newline in maxLineBytes.
	g := &lineGuard{lines: rpcline.NewReader(r, maxLineBytes-1), out: out, log: log}
	g.flowCond = sync.NewCond(&g.flowMu)
	return g
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			g.out.closeReplies()
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line and sets pending to what the SDK gets of it.
func (g *lineGuard) next() {
	line, err := g.lines.Next()
	var tl *rpcline.TooLong
	switch {
	case errors.As(err, &tl):
		g.tooLong(tl)
	case err != nil:
		g.err = err
	default:
		g.pending = g.judge(line)
	}
}

// judge returns what the SDK gets of a whole line: the line, a repaired
// response (sdkgap_responses.go), or nothing when the guard answered the client
// itself.
func (g *lineGuard) judge(line []byte) []byte {
	text := bytes.TrimSpace(line)
	if len(text) == 0 {
		return line
	}
	if !json.Valid(text) {
		// A response for one of our requests cut short must not leave it
		// waiting: read what the head says.
		var scan rpcline.Scanner
		scan.Feed(text)
		env := scan.Envelope()
		if env.ID != nil && env.Response {
			g.log.Warn("a response that is not valid JSON; the request it answers fails", "id", string(env.ID), "line", excerpt(text))
			return malformedResponse(env.ID)
		}
		g.refuse(env.ID, env.Request, rpcline.CodeParseError, "Parse error", text)
		return nil
	}
	switch text[0] {
	case '{':
	case '[':
		g.refuse(nil, false, rpcline.CodeInvalidRequest, "Invalid request: JSON-RPC batches are not supported", text)
		return nil
	default:
		g.refuse(nil, false, rpcline.CodeInvalidRequest, "Invalid request: a message must be a JSON object", text)
		return nil
	}
	var msg probeMessage
	if err := json.Unmarshal(text, &msg); err != nil {
		var scan rpcline.Scanner
		scan.Feed(text)
		env := scan.Envelope()
		if env.Response {
			if env.ID == nil {
				g.log.Warn("dropped a malformed response without a usable id", "line", excerpt(text))
				return nil
			}
			g.log.Warn("a malformed response; the request it answers fails", "id", string(env.ID), "line", excerpt(text))
			return malformedResponse(env.ID)
		}
		g.refuse(env.ID, env.Request, rpcline.CodeInvalidRequest, "Invalid request: "+typeError(err), text)
		return nil
	}
	switch {
	case msg.ID == nil && msg.Method == "":
		if msg.Result || msg.Error != nil {
			g.log.Warn("dropped a response without an id", "line", excerpt(text))
			return nil
		}
		g.refuse(nil, false, rpcline.CodeInvalidRequest, "Invalid request: neither a method nor an id", text)
		return nil
	case msg.Method == flowMethod: // ours alone
		if msg.ID != nil {
			g.reply(errorResponse(*msg.ID, rpcline.CodeMethodNotFound, "Method not found: "+flowMethod, nil))
		}
		return nil
	case msg.ID != nil && msg.Method != "":
		id, idErr := rpcline.ParseID(*msg.ID)
		if idErr != nil {
			g.refuse(nil, false, idErr.Code, idErr.Message, text)
			return nil
		}
		g.out.track(id)
	case msg.ID == nil && msg.Method != "$/cancel_request": // the SDK handles that one at once
		return g.admitNotification(line)
	}
	return line
}

// refuse answers a line the SDK would drop: with id when the line has a
// readable one and is a request (a method key), else with a null id; a
// method without an id is a notification: only logged.
func (g *lineGuard) refuse(id json.RawMessage, method bool, code int64, message string, text []byte) {
	if id == nil && method {
		g.log.Warn("dropped a malformed notification", "error", message, "line", excerpt(text))
		return
	}
	if !method {
		id = nil
	}
	g.log.Warn("refused a malformed line", "code", code, "error", message, "line", excerpt(text))
	g.reply(errorResponse(id, code, message, nil))
}

// reply queues an answer to the client.
func (g *lineGuard) reply(line []byte) {
	if !g.out.reply(line) {
		g.log.Warn("an answer to a malformed line was dropped: the client is not reading its input")
	}
}

// typeError names the member of an object the SDK cannot decode.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("the member %q cannot be %s", te.Field, te.Value)
	}
	return "the message's members have the wrong types"
}

// probeMessage decodes a line as acp-go-sdk does (anyMessage), without
// copying params or result: it fails exactly where the SDK's decoding
// fails.
type probeMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      *json.RawMessage  `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  presence          `json:"params,omitempty"`
	Result  presence          `json:"result,omitempty"`
	Error   *acp.RequestError `json:"error,omitempty"`
}

// presence records that a value was there (any JSON value, as
// json.RawMessage takes it) without keeping it.
type presence bool

func (p *presence) UnmarshalJSON([]byte) error { *p = true; return nil }

// errorResponse is a JSON-RPC error response line (rpcline's, with its
// newline); a nil id is null.
func errorResponse(id json.RawMessage, code int64, message string, data any) []byte {
	return append(rpcline.ErrorResponse(id, code, message, data), '\n')
}

// excerpt is the head of a refused line for a log record.
func excerpt(text []byte) string {
	if len(text) <= logExcerptBytes {
		return string(text)
	}
	return string(text[:logExcerptBytes]) + "… (" + strconv.Itoa(len(text)) + " bytes)"
}
