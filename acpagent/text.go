package acpagent

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/askcore/askcore"
)

// A model's reply reaches the client whatever its length. The core cleans
// it (op sanitize) in envelopes of at most core.MaxInputBytes (4 MiB), so
// a reply goes to the core in pieces of at most sanitizePieceBytes, and to
// the client in agent_message_chunk updates of at most messageChunkBytes
// each: every line stays far under the line limits of ACP peers (10 MiB
// for acp-go-sdk, 32 MiB for the TypeScript SDK) and the client
// concatenates the chunks as it does for any streamed reply.
//
// A reply of at most sanitizePieceBytes is cleaned in one call, exactly as
// the core cleans it. A longer one is cut at a line break when it can be
// (else at a space, else before an escape sequence, else between two
// characters), each piece is cleaned, and the white space around each
// cut, which the core trims from a piece's ends, is put back (its line
// breaks, else one space). TestCleanChunksMatchesTheCoreWhole checks that
// the client reads what the core makes of the whole reply. Where that can
// differ: spaces before a line break at a cut are dropped, and an escape
// sequence longer than half a piece, or one that spans line breaks (an
// OSC string), can be cut: the text after the cut inside it then shows as
// plain text (still cleaned: nothing can drive the client).
const (
	// sanitizePieceBytes: escaped at worst 6 bytes a byte (\u001b), a
	// piece's envelope stays under core.MaxInputBytes.
	sanitizePieceBytes = 512 << 10
	// messageChunkBytes bounds one agent_message_chunk's text.
	messageChunkBytes = 64 << 10
)

// cleanChunks has the core clean text in pieces of at most pieceLimit
// bytes and gives emit the result in chunks of at most chunkLimit bytes,
// in order. It stops at the first piece the core cannot clean.
func cleanChunks(ctx context.Context, c *askcore.Core, text string, pieceLimit, chunkLimit int, emit func(string)) error {
	pieces, seps := textPieces(text, pieceLimit)
	sep, sent := "", false
	for i, piece := range pieces {
		clean, err := c.Sanitize(ctx, piece)
		if err != nil {
			return fmt.Errorf("piece %d of %d: %w", i+1, len(pieces), err)
		}
		if clean != "" {
			if sent {
				clean = sep + clean
			}
			for _, chunk := range messageChunks(clean, chunkLimit) {
				emit(chunk)
			}
			sep, sent = "", true
		}
		if i < len(seps) {
			sep += seps[i]
		}
	}
	return nil
}

// textPieces cuts text into pieces of at most limit bytes, at the best
// place in the second half of each window; seps[i] is the separator the
// core trims away between pieces[i] and pieces[i+1] ("\n" per line
// break, else " " for spaces, else nothing).
func textPieces(text string, limit int) (pieces, seps []string) {
	for len(text) > limit {
		i := cutPoint(text, limit)
		piece, rest := text[:i], text[i:]
		pieces = append(pieces, piece)
		seps = append(seps, separator(trailingSpace(piece)+leadingSpace(rest)))
		text = rest
	}
	return append(pieces, text), seps
}

// cutPoint is where to cut text (longer than limit) at most limit bytes
// in, in the window's second half: after a line break, else after a
// space, where the next piece starts with no white space for the core to
// trim; else before an escape sequence (it goes whole into the next
// piece); else at a character boundary.
func cutPoint(text string, limit int) int {
	for _, sep := range []byte{'\n', ' '} {
		for i := limit; i > limit/2; i-- {
			if text[i-1] == sep && !asciiSpace(text[i]) && utf8.RuneStart(text[i]) {
				return i
			}
		}
	}
	for i := limit; i > limit/2; i-- {
		if text[i] == 0x1b || text[i] == 0xc2 && i+1 < len(text) && text[i+1] >= 0x80 && text[i+1] <= 0x9f {
			return i // ESC, or a C1 control (CSI, OSC, ...)
		}
	}
	i := limit
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

func asciiSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trailingSpace(s string) string {
	i := len(s)
	for i > 0 && asciiSpace(s[i-1]) {
		i--
	}
	return s[i:]
}

func leadingSpace(s string) string {
	i := 0
	for i < len(s) && asciiSpace(s[i]) {
		i++
	}
	return s[:i]
}

// separator is what the core would have kept of run, the white space
// around a cut: its line breaks (CR LF, CR and LF are one each), else
// one space.
func separator(run string) string {
	breaks := strings.Count(run, "\n") + strings.Count(run, "\r") - strings.Count(run, "\r\n")
	switch {
	case breaks > 0:
		return strings.Repeat("\n", breaks)
	case run != "":
		return " "
	}
	return ""
}

// messageChunks cuts clean text into chunks of at most limit bytes, at
// character boundaries.
func messageChunks(text string, limit int) []string {
	var out []string
	for len(text) > limit {
		i := limit
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		out = append(out, text[:i])
		text = text[i:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}
