//go:build !unix

package hostgo

import "time"

// processCPU: no CPU clock outside Unix; waitWarm uses wall time.
func processCPU() (time.Duration, bool) { return 0, false }
