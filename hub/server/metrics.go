package server

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askcore/askcore/hub/store"
)

// replyBuckets are the upper bounds, in seconds, of the time-to-reply
// histogram: a person answers in seconds to hours.
var replyBuckets = []float64{1, 5, 15, 30, 60, 300, 900, 3600, 14400, 86400}

type metrics struct {
	mu       sync.Mutex
	counts   []uint64 // per bucket, not cumulative; the last is +Inf
	sum      float64
	n        uint64
	created  uint64
	authFail uint64
	polls    int64 // long polls waiting now
}

func newMetrics() *metrics { return &metrics{counts: make([]uint64, len(replyBuckets)+1)} }

func (m *metrics) observeReply(d time.Duration) {
	sec := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	i := 0
	for i < len(replyBuckets) && sec > replyBuckets[i] {
		i++
	}
	m.counts[i]++
	m.sum += sec
	m.n++
}

func (m *metrics) addPolls(d int64) {
	m.mu.Lock()
	m.polls += d
	m.mu.Unlock()
}

func (m *metrics) inc(c *uint64) {
	m.mu.Lock()
	*c++
	m.mu.Unlock()
}

// serveMetrics writes the Prometheus text format. Pending asks are
// counted in the store (every replica's); the counters and the histogram
// are this process's.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if !s.metricsAllowed(r) {
		WriteError(w, http.StatusForbidden, hubError(codeFor(http.StatusForbidden),
			"/metrics is served to loopback connections, or with the metrics token"))
		return
	}
	pending, err := s.store.CountAsks(r.Context(), store.StatePending)
	if err != nil {
		WriteError(w, http.StatusServiceUnavailable, hubError(codeFor(http.StatusServiceUnavailable), "the store failed"))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# HELP askcore_hub_pending_asks Asks waiting for a person, in the store.\n# TYPE askcore_hub_pending_asks gauge\naskcore_hub_pending_asks %d\n", pending)
	m := s.metrics
	m.mu.Lock()
	fmt.Fprintf(&b, "# HELP askcore_hub_asks_created_total Asks this process created.\n# TYPE askcore_hub_asks_created_total counter\naskcore_hub_asks_created_total %d\n", m.created)
	fmt.Fprintf(&b, "# HELP askcore_hub_auth_failures_total Requests refused for a missing, wrong or revoked token.\n# TYPE askcore_hub_auth_failures_total counter\naskcore_hub_auth_failures_total %d\n", m.authFail)
	fmt.Fprintf(&b, "# HELP askcore_hub_long_polls Agents waiting in a long poll on this process.\n# TYPE askcore_hub_long_polls gauge\naskcore_hub_long_polls %d\n", m.polls)
	b.WriteString("# HELP askcore_hub_time_to_reply_seconds From an ask to the reply that won, for replies this process stored.\n# TYPE askcore_hub_time_to_reply_seconds histogram\n")
	var cum uint64
	for i, le := range replyBuckets {
		cum += m.counts[i]
		fmt.Fprintf(&b, "askcore_hub_time_to_reply_seconds_bucket{le=\"%g\"} %d\n", le, cum)
	}
	cum += m.counts[len(replyBuckets)]
	fmt.Fprintf(&b, "askcore_hub_time_to_reply_seconds_bucket{le=\"+Inf\"} %d\naskcore_hub_time_to_reply_seconds_sum %g\naskcore_hub_time_to_reply_seconds_count %d\n", cum, m.sum, m.n)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

// metricsAllowed: the metrics token, or a direct loopback connection (a
// request a proxy forwarded says so, and a proxy on the same machine
// would otherwise make every client look local).
func (s *Server) metricsAllowed(r *http.Request) bool {
	if s.mtoken != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.mtoken)) == 1
	}
	if r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" || r.Header.Get("X-Real-Ip") != "" {
		return false
	}
	ip := net.ParseIP(clientAddr(r))
	return ip != nil && ip.IsLoopback()
}
