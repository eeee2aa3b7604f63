//go:build unix

package hostgo

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the CPU time (user and system) this process has used.
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
