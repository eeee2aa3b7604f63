package syncbuf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A reader waiting on Changed wakes on the next write and sees it; a
// channel taken after a write waits for the one after.
func TestChanged(t *testing.T) {
	var b Buffer
	first := b.Changed()
	assert.Equal(t, first, b.Changed(), "one channel until the next write")
	go func() { _, _ = b.Write([]byte("hello")) }()
	select {
	case <-first:
	case <-time.After(time.Minute):
		t.Fatal("the write did not close Changed")
	}
	assert.Equal(t, "hello", b.String())
	second := b.Changed()
	select {
	case <-second:
		t.Fatal("closed with no write since")
	default:
	}
	_, _ = b.Write([]byte(", world"))
	<-second
	assert.Equal(t, "hello, world", b.String())
}

// WaitFor sees what a later write brings, and gives up on what none does.
func TestWaitFor(t *testing.T) {
	var b Buffer
	go func() { _, _ = b.Write([]byte("the hub is reached")) }()
	assert.True(t, b.WaitFor("reached", time.Minute))
	assert.False(t, b.WaitFor("answered elsewhere", time.Millisecond))
}
