package termui

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// MaxLineBytes bounds one input line. A longer line ends the input with
// bufio.ErrTooLong (a question pending then is aborted like at EOF).
const MaxLineBytes = 1 << 20

// ErrClosed is returned by Lines.Next after Close.
var ErrClosed = errors.New("termui: line reader closed")

// readChunk is how much one read of the stream asks for.
const readChunk = 4096

// Lines owns an input stream: it is the only reader of it. One goroutine
// (the pump) reads the stream into a buffer, and only when someone waits
// for more than the buffer holds; consumers take what they need from the
// buffer:
//
//   - Next takes one line (the user-prompt loop, a line-mode question);
//   - the keyboard picker takes raw key bytes (see Picker.Run), while the
//     terminal is in raw mode, and leaves every byte it did not use (keys
//     typed ahead after the last Enter) in the buffer for the next line.
//
// So no byte is read twice, none is lost between consumers, and the stream
// has exactly one reader whoever consumes. Consumers take turns (a question
// owns the input while it is asked); each call consumes atomically.
//
// Reads go one chunk ahead at most: the pump holds what it read until
// someone takes it.
type Lines struct {
	r io.Reader

	mu      sync.Mutex
	buf     []byte        // read from r, not consumed yet
	err     error         // how the stream ended; set once, with the last bytes
	changed chan struct{} // closed (and replaced) when buf grows or err is set
	crlf    bool          // a lone "\r" ends a line too: raw-mode bytes were seen
	skipLF  bool          // the last line ended at a lone "\r"; a "\n" right after belongs to it

	want chan struct{} // capacity 1: a consumer waits for more than buf holds
	done chan struct{} // closed by Close
	once sync.Once
	exit chan struct{} // closed when the pump returned
}

// NewLines starts reading r. Lines are split at "\n"; a trailing "\r" is
// dropped, and so is a final unterminated line's absence of "\n".
func NewLines(r io.Reader) *Lines {
	l := &Lines{
		r:       r,
		changed: make(chan struct{}),
		want:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		exit:    make(chan struct{}),
	}
	go l.pump()
	return l
}

// pump is the only reader of the stream. It reads when asked to, appends
// what it got to the buffer, and tells waiting consumers.
func (l *Lines) pump() {
	defer close(l.exit)
	chunk := make([]byte, readChunk)
	for {
		select {
		case <-l.want:
		case <-l.done:
			return
		}
		n, err := l.r.Read(chunk)
		select {
		case <-l.done:
			return // Close: what was read in the meantime is dropped
		default:
		}
		l.mu.Lock()
		l.buf = append(l.buf, chunk[:n]...)
		if err != nil && l.err == nil {
			l.err = err
		}
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// awaitLocked returns a channel that is closed once the buffer holds more
// than have bytes or the stream ended, and asks the pump for more if
// needed. l.mu is held.
func (l *Lines) awaitLocked(have int) <-chan struct{} {
	if len(l.buf) > have || l.err != nil {
		return closedChan
	}
	select {
	case l.want <- struct{}{}:
	default:
	}
	return l.changed
}

// Next returns the next line. It returns io.EOF (or the read error) once
// the stream ended, ctx's error when ctx is done first, and ErrClosed after
// Close.
func (l *Lines) Next(ctx context.Context) (string, error) {
	// A closed Lines or a done ctx wins over a line that happens to be
	// ready, so an aborted question never swallows the next line.
	select {
	case <-l.done:
		return "", ErrClosed
	case <-ctx.Done():
		return "", ctx.Err()
	default:
	}
	for {
		l.mu.Lock()
		line, ok, err := l.cutLineLocked()
		if ok || err != nil {
			l.mu.Unlock()
			return line, err
		}
		ch := l.awaitLocked(len(l.buf))
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return "", ctx.Err()
		case <-l.done:
			return "", ErrClosed
		}
	}
}

// cutLineLocked takes one line from the buffer: ok when there was one,
// err when the stream ended with no line left. l.mu is held.
func (l *Lines) cutLineLocked() (line string, ok bool, err error) {
	l.dropSkippedLFLocked()
	b := l.buf
	i := bytes.IndexByte(b, '\n')
	if l.crlf {
		if j := bytes.IndexByte(b, '\r'); j >= 0 && (i < 0 || j+1 < i) {
			// A lone "\r": Enter typed while the terminal was raw.
			l.buf = b[j+1:]
			l.skipLF = true
			l.dropSkippedLFLocked()
			return string(b[:j]), true, nil
		}
	}
	if i >= MaxLineBytes || i < 0 && len(b) >= MaxLineBytes {
		l.buf = nil
		l.err = bufio.ErrTooLong
		return "", false, l.err
	}
	if i >= 0 {
		l.buf = b[i+1:]
		return string(dropCR(b[:i])), true, nil
	}
	if l.err != nil {
		if len(b) > 0 {
			l.buf = nil
			return string(dropCR(b)), true, nil
		}
		return "", false, l.err
	}
	return "", false, nil
}

// dropSkippedLFLocked drops the "\n" of a "\r\n" whose "\r" ended the last
// line.
func (l *Lines) dropSkippedLFLocked() {
	if l.skipLF && len(l.buf) > 0 {
		if l.buf[0] == '\n' {
			l.buf = l.buf[1:]
		}
		l.skipLF = false
	}
}

func dropCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// Close stops handing out lines. The reader goroutine returns as soon as the
// read in progress does (at once for a line already read; for a stream that
// never delivers again, when the process exits or the stream is closed).
func (l *Lines) Close() { l.once.Do(func() { close(l.done) }) }

// Done is closed when the reader goroutine has returned.
func (l *Lines) Done() <-chan struct{} { return l.exit }

// The byte side, for the keyboard picker (same package only).

// peekBytes returns a copy of the unconsumed bytes, and the stream's end
// (nil while it goes on).
func (l *Lines) peekBytes() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropSkippedLFLocked()
	return bytes.Clone(l.buf), l.err
}

// discard consumes the first n unconsumed bytes (n from peekBytes).
func (l *Lines) discard(n int) {
	l.mu.Lock()
	l.buf = l.buf[min(n, len(l.buf)):]
	l.mu.Unlock()
}

// await returns a channel closed once more than have bytes are buffered or
// the stream ended; the pump is asked to read if needed.
func (l *Lines) await(have int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.awaitLocked(have)
}

// takeAll removes and returns every unconsumed byte.
func (l *Lines) takeAll() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropSkippedLFLocked()
	b := l.buf
	l.buf = nil
	return b
}

// unread puts b back in front of the unconsumed bytes.
func (l *Lines) unread(b []byte) {
	if len(b) == 0 {
		return
	}
	l.mu.Lock()
	l.buf = append(bytes.Clone(b), l.buf...)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// sawRaw records that the terminal was put in raw mode: from now on a lone
// "\r" (Enter typed while raw, handed on to a line reader) ends a line too.
// A stream that never went raw (a pipe) keeps splitting at "\n" only.
func (l *Lines) sawRaw() {
	l.mu.Lock()
	l.crlf = true
	l.mu.Unlock()
}

// closed is closed by Close.
func (l *Lines) closed() <-chan struct{} { return l.done }
