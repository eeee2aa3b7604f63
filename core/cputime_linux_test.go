package core

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// rusageThread is RUSAGE_THREAD (Linux): the calling thread only.
const rusageThread = 1

// WorkTime runs f on a locked OS thread and returns the CPU time that
// thread spent in it: the work f did, whatever else the machine is running.
// Wall-clock time counts every moment the thread waited for a CPU, so on a
// loaded machine it measures the load, not f; the "quickly" bounds of the
// hardening tests use this instead.
func WorkTime(t testing.TB, f func()) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU(t)
	f()
	return threadCPU(t) - before
}

func threadCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatalf("getrusage(RUSAGE_THREAD): %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
