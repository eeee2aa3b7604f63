package rpcline

import (
	"bytes"
	"encoding/json"
	"sync"
)

// IsBatch reports whether a line is a JSON-RPC batch (a JSON array).
func IsBatch(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '['
}

// Split reads the elements of a batch line. A line that is not a valid
// array is -32700, an empty one -32600 (both with a null id). Check each
// element with CheckElement.
func Split(line []byte) ([]json.RawMessage, *Error) {
	var elems []json.RawMessage
	if json.Unmarshal(line, &elems) != nil {
		return nil, &Error{Code: CodeParseError, Message: "Parse error"}
	}
	if len(elems) == 0 {
		return nil, invalid(nil, "an empty batch")
	}
	return elems, nil
}

// CheckElement is Check for an element of a batch: a batch inside a batch
// is -32600 with a null id.
func CheckElement(raw []byte) (Message, *Error) {
	if IsBatch(raw) {
		return Message{}, invalid(nil, "a batch inside a batch")
	}
	return Check(raw)
}

// Batch collects the responses to one incoming batch, to write them as
// one array once every request of it is answered (notifications get
// none). It is safe for concurrent use.
type Batch struct {
	mu      sync.Mutex
	pending int
	replies [][]byte
	sealed  bool
}

// Expect counts a request of the batch that will be answered (Reply).
func (b *Batch) Expect() {
	b.mu.Lock()
	b.pending++
	b.mu.Unlock()
}

// Add adds an answer given without a request (the guard's error for an
// element), and Reply the response to an expected request. Each returns
// the array to write when the batch is complete, else nil.
func (b *Batch) Add(response []byte) []byte { return b.add(response, false) }

// Reply: see Add.
func (b *Batch) Reply(response []byte) []byte { return b.add(response, true) }

func (b *Batch) add(response []byte, expected bool) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if expected {
		b.pending--
	}
	b.replies = append(b.replies, response)
	return b.ready()
}

// Seal marks every element read; it returns the array to write when the
// batch is already complete, else nil (also for a batch of notifications
// only, which gets no answer).
func (b *Batch) Seal() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sealed = true
	return b.ready()
}

func (b *Batch) ready() []byte {
	if !b.sealed || b.pending > 0 || len(b.replies) == 0 {
		return nil
	}
	out := []byte{'['}
	out = append(out, bytes.Join(b.replies, []byte{','})...)
	b.replies = nil
	return append(out, ']')
}
