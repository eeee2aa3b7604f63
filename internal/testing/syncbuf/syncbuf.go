// Package syncbuf holds Buffer, what a test reads while a server or a
// child process writes to it (a log, stderr, a terminal's output).
package syncbuf

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// Buffer is a bytes.Buffer safe for one goroutine writing while another
// reads. The zero value is an empty buffer.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and dropped) by the next write
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// Changed returns a channel the next Write closes: taken before reading
// String, it lets a test wait for more without polling or missing a write.
func (s *Buffer) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits until what was written contains sub, for at most within,
// and reports whether it does: for a goroutine that may not fail the test
// itself (a client's handler, which answers otherwise and lets the test
// fail on that).
func (s *Buffer) WaitFor(sub string, within time.Duration) bool {
	deadline := time.After(within)
	for {
		changed := s.Changed()
		if strings.Contains(s.String(), sub) {
			return true
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}
