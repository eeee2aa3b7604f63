package termui

import (
	"bufio"
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

// Lines owns an input stream: one goroutine reads it line by line and hands
// each line to whoever is waiting in Next (the user-prompt loop or the
// question that owns the terminal). Nothing else may read the stream.
//
// Lines are read one ahead at most: the reader goroutine holds the next line
// until someone takes it, so no line is lost between consumers.
type Lines struct {
	lines chan string
	eof   chan struct{} // closed once the stream ended; err is then set
	err   error
	done  chan struct{} // closed by Close
	once  sync.Once
	exit  chan struct{} // closed when the reader goroutine returned
}

// NewLines starts reading r. Lines are split at "\n"; a trailing "\r" is
// dropped, and so is a final unterminated line's absence of "\n".
func NewLines(r io.Reader) *Lines {
	l := &Lines{
		lines: make(chan string),
		eof:   make(chan struct{}),
		done:  make(chan struct{}),
		exit:  make(chan struct{}),
	}
	go l.read(r)
	return l
}

func (l *Lines) read(r io.Reader) {
	defer close(l.exit)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	for sc.Scan() {
		select {
		case l.lines <- sc.Text():
		case <-l.done:
			return
		}
	}
	l.err = sc.Err()
	if l.err == nil {
		l.err = io.EOF
	}
	close(l.eof)
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
	select {
	case s := <-l.lines:
		return s, nil
	case <-l.eof:
		return "", l.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-l.done:
		return "", ErrClosed
	}
}

// Close stops handing out lines. The reader goroutine returns as soon as the
// read in progress does (at once for a line already read; for a stream that
// never delivers again, when the process exits or the stream is closed).
func (l *Lines) Close() { l.once.Do(func() { close(l.done) }) }

// Done is closed when the reader goroutine has returned.
func (l *Lines) Done() <-chan struct{} { return l.exit }
