package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askcore/askcore/hub/notify"
)

// DefaultAddr is where a hub listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7433"

// Config is a whole hub: every setting askcore-hub serve turns its flags
// into. Run serves it.
type Config struct {
	// Options are the server's: Store (required; Run does not close it),
	// Core, Logger, MetricsToken, the clock and the rate limits.
	//
	// BaseURL is the URL people and agents open the hub at when it is
	// not the listening address (a proxy's name); empty: the listening
	// URL. Hosts, when empty, are BaseURL's host and, when the hub
	// listens on loopback or has no BaseURL, the loopback names on the
	// port bound. Secure is implied by TLS, BehindTLSProxy or an https
	// BaseURL.
	Options

	// Addr is the HOST:PORT to listen on (default DefaultAddr; port 0:
	// any free port, which Ready reports).
	Addr string
	// Listener, when set, is served instead of listening on Addr; Run
	// closes it.
	Listener net.Listener
	// TLSCertFile and TLSKeyFile, together, serve HTTPS.
	TLSCertFile, TLSKeyFile string
	// BehindTLSProxy: a reverse proxy in front terminates TLS, so plain
	// HTTP on a non-loopback address is allowed.
	BehindTLSProxy bool

	// Notify configures the notifier; Run sets its Store, InboxURL and
	// Logger when empty.
	Notify notify.Options
	// Timeouts bound the HTTP server's connections (zero: defaults).
	Timeouts Timeouts

	// Ready, when set, is called once the hub serves, with the server
	// and the URL it listens at (scheme://host:port): how a test that
	// listens on port 0 learns where.
	Ready func(srv *Server, listening string)
}

// Timeouts of a hub's HTTP server. Zero fields take the defaults.
type Timeouts struct {
	// ReadHeader (default 10 s) and Read (default 30 s) bound reading a
	// request.
	ReadHeader, Read time.Duration
	// Write bounds writing a response (default MaxWait + 30 s: a long
	// poll lasts up to MaxWait).
	Write time.Duration
	// Idle bounds a kept-alive connection between requests (default 2
	// minutes).
	Idle time.Duration
	// Shutdown bounds how long a stopping hub waits for requests in
	// flight (default 10 s; long polls are released at once).
	Shutdown time.Duration
}

func (t Timeouts) orDefaults() Timeouts {
	d := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	return Timeouts{
		ReadHeader: d(t.ReadHeader, 10*time.Second),
		Read:       d(t.Read, 30*time.Second),
		Write:      d(t.Write, MaxWait*time.Second+30*time.Second),
		Idle:       d(t.Idle, 2*time.Minute),
		Shutdown:   d(t.Shutdown, 10*time.Second),
	}
}

// ConfigError is a Config that cannot be served: Run refuses it before
// it listens or touches the store.
type ConfigError struct{ msg string }

func (e ConfigError) Error() string { return e.msg }

// Check reports whether cfg can be served (a ConfigError when not)
// without listening or touching the store: a caller may check before it
// opens the store.
func (cfg Config) Check() error {
	_, _, err := cfg.check()
	return err
}

// check returns the host to listen on and the parsed BaseURL (nil when
// none).
func (cfg Config) check() (host string, base *url.URL, err error) {
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		return "", nil, ConfigError{"a TLS certificate and its key go together (--tls-cert, --tls-key)"}
	}
	addr := cfg.addr()
	host, _, err = net.SplitHostPort(addr)
	if err != nil {
		return "", nil, ConfigError{"the address is HOST:PORT (--addr): " + err.Error()}
	}
	if !isLoopbackName(host) && cfg.TLSCertFile == "" && !cfg.BehindTLSProxy {
		return "", nil, ConfigError{fmt.Sprintf("refusing plain HTTP on %s, which is not a loopback address: agent tokens and answers would cross the network in clear. "+
			"Give a TLS certificate and key (--tls-cert, --tls-key), or say that a reverse proxy in front terminates TLS (--behind-tls-proxy)", addr)}
	}
	if cfg.BaseURL != "" {
		base, err = url.Parse(cfg.BaseURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return "", nil, ConfigError{"the hub's URL is http(s)://HOST[:PORT] (--url)"}
		}
	}
	return host, base, nil
}

func (cfg Config) addr() string {
	switch {
	case cfg.Listener != nil:
		return cfg.Listener.Addr().String()
	case cfg.Addr != "":
		return cfg.Addr
	}
	return DefaultAddr
}

// Run serves the hub of cfg until ctx ends: the agent API, /mcp, the
// inbox and /metrics, the clock that expires asks and the notifier. Then
// it stops gracefully: long polls answer the ask's current state at once,
// the requests in flight finish (within Timeouts.Shutdown), and the
// notifier stops before Run returns, so the caller may close the store.
// It returns nil after such a stop, a ConfigError for a Config it cannot
// serve, and the error that stopped serving otherwise.
func Run(ctx context.Context, cfg Config) error {
	host, base, err := cfg.check()
	if err != nil {
		if cfg.Listener != nil {
			cfg.Listener.Close()
		}
		return err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	tlsOn := cfg.TLSCertFile != ""

	ln := cfg.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.addr()); err != nil {
			return err
		}
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	listening := scheme + "://" + ln.Addr().String()
	opts := cfg.Options
	opts.Logger = logger
	if len(opts.Hosts) == 0 {
		_, actualPort, _ := net.SplitHostPort(ln.Addr().String())
		if base != nil {
			opts.Hosts = append(opts.Hosts, strings.ToLower(base.Host))
		}
		if isLoopbackName(host) || base == nil {
			// The loopback names, on the port actually bound.
			opts.Hosts = append(opts.Hosts, "127.0.0.1:"+actualPort, "localhost:"+actualPort, "[::1]:"+actualPort)
			if !isLoopbackName(host) {
				opts.Hosts = append(opts.Hosts, net.JoinHostPort(host, actualPort))
			}
		}
	}
	if base == nil {
		opts.BaseURL = listening
	}
	opts.Secure = opts.Secure || tlsOn || cfg.BehindTLSProxy || (base != nil && base.Scheme == "https")
	srv, err := New(opts)
	if err != nil {
		ln.Close()
		return err
	}
	to := cfg.Timeouts.orDefaults()
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: to.ReadHeader,
		ReadTimeout:       to.Read,
		WriteTimeout:      to.Write,
		IdleTimeout:       to.Idle,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if tlsOn {
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	expired := make(chan struct{})
	go func() { srv.Expire(runCtx); close(expired) }()
	nopts := cfg.Notify
	if nopts.Store == nil {
		nopts.Store = opts.Store
	}
	if nopts.InboxURL == "" {
		nopts.InboxURL = srv.BaseURL() + "/"
	}
	if nopts.Logger == nil {
		nopts.Logger = logger
	}
	notifier := notify.New(nopts)
	notified := make(chan struct{})
	go func() { notifier.Run(runCtx); close(notified) }()
	// The caller closes the store after Run: the clock and the notifier
	// have stopped using it by then.
	defer func() { srv.Close(); stopRun(); <-expired; <-notified }()

	served := make(chan error, 1)
	go func() {
		if tlsOn {
			served <- hs.ServeTLS(ln, cfg.TLSCertFile, cfg.TLSKeyFile)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	if cfg.Ready != nil {
		cfg.Ready(srv, listening)
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Graceful: long polls answer the current state at once (the agents
	// poll again, here after a restart or on another replica), then the
	// requests in flight finish.
	logger.Info("stopping")
	srv.Close()
	stopRun()
	sctx, cancel := context.WithTimeout(context.Background(), to.Shutdown)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
