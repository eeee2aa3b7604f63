package notify

import (
	"bufio"
	"context"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gomail "github.com/wneessen/go-mail"

	"github.com/askcore/askcore/internal/testing/chantest"
)

// The hub's TLS rule for SMTP (docs/HARDENING.md H42): smtps is TLS from
// the first byte; smtp to a loopback server may be plain; smtp to any
// other server requires STARTTLS.
func TestSMTPSecurity(t *testing.T) {
	for _, c := range []struct {
		url    string
		ssl    bool
		policy gomail.TLSPolicy
	}{
		{"smtps://mail.example.com:465", true, gomail.TLSMandatory},
		{"smtps://127.0.0.1:465", true, gomail.TLSMandatory},
		{"smtp://127.0.0.1:25", false, gomail.TLSOpportunistic},
		{"smtp://127.9.8.7:25", false, gomail.TLSOpportunistic},
		{"smtp://[::1]:25", false, gomail.TLSOpportunistic},
		{"smtp://localhost:25", false, gomail.TLSOpportunistic},
		{"smtp://mail.example.com:587", false, gomail.TLSMandatory},
		{"smtp://192.0.2.1:25", false, gomail.TLSMandatory},
		{"smtp://[2001:db8::1]:25", false, gomail.TLSMandatory},
		{"smtp://localhost.example.com:25", false, gomail.TLSMandatory},
		{"smtp://127.0.0.1.example.com:25", false, gomail.TLSMandatory},
		{"smtp://0.0.0.0:25", false, gomail.TLSMandatory},
	} {
		t.Run(c.url, func(t *testing.T) {
			require.NoError(t, CheckSMTPURL(c.url))
			u, err := url.Parse(c.url)
			require.NoError(t, err)
			ssl, policy := smtpSecurity(u.Scheme, u.Hostname())
			assert.Equal(t, c.ssl, ssl, "TLS from the first byte")
			assert.Equal(t, c.policy, policy)
		})
	}
}

// What a server that offers no STARTTLS sees of the hub's client: a
// loopback server gets the mail in clear; the same server reached at a
// non-loopback address of this machine gets EHLO and nothing more (the
// client stops, STARTTLS being required); smtps opens with a TLS
// handshake.
func TestSMTPWithoutSTARTTLS(t *testing.T) {
	srv := newPlainSMTP(t)
	n := New(Options{Timeout: 10 * time.Second})
	for _, c := range []struct {
		name, scheme, host string
		// saw is what the server sees, up to the client's QUIT when it
		// sends one.
		saw []string
	}{
		{"loopback", "smtp", "127.0.0.1", []string{"EHLO", "MAIL", "RCPT", "DATA"}},
		{"localhost", "smtp", "localhost", []string{"EHLO", "MAIL", "RCPT", "DATA"}},
		{"not loopback", "smtp", nonLoopbackIP(t), []string{"EHLO"}},
		{"smtps", "smtps", "127.0.0.1", []string{"a TLS handshake"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.host == "" {
				t.Skip("no non-loopback address on this machine; TestSMTPSecurity holds the rule")
			}
			client, err := n.smtpClient(c.scheme+"://"+net.JoinHostPort(c.host, srv.port), "")
			require.NoError(t, err)
			m := gomail.NewMsg()
			require.NoError(t, m.From("hub@example.com"))
			require.NoError(t, m.To("ada@example.com"))
			m.Subject("s")
			m.SetBodyString(gomail.TypeTextPlain, "b")
			err = client.DialAndSendWithContext(context.Background(), m)
			sent := c.saw[len(c.saw)-1] == "DATA"
			if sent {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
			if c.name == "not loopback" {
				assert.ErrorContains(t, err, "STARTTLS")
			}
			var saw []string
			for {
				// The server logs a command before it answers it: once the
				// client returned, what it sent is logged, but for the TLS
				// handshake, logged once the server read it.
				if !sent && len(saw) == len(c.saw) {
					break
				}
				e := chantest.Receive(t, srv.saw, 30*time.Second, "the server saw no more")
				if e == "QUIT" {
					break
				}
				if e != "NOOP" && e != "RSET" {
					saw = append(saw, e)
				}
			}
			assert.Equal(t, c.saw, saw)
			select {
			case e := <-srv.saw:
				t.Errorf("the server saw %q after the client returned", e)
			default:
			}
		})
	}
}

// nonLoopbackIP is an IPv4 address of this machine that is not loopback,
// or "".
func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// plainSMTP is an SMTP server on every address of the machine that
// offers no STARTTLS and takes any mail. It logs each command's verb to
// saw before answering it, or "a TLS handshake" for a client that opens
// with one.
type plainSMTP struct {
	port string
	saw  chan string
}

func newPlainSMTP(t *testing.T) *plainSMTP {
	l, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	s := &plainSMTP{port: port, saw: make(chan string, 100)}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		var served sync.WaitGroup
		defer served.Wait()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			served.Add(1)
			go func() { defer served.Done(); s.serve(conn) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		// A client that stopped after EHLO may leave its connection open.
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		<-done
	})
	return s
}

func (s *plainSMTP) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	reply := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	reply("220 plain.test ESMTP")
	if b, err := r.Peek(1); err == nil && b[0] == 0x16 {
		s.saw <- "a TLS handshake"
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(line)), " ")
		verb, _, _ = strings.Cut(verb, ":")
		s.saw <- verb
		switch verb {
		case "EHLO", "HELO":
			reply("250 plain.test") // and no STARTTLS
		case "DATA":
			reply("354 go on")
			for {
				if l, err := r.ReadString('\n'); err != nil || l == ".\r\n" {
					break
				}
			}
			reply("250 taken")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("250 ok")
		}
	}
}
