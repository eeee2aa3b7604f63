package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/chantest"
)

// TestConfigRefused: a Config that cannot be served is a ConfigError
// from Check and from Run, before Run listens or touches the store.
func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  server.Config
		want string // in the error; "" for a Config that can be served
	}{
		{"a certificate without its key", server.Config{TLSCertFile: "cert.pem"}, "go together"},
		{"an address without a port", server.Config{Addr: "127.0.0.1"}, "HOST:PORT"},
		{"plain HTTP off loopback", server.Config{Addr: "0.0.0.0:0"}, "refusing plain HTTP on 0.0.0.0:0"},
		{"a URL that is not http(s)", server.Config{Options: server.Options{BaseURL: "ftp://hub.example.com"}}, "http(s)://HOST[:PORT]"},
		{"a URL without a host", server.Config{Options: server.Options{BaseURL: "https://"}}, "http(s)://HOST[:PORT]"},
		{"plain HTTP behind a TLS proxy", server.Config{Addr: "0.0.0.0:0", BehindTLSProxy: true}, ""},
		{"TLS off loopback", server.Config{Addr: "0.0.0.0:0", TLSCertFile: "cert.pem", TLSKeyFile: "key.pem"}, ""},
		{"the defaults", server.Config{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Check()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var ce server.ConfigError
			require.True(t, errors.As(err, &ce), "a ConfigError: %v", err)
			assert.Contains(t, ce.Error(), tc.want)

			// Run refuses it too, and closes the listener it was given.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			cfg := tc.cfg
			if cfg.Addr == "" {
				cfg.Listener = ln
			} else {
				defer ln.Close()
			}
			err = server.Run(context.Background(), cfg)
			require.True(t, errors.As(err, &ce), "a ConfigError: %v", err)
			if cfg.Listener != nil {
				_, err := ln.Accept()
				assert.ErrorIs(t, err, net.ErrClosed, "Run closed the listener")
			}
		})
	}
}

// TestRunServesItsHosts: a hub with a public URL on loopback serves the
// URL's host and the loopback names on the port bound, and nothing else;
// an https URL makes it Secure.
func TestRunServesItsHosts(t *testing.T) {
	r := newReplica(t, db{"sqlite", filepath.Join(t.TempDir(), "hub.db")}, server.Options{BaseURL: "https://hub.example.com"})
	a := addAgent(t, r.store, "ada", "ci", 0)
	assert.Equal(t, "https://hub.example.com", r.srv.BaseURL())
	assert.True(t, r.srv.Secure())
	_, port, err := net.SplitHostPort(r.url[len("http://"):])
	require.NoError(t, err)
	for _, host := range []string{"hub.example.com", "127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		assertHubError(t, r.do("GET", "/v1/asks/x", a.token, "", "Host", host), http.StatusNotFound, "NOT_FOUND")
	}
	for _, host := range []string{"evil.example", "localhost:1", "hub.example.com.evil.example"} {
		assertHubError(t, r.do("GET", "/v1/asks/x", a.token, "", "Host", host), http.StatusMisdirectedRequest, "WRONG_HOST")
	}
}

// TestRunStopsGracefully: when its context ends, Run answers a long poll
// in flight with the ask's current state at once, stops, and returns nil;
// the store is still open and unharmed.
func TestRunStopsGracefully(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		s, err := store.Open(context.Background(), d.dsn)
		require.NoError(t, err)
		defer s.Close()
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		ready := make(chan *replica, 1)
		ran := make(chan error, 1)
		go func() {
			ran <- server.Run(ctx, server.Config{
				Options: server.Options{Store: s},
				Addr:    "127.0.0.1:0",
				Ready:   func(srv *server.Server, url string) { ready <- &replica{t: t, store: s, srv: srv, url: url} },
			})
		}()
		var r *replica
		select {
		case r = <-ready:
		case err := <-ran:
			t.Fatalf("the hub did not start: %v", err)
		}
		a := addAgent(t, s, "ada", "ci", 0)
		id := r.create(a, "c1")
		polled := r.waitingPoll(a, id, 60)
		start := time.Now()
		stop()
		resp := chantest.Receive(t, polled, waitLong, "the long poll was not answered")
		require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
		assert.Equal(t, "pending", resp.json(t)["state"])
		select {
		case err := <-ran:
			assert.NoError(t, err)
		case <-time.After(waitLong):
			t.Fatal("Run did not return")
		}
		assert.Less(t, time.Since(start), 10*time.Second, "well within the shutdown grace")
		asks, err := s.Asks(context.Background(), store.AskFilter{PersonID: a.person, State: store.StatePending})
		require.NoError(t, err)
		assert.Len(t, asks, 1)
	})
}
