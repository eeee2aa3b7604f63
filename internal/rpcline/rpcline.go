// Package rpcline is the JSON-RPC 2.0 line guard of the stdio front
// doors (MCP and ACP): it reads newline-delimited messages with a bound on
// a line's length, and judges each before any SDK sees it, so that no
// line a peer writes can end a session or go unanswered.
//
//   - Reader reads lines of at most a limit; a longer line is never held
//     whole: it is discarded as it is read and reported as a *TooLong,
//     with what a Scanner read of its envelope (the id and the kind of
//     message) on the way. Scanner reads the same of a line that is not
//     valid JSON.
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
	// Size is the length of the line in bytes, without its line break.
	Size int64
	// Limit is the reader's limit.
	Limit int
	// Envelope is what a Scanner read of the line as it went by.
	Envelope Envelope
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
	var over *overLine
	for {
		chunk, err := r.br.ReadSlice('\n')
		if over != nil {
			over.add(chunk)
		} else if line = append(line, chunk...); len(line) > r.limit+2 {
			// Over the limit whatever ends it ("\r\n" at most): from
			// here on the line is scanned as it goes by, not kept.
			over = &overLine{}
			over.add(line)
			line = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && over == nil && len(line) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		break
	}
	if over != nil {
		return nil, &TooLong{Size: over.size(), Limit: r.limit, Envelope: over.scan.Envelope()}
	}
	line = trimEOL(line)
	if len(line) > r.limit {
		var sc Scanner
		sc.Feed(line)
		return nil, &TooLong{Size: int64(len(line)), Limit: r.limit, Envelope: sc.Envelope()}
	}
	return line, nil
}

// overLine is a line over the limit as it streams by: its length, its
// last two bytes (for the line break) and its scan.
type overLine struct {
	n    int64
	last [2]byte
	scan Scanner
}

func (o *overLine) add(chunk []byte) {
	o.n += int64(len(chunk))
	for _, c := range chunk[max(0, len(chunk)-2):] {
		o.last[0], o.last[1] = o.last[1], c
	}
	o.scan.Feed(chunk)
}

// size is the line's length without its line break (trimEOL's).
func (o *overLine) size() int64 {
	n, last := o.n, o.last
	if n > 0 && last[1] == '\n' {
		n, last[1] = n-1, last[0]
	}
	if n > 0 && last[1] == '\r' {
		n--
	}
	return n
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
