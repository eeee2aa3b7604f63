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
// "id" and the names of its top-level keys are kept, by rpcline.Scanner),
// logs it naming the limit, and answers it: a request with a readable id
// gets -32600 for that id; a response to one of the agent's requests (an
// elicitation answer) becomes an error response for its id, fed to the
// SDK, so the question fails with ASK_FAILED instead of waiting; anything
// else is dropped with the log line. Delete this file when the SDK skips
// oversized lines; TestBinaryHostileLinesWithAQuestionPending and
// TestBinaryOversizedAnswerFailsTheQuestion pin the behaviour either way.

import (
	"fmt"
	"runtime/debug"

	"github.com/askcore/askcore/internal/rpcline"
)

// maxLineBytes is the longest line askcore-acp reads, its newline
// included: 10 MiB, what acp-go-sdk v0.13.0's scanner holds. A longer
// line is discarded as it streams in, never held whole.
const maxLineBytes = 10 << 20

const (
	// maxQueuedReplies bounds the guard's answers waiting for a client
	// that does not read; more are dropped with a log line.
	maxQueuedReplies = 256
	// logExcerptBytes is how much of a refused line a log record quotes.
	logExcerptBytes = 80
)

// tooLong answers a line longer than maxLineBytes, which the reader
// discarded as it went by, from what its scan read of the envelope.
func (g *lineGuard) tooLong(tl *rpcline.TooLong) {
	n := tl.Size
	// The blocks the reader held (up to maxLineBytes) are garbage now: give the
	// memory back at once rather than minutes later, so that one
	// oversized line does not leave the process that much bigger.
	debug.FreeOSMemory()
	env := tl.Envelope
	id := env.ID
	attrs := []any{"bytes", n, "limit", maxLineBytes}
	if id != nil {
		attrs = append(attrs, "id", string(id))
	}
	switch {
	case id != nil && env.Request:
		g.log.Warn("discarded a request longer than the line limit; answered -32600", attrs...)
		g.reply(errorResponse(id, rpcline.CodeInvalidRequest,
			fmt.Sprintf("Invalid request: the line is %d bytes; askcore-acp reads lines of at most %d bytes, newline included", n, maxLineBytes),
			map[string]any{"bytes": n, "maxLineBytes": maxLineBytes}))
	case id != nil && env.Response:
		g.log.Warn("discarded a response longer than the line limit; the request it answers fails", attrs...)
		g.pending = errorResponse(id, rpcline.CodeInternalError,
			fmt.Sprintf("the client's response is %d bytes, over the %d-byte line limit of askcore-acp", n, maxLineBytes), nil)
	default:
		g.log.Warn("discarded a line longer than the line limit (no id to answer)", attrs...)
	}
}
