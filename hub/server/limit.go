package server

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiters are token buckets by key (an agent, a client address). Idle
// buckets are dropped once full again, so the map stays small.
type limiters struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	m     map[string]*rate.Limiter
	swept time.Time
}

func newLimiters(perSecond float64, burst int) *limiters {
	return &limiters{rate: rate.Limit(perSecond), burst: burst, m: map[string]*rate.Limiter{}}
}

// allow takes one token of key's bucket.
func (l *limiters) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.m {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.m, k)
			}
		}
		l.swept = now
	}
	b := l.m[key]
	if b == nil {
		b = rate.NewLimiter(l.rate, l.burst)
		l.m[key] = b
	}
	return b.AllowN(now, 1)
}

// exhausted reports whether key's bucket is empty, without taking a
// token.
func (l *limiters) exhausted(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[key]
	return b != nil && b.TokensAt(now) < 1
}
