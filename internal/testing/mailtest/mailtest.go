// Package mailtest runs a real SMTP server for the tests of the hub's
// mail: mailpit (github.com/axllent/mailpit), started on loopback with
// free SMTP and HTTP ports, its mail read back through its HTTP API.
//
// The binary is found as $ASKCORE_MAILPIT, as mailpit on the PATH, or in
// BinDir (where .ci/run installs it); a test without it skips, saying how
// to install it, or fails in CI (package missing).
package mailtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/missing"
)

// Version is the mailpit the tests use.
const Version = "v1.33.1"

// Patience bounds every wait; only a failing test waits that long.
const Patience = 60 * time.Second

// BinDir is where .ci/run installs mailpit (GOBIN=$(BinDir) go install
// github.com/axllent/mailpit@Version): the user's cache directory.
func BinDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "askcore-tools", "bin")
}

// find returns mailpit's path, or "".
func find() string {
	if p := os.Getenv("ASKCORE_MAILPIT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("mailpit"); err == nil {
		return p
	}
	p := filepath.Join(BinDir(), "mailpit")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// Server is a running mailpit.
type Server struct {
	t testing.TB
	// SMTP is its SMTP address (127.0.0.1:PORT); API its HTTP root.
	SMTP string
	API  string
}

// Options tune Start.
type Options struct {
	// AllowedRecipients, when set, is a regular expression: mailpit
	// refuses (550) every other recipient.
	AllowedRecipients string
	// SMTP, when set, is the SMTP address to listen on (a test starts
	// the server where a hub failed to reach one); else a free loopback
	// port.
	SMTP string
}

// Start runs mailpit until the test ends, or ends the test as
// missing.Tool does.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin := find()
	if bin == "" {
		missing.Tool(t, fmt.Sprintf("no mailpit (a real SMTP server for the mail tests); install it with: GOBIN=%s go install github.com/axllent/mailpit@%s", BinDir(), Version))
	}
	smtpAddr, httpAddr := o.SMTP, freeAddr(t)
	if smtpAddr == "" {
		smtpAddr = freeAddr(t)
	}
	args := []string{"--smtp", smtpAddr, "--listen", httpAddr, "--database", filepath.Join(t.TempDir(), "mailpit.db"),
		"--disable-version-check", "--smtp-auth-accept-any", "--smtp-auth-allow-insecure", "--quiet"}
	if o.AllowedRecipients != "" {
		args = append(args, "--smtp-allowed-recipients", o.AllowedRecipients)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	s := &Server{t: t, SMTP: smtpAddr, API: "http://" + httpAddr}
	deadline := time.Now().Add(Patience)
	for {
		resp, err := http.Get(s.API + "/api/v1/info")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("mailpit ended at start: %s", log.String())
		case <-time.After(20 * time.Millisecond): // polling a condition
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit did not answer within %s: %s", Patience, log.String())
		}
	}
	return s
}

// freeAddr is a free loopback TCP address.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// URL is the SMTP URL of the server for the hub: smtp://HOST:PORT.
func (s *Server) URL() string { return "smtp://" + s.SMTP }

// Address is a mail address as mailpit gives it.
type Address struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// Summary is a message in mailpit's list.
type Summary struct {
	ID      string    `json:"ID"`
	Subject string    `json:"Subject"`
	To      []Address `json:"To"`
	From    Address   `json:"From"`
}

// Message is one message, parsed by mailpit.
type Message struct {
	ID      string    `json:"ID"`
	Subject string    `json:"Subject"`
	From    Address   `json:"From"`
	To      []Address `json:"To"`
	Text    string    `json:"Text"`
	HTML    string    `json:"HTML"`
	// Headers are the message's headers, as mailpit read them.
	Headers map[string][]string `json:"-"`
	// Raw is the message as it arrived.
	Raw string `json:"-"`
}

func (s *Server) get(path string, v any) []byte {
	s.t.Helper()
	resp, err := http.Get(s.API + path)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	require.Equal(s.t, http.StatusOK, resp.StatusCode, "GET %s: %s", path, b)
	if v != nil {
		require.NoError(s.t, json.Unmarshal(b, v), "GET %s: %s", path, b)
	}
	return b
}

// Messages lists the messages received so far, newest first.
func (s *Server) Messages() []Summary {
	s.t.Helper()
	var list struct {
		Messages []Summary `json:"messages"`
	}
	s.get("/api/v1/messages?limit=1000", &list)
	return list.Messages
}

// Wait waits until n messages arrived and returns them, newest first.
func (s *Server) Wait(n int) []Summary {
	s.t.Helper()
	deadline := time.Now().Add(Patience)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d messages within %s, not %d", len(s.Messages()), Patience, n)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition
	}
}

// Message reads one message whole: its parts, headers and raw source.
func (s *Server) Message(id string) Message {
	s.t.Helper()
	var m Message
	s.get("/api/v1/message/"+url.PathEscape(id), &m)
	s.get("/api/v1/message/"+url.PathEscape(id)+"/headers", &m.Headers)
	m.Raw = string(s.get("/api/v1/message/"+url.PathEscape(id)+"/raw", nil))
	return m
}

// String names the server, for messages.
func (s *Server) String() string { return fmt.Sprintf("mailpit at %s (SMTP %s)", s.API, s.SMTP) }
