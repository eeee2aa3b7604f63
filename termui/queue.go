package termui

import (
	"context"
	"slices"
	"sync"
)

// queue is a FIFO mutex whose waiters can give up: only one question owns
// the terminal at a time, the others wait their turn in arrival order.
type queue struct {
	mu      sync.Mutex
	busy    bool
	waiters []chan struct{}
}

// acquire waits for the turn or for ctx. On error the caller does not hold
// the turn.
func (q *queue) acquire(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.waiters = append(q.waiters, ch)
	q.mu.Unlock()

	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		if i := slices.Index(q.waiters, ch); i >= 0 {
			q.waiters = slices.Delete(q.waiters, i, i+1)
			q.mu.Unlock()
		} else {
			// The turn was handed to us as we gave up: pass it on.
			q.mu.Unlock()
			q.release()
		}
		return ctx.Err()
	}
}

// release hands the turn to the longest waiter, or frees it.
func (q *queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiters) == 0 {
		q.busy = false
		return
	}
	ch := q.waiters[0]
	q.waiters = q.waiters[1:]
	close(ch)
}

// waiting reports how many questions wait for the turn.
func (q *queue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiters)
}
