//go:build !linux

package core

import (
	"testing"
	"time"
)

// WorkTime returns how long f took. Without a per-thread CPU clock this is
// wall-clock time (see the Linux version, which measures the thread's CPU
// time so that a loaded machine does not count).
func WorkTime(t testing.TB, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	return time.Since(start)
}
