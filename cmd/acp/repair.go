package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	acp "github.com/coder/acp-go-sdk"
)

// responseRepair sits between the client and acp-go-sdk. The SDK drops an
// incoming line it cannot decode (v0.13.0: "failed to parse incoming
// message"), so a response to one of our requests with, say, a string error
// code or a numeric "jsonrpc" is lost and the request (a pending question)
// waits forever. responseRepair turns such a response, when it still
// carries a usable id, into a JSON-RPC error for that id (-32603, "the
// client sent a malformed response"), so the question fails with
// ASK_FAILED instead of hanging. Every other line passes through
// unchanged; lines longer than the inspection buffer are never inspected.
type responseRepair struct {
	br      *bufio.Reader
	pending []byte
	long    bool // inside a line too long to inspect: pass it through
	err     error
}

const repairBufferBytes = 1 << 20

func newResponseRepair(r io.Reader) io.Reader {
	return &responseRepair{br: bufio.NewReaderSize(r, repairBufferBytes)}
}

func (r *responseRepair) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = true
			r.pending = append(r.pending[:0], line...)
			continue
		case err != nil:
			r.err = err
		}
		if r.long {
			r.long = false
			r.pending = append(r.pending[:0], line...)
			continue
		}
		r.pending = append(r.pending[:0], repairLine(line)...)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// sdkMessage is how acp-go-sdk decodes every incoming line.
type sdkMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      *json.RawMessage  `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  json.RawMessage   `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *acp.RequestError `json:"error,omitempty"`
}

// repairLine returns line, or an error response in its place when line is
// a response the SDK would drop.
func repairLine(line []byte) []byte {
	text := bytes.TrimSpace(line)
	if len(text) == 0 || text[0] != '{' {
		return line
	}
	var msg sdkMessage
	if json.Unmarshal(text, &msg) == nil {
		return line
	}
	var loose struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(text, &loose) != nil || loose.Method != nil || !usableID(loose.ID) {
		return line
	}
	out, err := json.Marshal(sdkMessage{
		JSONRPC: "2.0",
		ID:      &loose.ID,
		Error:   &acp.RequestError{Code: -32603, Message: "the client sent a malformed response"},
	})
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// usableID: a JSON-RPC id is a number or a string.
func usableID(id json.RawMessage) bool {
	var v any
	if len(id) == 0 || json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}
