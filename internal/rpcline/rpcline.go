// Package rpcline is the JSON-RPC 2.0 line guard of the stdio front
// doors (MCP and ACP): it reads newline-delimited messages with a bound on
// a line's length, and judges each before any SDK sees it, so that no
// line a peer writes can end a session or go unanswered.
//
//   - Reader reads lines of at most a limit; a longer line is never held
//     whole: it is discarded as it is read and reported as a *TooLong,
//     from whose kept ends Sniff recovers the id and the kind of message.
//   - Check validates one message (Split and CheckElement: a batch) and
//     returns it with a valid ID, or the *Error to answer it with: -32700
//     for what is not JSON, -32600 for what is not a JSON-RPC 2.0
//     message, with the message's id when it is valid, else null.
//   - ParseID, ID.Key: ids as both SDKs hold them (a string, or an
//     integer within ±2^53), keyed so that maps can track them.
//   - ErrorResponse writes an error response; Batch gathers the responses
//     to a batch into one array.
//
// What each protocol does with a valid message (its SDK's gaps, its own
// rules) is the front door's; MCP's behaviour on the wire is described in
// docs/mcp.md ("Lines").
package rpcline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// HeadBytes and TailBytes are how much of an over-long line a *TooLong
// keeps: enough for the envelope keys that JSON-RPC peers write before
// and after a large params or result ("method" first, "jsonrpc" and "id"
// last in the TypeScript SDKs).
const (
	HeadBytes = 4096
	TailBytes = 512
)

// readBuffer is the size of the buffered reader under a Reader.
const readBuffer = 64 << 10

// Reader reads lines of at most limit bytes (the newline and a CR before
// it excluded).
type Reader struct {
	br    *bufio.Reader
	limit int
}

// NewReader reads lines from r; limit must be positive.
func NewReader(r io.Reader, limit int) *Reader {
	if limit <= 0 {
		panic("rpcline: the limit must be positive")
	}
	return &Reader{br: bufio.NewReaderSize(r, readBuffer), limit: limit}
}

// Limit is the longest line Next returns.
func (r *Reader) Limit() int { return r.limit }

// TooLong is the error for a line over the limit. The line has been
// consumed (discarded); the next Next reads the line after it.
type TooLong struct {
	// Size is the length of the line in bytes, without its newline.
	Size int64
	// Limit is the reader's limit.
	Limit int
	// Head is the line's first HeadBytes bytes, Tail its last TailBytes
	// (without the line break); on a limit under HeadBytes they overlap.
	Head, Tail []byte
}

func (e *TooLong) Error() string {
	return fmt.Sprintf("a line of %d bytes is over the limit of %d bytes; it was discarded", e.Size, e.Limit)
}

// Next returns the next line, without its newline and without a CR before
// the newline, in a slice of its own. A last line without a newline is
// returned as a line; after it, Next returns io.EOF. A line over the limit
// gives a *TooLong (the reader can go on); any other error is the
// underlying reader's.
func (r *Reader) Next() ([]byte, error) {
	var line []byte
	var tl *TooLong
	for {
		chunk, err := r.br.ReadSlice('\n')
		if tl != nil {
			tl.add(chunk)
		} else if line = append(line, chunk...); len(line) > r.limit+2 {
			// Over the limit whatever ends it ("\r\n" at most): from
			// here on only the head, the tail and the count are kept.
			tl = &TooLong{Limit: r.limit, Head: clip(line[:min(HeadBytes, len(line))])}
			tl.add(line)
			line = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && tl == nil && len(line) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		break
	}
	if tl != nil {
		n := len(tl.Tail)
		tl.Tail = trimEOL(tl.Tail)
		tl.Size -= int64(n - len(tl.Tail))
		tl.Tail = clip(tl.Tail[max(0, len(tl.Tail)-TailBytes):])
		return nil, tl
	}
	line = trimEOL(line)
	if len(line) > r.limit {
		return nil, &TooLong{Size: int64(len(line)), Limit: r.limit,
			Head: clip(line[:min(HeadBytes, len(line))]), Tail: clip(line[max(0, len(line)-TailBytes):])}
	}
	return line, nil
}

// add counts chunk and keeps the last bytes of the line (two more than
// TailBytes, for a line break).
func (t *TooLong) add(chunk []byte) {
	t.Size += int64(len(chunk))
	t.Tail = append(t.Tail, chunk...)
	if keep := TailBytes + 2; len(t.Tail) > keep {
		t.Tail = append(t.Tail[:0], t.Tail[len(t.Tail)-keep:]...)
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func clip(b []byte) []byte { return append([]byte(nil), b...) }
