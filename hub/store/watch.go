package store

import "sync"

// watchers are the Watch channels of one Store, by key.
type watchers struct {
	mu   sync.Mutex
	keys map[string]map[chan struct{}]struct{}
}

func newWatchers() *watchers {
	return &watchers{keys: map[string]map[chan struct{}]struct{}{}}
}

func (w *watchers) watch(key string) (<-chan struct{}, func()) {
	c := make(chan struct{}, 1) // one pending wake-up: they coalesce
	w.mu.Lock()
	set := w.keys[key]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		w.keys[key] = set
	}
	set[c] = struct{}{}
	w.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			w.mu.Lock()
			delete(w.keys[key], c)
			if len(w.keys[key]) == 0 {
				delete(w.keys, key)
			}
			w.mu.Unlock()
		})
	}
}

// notify wakes the watchers of keys, never blocking.
func (w *watchers) notify(keys ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range keys {
		for c := range w.keys[k] {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

// notifyAll wakes every watcher: after a lost connection, any change may
// have been missed.
func (w *watchers) notifyAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, set := range w.keys {
		for c := range set {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

// closeAll wakes every watcher a last time when the store closes.
func (w *watchers) closeAll() { w.notifyAll() }
