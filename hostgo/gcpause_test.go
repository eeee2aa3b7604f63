package hostgo

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPauseGC: pauses nest; while one runs the collector's pacing is off
// and a memory limit stands in for it; when the last ends the process's
// own settings are back, whatever they were.
func TestPauseGC(t *testing.T) {
	prevPct := debug.SetGCPercent(150)
	prevLimit := debug.SetMemoryLimit(1 << 40)
	defer func() {
		debug.SetGCPercent(prevPct)
		debug.SetMemoryLimit(prevLimit)
	}()

	resume1 := pauseGC()
	resume2 := pauseGC()
	assert.Equal(t, -1, debug.SetGCPercent(-1), "pacing on during a pause")
	limit := debug.SetMemoryLimit(-1)
	assert.Less(t, limit, int64(1<<40), "no memory limit during a pause")
	total, ok := processMemory()
	require.True(t, ok)
	assert.GreaterOrEqual(t, limit, total, "the limit is below what the process has")

	resume1()
	resume1() // a second call changes nothing
	assert.Equal(t, -1, debug.SetGCPercent(-1), "pacing back while a pause still runs")
	resume2()
	assert.Equal(t, 150, debug.SetGCPercent(150))
	assert.Equal(t, int64(1<<40), debug.SetMemoryLimit(-1))
}

// TestWarmLoadPausesGC: a New on a warm on-disk cache loads the compiled
// module with the collector paused, and the process's settings are back
// once New returns.
func TestWarmLoadPausesGC(t *testing.T) {
	ctx := context.Background()
	// A directory of its own holding the run's compiled module, marked
	// warm: no Engine of this process has loaded it, so New loads it from
	// disk (without a compile of its own, which under -race costs seconds).
	dir := t.TempDir()
	seedCompiledCode(t, dir)
	markCacheWarm(dir)
	opts := []Option{WithCompilationCacheDir(dir), WithTieredStart(false)}

	pct := debug.SetGCPercent(-1)
	debug.SetGCPercent(pct)
	before, cold := gcPausesBegun(), coldCompiles.Load()
	e2, err := New(ctx, opts...)
	require.NoError(t, err)
	defer e2.Close(ctx)
	require.Equal(t, cold, coldCompiles.Load(), "New compiled instead of loading from the warm cache")
	assert.Greater(t, gcPausesBegun(), before, "the warm load did not pause the collector")
	assert.Equal(t, pct, debug.SetGCPercent(pct), "the GC percent was not restored")
}
