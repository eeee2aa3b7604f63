package termui

import (
	"io"
	"strings"
	"sync"
)

// SyncWriter serializes writes so that a block (a question, a model reply)
// is never interleaved with another. Write each block with one call.
//
// While a keyboard picker is drawn through a SyncWriter it stays at the
// bottom of the output: every other write erases the picker, goes where the
// picker was, and the picker is drawn again below it, all in one write
// under the lock. So model text that arrives while a question is pending
// scrolls up past the picker into the scrollback instead of garbling it.
// Such a write is completed to a whole line (a "\n" is added when it lacks
// one) so that the picker starts on a line of its own.
type SyncWriter struct {
	sh *syncShared
	w  io.Writer
}

// syncShared is what writers to the same terminal share: the lock and the
// picker drawn on it.
type syncShared struct {
	mu sync.Mutex
	ov overlay // the picker on screen, nil when none
}

// overlay is something drawn at the bottom of the terminal that other
// output must go above. Both methods are called with the lock held.
type overlay interface {
	// erase returns the bytes that erase it (the cursor is left where
	// its first line was, at column 0).
	erase() string
	// redraw returns the bytes that draw it again from the cursor.
	redraw() string
}

// NewSyncWriter wraps w.
func NewSyncWriter(w io.Writer) *SyncWriter { return &SyncWriter{sh: &syncShared{}, w: w} }

// Also returns a writer to other that shares w's lock and picker: use it
// for a second stream that shows on the same terminal (stderr beside
// stdout), so that its lines too go above a picker instead of into it.
func (w *SyncWriter) Also(other io.Writer) *SyncWriter { return &SyncWriter{sh: w.sh, w: other} }

// Write writes p under the lock.
func (w *SyncWriter) Write(p []byte) (int, error) {
	w.sh.mu.Lock()
	defer w.sh.mu.Unlock()
	ov := w.sh.ov
	if ov == nil || len(p) == 0 {
		return w.w.Write(p)
	}
	var sb strings.Builder
	sb.WriteString(ov.erase())
	sb.Write(p)
	if p[len(p)-1] != '\n' {
		sb.WriteByte('\n')
	}
	sb.WriteString(ov.redraw())
	if _, err := io.WriteString(w.w, sb.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString writes s under the lock.
func (w *SyncWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// draw runs f with the lock held and writes what it returns, bypassing
// the overlay: this is how the overlay itself draws. f may set or clear
// the overlay.
func (w *SyncWriter) draw(f func(ov *overlay) string) error {
	w.sh.mu.Lock()
	defer w.sh.mu.Unlock()
	s := f(&w.sh.ov)
	if s == "" {
		return nil
	}
	_, err := io.WriteString(w.w, s)
	return err
}
