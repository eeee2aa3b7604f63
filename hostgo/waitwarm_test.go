package hostgo

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWaitWarm: the wait for a load from a warm cache ends when the load
// is done, when ctx ends, at once for a zero budget, and otherwise only
// once the process has used the budget's CPU time (where it has a CPU
// clock): a machine too busy to give the process a core makes it wait
// longer, not fall back to the interpreter.
func TestWaitWarm(t *testing.T) {
	ctx := context.Background()
	never := make(chan struct{})
	waitWarm(ctx, never, 0)

	done := make(chan struct{})
	close(done)
	waitWarm(ctx, done, time.Hour)

	ended, cancel := context.WithCancel(ctx)
	cancel()
	waitWarm(ended, never, time.Hour)

	start, ok := processCPU()
	if !ok {
		t.Skip("SKIP: no process CPU clock on this platform (waitWarm uses wall time)")
	}
	const budget = 30 * time.Millisecond
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // a compile that burns CPU
		for x := 0; ; x++ {
			if x%1024 == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	})
	waitWarm(ctx, never, budget)
	used, _ := processCPU()
	close(stop)
	wg.Wait()
	assert.GreaterOrEqual(t, used-start, budget, "the wait ended before the process used its CPU budget")
}
