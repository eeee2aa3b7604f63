// Package rpcline is the JSON-RPC 2.0 line guard of the stdio front
// doors (MCP and ACP): it reads newline-delimited messages with a bound on
// a line's length, and judges each before any SDK sees it, so that no
// line a peer writes can end a session or go unanswered.
//
//   - Reader reads lines of at most a limit, as they were written (the
//     newline included: TrimEOL takes it off); a longer line is never held
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

// blockBytes is the size of the blocks a long line is kept in: a line is
// never copied to grow, only once, whole, when it is returned.
const blockBytes = 1 << 20

// Reader reads lines whose bytes before the newline (a CR among them) are
// at most limit.
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

// Limit is the most bytes a line Next returns has before its newline.
func (r *Reader) Limit() int { return r.limit }

// TooLong is the error for a line over the limit. The line has been
// consumed (discarded); the next Next reads the line after it.
type TooLong struct {
	// Size is the length of the line in bytes, without its newline.
	Size int64
	// Limit is the reader's limit.
	Limit int
	// Envelope is what a Scanner read of the line as it went by.
	Envelope Envelope
}

func (e *TooLong) Error() string {
	return fmt.Sprintf("a line of %d bytes is over the limit of %d bytes; it was discarded", e.Size, e.Limit)
}

// Next returns the next line as it was read, its newline included (a last
// line without one as it is), in a slice of its own; TrimEOL takes the
// line break off. After the last line Next returns io.EOF. A line over
// the limit gives a *TooLong (the reader can go on); any other error is
// the underlying reader's.
func (r *Reader) Next() ([]byte, error) {
	var kept blocks
	var over *overLine
	for {
		chunk, err := r.br.ReadSlice('\n')
		content := len(chunk)
		if err == nil {
			content-- // the newline
		}
		if over == nil && kept.n+content > r.limit {
			// From here on the line is scanned as it goes by, not kept.
			over = &overLine{}
			for _, b := range kept.b {
				over.add(b)
			}
			kept = blocks{}
		}
		if over != nil {
			over.add(chunk)
		} else {
			kept.add(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && over == nil && kept.n == 0 {
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
	return kept.whole(), nil
}

// TrimEOL is line without its newline and a CR before it.
func TrimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// blocks holds a line as it is read: a first block that grows to
// blockBytes, then blocks of that size.
type blocks struct {
	b [][]byte
	n int
}

func (k *blocks) add(p []byte) {
	k.n += len(p)
	for len(p) > 0 {
		last := len(k.b) - 1
		switch {
		case last < 0: // the first block grows as the line does
			k.b = append(k.b, make([]byte, 0, min(max(len(p), 512), blockBytes)))
			last++
		case len(k.b[last]) == blockBytes:
			k.b = append(k.b, make([]byte, 0, blockBytes))
			last++
		}
		dst := &k.b[last]
		if free := cap(*dst) - len(*dst); free < len(p) && cap(*dst) < blockBytes {
			grown := make([]byte, len(*dst), min(max(2*cap(*dst), len(*dst)+len(p)), blockBytes))
			copy(grown, *dst)
			*dst = grown
		}
		n := min(len(p), cap(*dst)-len(*dst))
		*dst = append(*dst, p[:n]...)
		p = p[n:]
	}
}

// whole is the line in one slice of its own.
func (k *blocks) whole() []byte {
	if len(k.b) == 1 {
		return k.b[0]
	}
	line := make([]byte, 0, k.n)
	for _, b := range k.b {
		line = append(line, b...)
	}
	return line
}

// overLine is a line over the limit as it streams by: its length, its
// last byte (for the newline) and its scan.
type overLine struct {
	n    int64
	last byte
	scan Scanner
}

func (o *overLine) add(chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	o.n += int64(len(chunk))
	o.last = chunk[len(chunk)-1]
	o.scan.Feed(chunk)
}

// size is the line's length without its newline.
func (o *overLine) size() int64 {
	if o.last == '\n' {
		return o.n - 1
	}
	return o.n
}
