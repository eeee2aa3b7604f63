package termui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLines(t *testing.T) {
	l := NewLines(strings.NewReader("one\r\ntwo\n\nlast"))
	defer l.Close()
	ctx := context.Background()
	for _, want := range []string{"one", "two", "", "last"} {
		got, err := l.Next(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for range 2 {
		_, err := l.Next(ctx)
		assert.ErrorIs(t, err, io.EOF)
	}
	<-l.Done()
}

func TestLinesCtxAndClose(t *testing.T) {
	pr, pw := io.Pipe()
	l := NewLines(pr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := l.Next(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	// A line typed after the ctx gave up goes to the next reader.
	go func() { _, _ = io.WriteString(pw, "kept\n") }()
	got, err := l.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "kept", got)

	// Close: a line already read is dropped, the goroutine ends.
	go func() { _, _ = io.WriteString(pw, "dropped\n") }()
	l.Close()
	_, err = l.Next(context.Background())
	assert.ErrorIs(t, err, ErrClosed)
	_ = pw.Close()
	<-l.Done()
}

func TestLinesTooLong(t *testing.T) {
	l := NewLines(strings.NewReader(strings.Repeat("x", MaxLineBytes+10) + "\n"))
	defer l.Close()
	_, err := l.Next(context.Background())
	require.Error(t, err)
	assert.False(t, errors.Is(err, io.EOF))
}

// countingReader counts reads and serves chunks as given.
type countingReader struct {
	mu     sync.Mutex
	reads  int
	chunks []string
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func (c *countingReader) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// The stream is read only when someone waits for more than is buffered.
func TestLinesReadOnDemand(t *testing.T) {
	r := &countingReader{chunks: []string{"one\ntwo\n", "three\n"}}
	l := NewLines(r)
	defer l.Close()
	// Nobody asked yet: nothing read.
	select {
	case <-l.Done():
		t.Fatal("the pump ended without a reader")
	case <-time.After(20 * time.Millisecond):
	}
	assert.Zero(t, r.count())
	got, err := l.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "one", got)
	got, err = l.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "two", got)
	assert.Equal(t, 1, r.count(), "both lines came in one read")
}

// Key bytes and lines come from the same buffer: what one consumer does
// not take, the next gets; nothing is read twice.
func TestLinesBytesAndLines(t *testing.T) {
	pr, pw := io.Pipe()
	l := NewLines(pr)
	defer func() { l.Close(); _ = pw.Close(); <-l.Done() }()
	go func() { _, _ = io.WriteString(pw, "\x1b[Bxy\rhello\n") }()

	var b []byte
	for len(b) < 3 {
		<-l.await(len(b))
		b, _ = l.peekBytes()
	}
	assert.Equal(t, "\x1b[B", string(b[:3]))
	l.discard(3)
	b, _ = l.peekBytes()
	require.True(t, len(b) >= 1)
	l.discard(1) // "x"

	got, err := l.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "y\rhello", got, "a pipe keeps splitting at \\n only")
}

// Once the terminal was raw, a lone "\r" (Enter typed while raw, handed
// on to the line reader) ends a line, and a "\r\n" is still one break,
// even when it is cut between two reads.
func TestLinesAfterRaw(t *testing.T) {
	r := &countingReader{chunks: []string{"a\rb\r\nc\r", "\nd\n", "e\r"}}
	l := NewLines(r)
	defer l.Close()
	l.sawRaw()
	var got []string
	for {
		s, err := l.Next(context.Background())
		if err != nil {
			assert.ErrorIs(t, err, io.EOF)
			break
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, got)
}
