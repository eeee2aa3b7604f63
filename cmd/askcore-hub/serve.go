package main

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
	"github.com/askcore/askcore/hub/server"
)

// shutdownGrace bounds how long a stopping hub waits for requests in
// flight (long polls are released at once).
const shutdownGrace = 10 * time.Second

func (c *cli) serve(ctx context.Context) error {
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return usageError{"--tls-cert and --tls-key go together"}
	}
	metricsToken, err := c.metricsToken()
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return usageError{"--addr is HOST:PORT: " + err.Error()}
	}
	tlsOn := c.tlsCert != ""
	if !loopback(host) && !tlsOn && !c.behindProxy {
		return usageError{fmt.Sprintf("refusing plain HTTP on %s, which is not a loopback address: agent tokens and answers would cross the network in clear. "+
			"Give --tls-cert and --tls-key, or --behind-tls-proxy when a reverse proxy in front terminates TLS", c.addr)}
	}
	var base *url.URL
	if c.base != "" {
		base, err = url.Parse(c.base)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return usageError{"--url is http(s)://HOST[:PORT]"}
		}
	}

	logger := slog.New(slog.NewTextHandler(c.stderr, nil))
	core, closeCore, err := c.settings.Open(ctx)
	if err != nil {
		return err
	}
	defer closeCore(context.WithoutCancel(ctx))
	store, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	listening := scheme + "://" + ln.Addr().String()
	_, actualPort, _ := net.SplitHostPort(ln.Addr().String())
	hosts := []string{}
	if base != nil {
		hosts = append(hosts, strings.ToLower(base.Host))
	}
	if loopback(host) || base == nil {
		// The loopback names, on the port actually bound.
		hosts = append(hosts, "127.0.0.1:"+actualPort, "localhost:"+actualPort, "[::1]:"+actualPort)
		if !loopback(host) {
			hosts = append(hosts, net.JoinHostPort(host, actualPort))
		}
	}
	baseURL := listening
	if base != nil {
		baseURL = strings.TrimSuffix(base.String(), "/")
	}
	srv, err := server.New(server.Options{
		Store: store, Core: core, Hosts: hosts, Logger: logger, MetricsToken: metricsToken,
		BaseURL: baseURL, Secure: tlsOn || c.behindProxy || (base != nil && base.Scheme == "https"),
	})
	if err != nil {
		ln.Close()
		return err
	}
	srv.MountInbox()
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// A long poll lasts up to a minute.
		WriteTimeout:   server.MaxWait*time.Second + 30*time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 32 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if tlsOn {
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	go srv.Run(runCtx)
	notifier := notify.New(notify.Options{Store: store, InboxURL: baseURL + "/", Logger: logger})
	notified := make(chan struct{})
	go func() { notifier.Run(runCtx); close(notified) }()
	// The store closes after the notifier stopped using it.
	defer func() { stopRun(); <-notified }()

	served := make(chan error, 1)
	go func() {
		if tlsOn {
			served <- hs.ServeTLS(ln, c.tlsCert, c.tlsKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	fmt.Fprintf(c.stderr, "askcore-hub: listening on %s (store: %s, engine: %s)\n", listening, storeName(c.db), c.settings.Engine)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Graceful: long polls answer the current state at once (the agents
	// poll again, here after a restart or on another replica), then the
	// requests in flight finish.
	fmt.Fprintln(c.stderr, "askcore-hub: stopping")
	srv.Close()
	stopRun()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// storeName names the store for the log, without a password.
func storeName(db string) string {
	if u, err := url.Parse(db); err == nil && u.User != nil {
		u.User = url.User(u.User.Username())
		return u.String()
	}
	if db == "" {
		return "default SQLite file"
	}
	return db
}
