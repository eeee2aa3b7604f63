package hostgo

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcPauseHeadroom is how much the process may grow while the collector is
// paused before the memory limit starts it anyway: a load from the cache
// allocates about 7 MB, a full compile (a warm marker that lied) hundreds.
const gcPauseHeadroom = 64 << 20

var (
	gcPauseMu    sync.Mutex
	gcPauses     int   // loads running with the collector paused
	gcPrevPct    int   // what SetGCPercent was before the first of them
	gcPrevLimit  int64 // what SetMemoryLimit was before the first of them
	gcPauseCount int   // pauses begun, for tests
)

func gcPausesBegun() int {
	gcPauseMu.Lock()
	defer gcPauseMu.Unlock()
	return gcPauseCount
}

// pauseGC stops the garbage collector's pacing while the compiled module is
// loaded from the on-disk cache, and returns the func that restores it. The
// load allocates a few megabytes of short-lived and long-lived objects at
// once (wazero decodes and validates the whole module on a cache hit);
// with the default pacing a process that starts with a 4 MB heap goal runs
// two or three collections in those milliseconds, and a short process (an
// `askcore-stdio ask`) never needed them. A memory limit of the process's
// current memory plus gcPauseHeadroom keeps a load that turns out to be a
// full compile from growing without a collection. The settings are the
// process's: they are put back when the last load running ends, as they
// were before the first (see RATIONALE.md, "Start-up").
func pauseGC() (resume func()) {
	gcPauseMu.Lock()
	defer gcPauseMu.Unlock()
	if gcPauses == 0 {
		gcPauseCount++
		limit := debug.SetMemoryLimit(-1) // -1 reads it
		if total, ok := processMemory(); ok && total < math.MaxInt64-gcPauseHeadroom {
			debug.SetMemoryLimit(min(limit, total+gcPauseHeadroom))
		}
		gcPrevLimit = limit
		gcPrevPct = debug.SetGCPercent(-1)
	}
	gcPauses++
	return sync.OnceFunc(func() {
		gcPauseMu.Lock()
		defer gcPauseMu.Unlock()
		gcPauses--
		if gcPauses == 0 {
			debug.SetGCPercent(gcPrevPct)
			debug.SetMemoryLimit(gcPrevLimit)
		}
	})
}

// processMemory is the memory the Go runtime has mapped (what the memory
// limit is compared with).
func processMemory() (int64, bool) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return int64(s[0].Value.Uint64()), true
}
