// Package chantest waits on channels in tests, bounded, so that a test
// that breaks fails saying what did not happen instead of hanging until the
// test binary's timeout.
package chantest

import (
	"testing"
	"time"
)

// Receive is the next value on ch. Without one within d the test fails
// with what, which says what did not happen.
func Receive[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatal(what)
		var zero T
		return zero
	}
}
