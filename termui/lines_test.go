package termui

import (
	"context"
	"errors"
	"io"
	"strings"
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
