package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/askcore/askcore/hub/server"
)

// serve turns the flags into a server.Config and runs it until ctx ends
// (a signal): the hub the tests start through server.Run.
func (c *cli) serve(ctx context.Context) error {
	metricsToken, err := c.metricsToken()
	if err != nil {
		return err
	}
	cfg := server.Config{
		Options: server.Options{
			BaseURL:      c.base,
			MetricsToken: metricsToken,
			Logger:       slog.New(slog.NewTextHandler(c.stderr, nil)),
		},
		Addr:           c.addr,
		TLSCertFile:    c.tlsCert,
		TLSKeyFile:     c.tlsKey,
		BehindTLSProxy: c.behindProxy,
		Ready: func(_ *server.Server, listening string) {
			fmt.Fprintf(c.stderr, "askcore-hub: listening on %s (store: %s, engine: %s)\n", listening, storeName(c.db), c.settings.Engine)
		},
	}
	// A Config that cannot be served is refused before the store opens.
	if err := cfg.Check(); err != nil {
		return asUsage(err)
	}
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
	cfg.Store, cfg.Core = store, core
	return asUsage(server.Run(ctx, cfg))
}

// asUsage makes a server.ConfigError a usage error (exit status 2).
func asUsage(err error) error {
	var ce server.ConfigError
	if errors.As(err, &ce) {
		return usageError{ce.Error()}
	}
	return err
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
