// Package server is askcore-hub's server: the agent API (/v1/asks), the
// same agents' remote MCP endpoint (/mcp), the person's inbox, /metrics,
// the clock that expires asks past their agent's deadline, and the
// notifier. Run serves a whole hub from a Config (what askcore-hub serve
// does); New builds its HTTP handler alone. The rules are the hub's
// core's: it normalizes every call and judges every reply.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/store"
)

// Limits of the agent API.
const (
	// MaxWait is the longest long poll, in seconds.
	MaxWait = 60
	// MaxIDBytes bounds a tool call id and a session id.
	MaxIDBytes = 256
)

// Options configure a Server.
type Options struct {
	Store store.Store
	// Core normalizes calls and judges replies (nil: the native core).
	Core *askcore.Core
	// Hosts are the Host header values served (host or host:port); a
	// request for any other is refused (DNS rebinding). Empty: any
	// loopback name on any port.
	Hosts []string
	// BaseURL is the URL people open the hub at (sign-in links, Origin
	// checks), e.g. "http://127.0.0.1:7433" or "https://hub.example.com".
	BaseURL string
	// Secure: people reach the hub over TLS (its own, or a proxy's), so
	// cookies are Secure.
	Secure bool
	// MetricsToken, when set, lets a request with "Authorization: Bearer
	// MetricsToken" read /metrics from anywhere; without it, /metrics is
	// served to direct loopback connections only.
	MetricsToken string
	// Logger (nil: discard).
	Logger *slog.Logger
	// ExpireEvery is how often due asks are expired (0: every second).
	ExpireEvery time.Duration
	// KeepAlive is how often an idle inbox event stream gets a comment
	// that keeps proxies from closing it (0: 15 s).
	KeepAlive time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// AgentRate and AgentBurst limit the requests of one agent token per
	// second (0: 20 and 200). AuthFailRate and AuthFailBurst limit failed
	// authentications per client address (0: 1 and 20).
	AgentRate, AuthFailRate   float64
	AgentBurst, AuthFailBurst int
}

// Server is a hub's HTTP side. Run makes and serves one; to serve it
// yourself, create it with New, serve Handler, run Expire for the expiry
// clock, and Close to release the waiters.
type Server struct {
	store   store.Store
	core    *askcore.Core
	hosts   map[string]bool
	log     *slog.Logger
	now     func() time.Time
	expire  time.Duration
	keep    time.Duration // Options.KeepAlive
	metrics *metrics
	mtoken  string
	base    string
	secure  bool

	mux     *http.ServeMux
	handler http.Handler

	agentLimits *limiters
	authLimits  *limiters

	closing   chan struct{} // closed by Close: long polls return at once
	closeOnce sync.Once
}

// New returns a server on opts.Store.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("hub server: no store")
	}
	s := &Server{
		store:   opts.Store,
		core:    opts.Core,
		hosts:   map[string]bool{},
		log:     opts.Logger,
		now:     opts.Now,
		expire:  opts.ExpireEvery,
		keep:    opts.KeepAlive,
		metrics: newMetrics(),
		mtoken:  opts.MetricsToken,
		base:    strings.TrimSuffix(opts.BaseURL, "/"),
		secure:  opts.Secure,
		mux:     http.NewServeMux(),
		closing: make(chan struct{}),
	}
	if s.core == nil {
		s.core = askcore.NewCore(nil)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.expire <= 0 {
		s.expire = time.Second
	}
	for _, h := range opts.Hosts {
		s.hosts[strings.ToLower(h)] = true
	}
	s.agentLimits = newLimiters(or(opts.AgentRate, 20), orInt(opts.AgentBurst, 200))
	s.authLimits = newLimiters(or(opts.AuthFailRate, 1), orInt(opts.AuthFailBurst, 20))
	s.routes()
	s.handler = s.guard(s.mux)
	return s, nil
}

func or(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// routes registers every route group of the hub, here and nowhere else:
// the agent API and /metrics, the inbox, the MCP endpoint.
func (s *Server) routes() {
	s.apiRoutes()
	s.inboxRoutes()
	s.mcpRoutes()
	s.linkRoutes()
}

// apiRoutes registers the agent API (/v1/asks) and /metrics.
func (s *Server) apiRoutes() {
	s.mux.HandleFunc("POST /v1/asks", s.createAsk)
	s.mux.HandleFunc("GET /v1/asks/{id}", s.getAsk)
	s.mux.HandleFunc("DELETE /v1/asks/{id}", s.deleteAsk)
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	// Other methods on the hub's routes, and other /v1/ paths, get a
	// structured refusal too, not the mux's plain text.
	notAllowed := func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusMethodNotAllowed, hubError(codeFor(http.StatusMethodNotAllowed), r.Method+" is not served on "+quote(r.URL.Path)))
	}
	s.mux.HandleFunc("/v1/asks", notAllowed)
	s.mux.HandleFunc("/v1/asks/{id}", notAllowed)
	s.mux.HandleFunc("/metrics", notAllowed)
	s.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, hubError(codeFor(http.StatusNotFound), "no such route: "+r.Method+" "+quote(r.URL.Path)))
	})
}

// BaseURL is the URL people open the hub at, without a final slash.
func (s *Server) BaseURL() string { return s.base }

// Secure reports whether people reach the hub over TLS.
func (s *Server) Secure() bool { return s.secure }

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Store is the server's store.
func (s *Server) Store() store.Store { return s.store }

// Core is the server's core.
func (s *Server) Core() *askcore.Core { return s.core }

// Now is the server's clock.
func (s *Server) Now() time.Time { return s.now() }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Closing is closed when the server stops: a long-lived response (a
// long poll, an event stream) ends then.
func (s *Server) Closing() <-chan struct{} { return s.closing }

// Close releases every long poll (they answer the ask's current state)
// so that an http.Server's Shutdown can finish.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.closing) }) }

// Expire expires due asks until ctx is done or the server closes: the
// hub's clock, which Run runs.
func (s *Server) Expire(ctx context.Context) {
	t := time.NewTicker(s.expire)
	defer t.Stop()
	for {
		s.expireDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		case <-t.C:
		}
	}
}

func (s *Server) expireDue(ctx context.Context) {
	asks, err := s.store.ExpireDue(ctx, s.now())
	if err != nil && ctx.Err() == nil {
		s.log.Error("expiring asks", "err", err)
	}
	for _, a := range asks {
		s.log.Info("ask expired", "ask", a.ID, "agent", a.AgentName)
	}
}

// guard refuses a request for a Host the hub does not serve (DNS
// rebinding) and sets the headers of every response: nothing is cached,
// sniffed or framed, and there is no CORS header at all.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		if !s.hostAllowed(r.Host) {
			WriteError(w, http.StatusMisdirectedRequest, hubError(codeFor(http.StatusMisdirectedRequest), "this hub does not serve the host "+quote(r.Host)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if len(s.hosts) > 0 {
		if s.hosts[host] {
			return true
		}
		if h, _, err := net.SplitHostPort(host); err == nil && s.hosts[h] {
			return true
		}
		return false
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	return isLoopbackName(h)
}

func isLoopbackName(h string) bool {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a new secret token (256 random bits, base64url) and
// its hash as the store keeps it.
func NewToken(prefix string) (token, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	token = prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token)
}

// HashToken is the stored form of a token: hex SHA-256. The token has
// 256 random bits, so a fast hash loses nothing.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AgentTokenPrefix begins every agent token, so that a leaked one is
// recognisable (secret scanners).
const AgentTokenPrefix = "askcore_agent_"

// clientAddr is the remote address without its port: the key of the
// failed-authentication limit.
func clientAddr(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}
