package server_test

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/chantest"
	"github.com/askcore/askcore/internal/testing/mailtest"
	"github.com/askcore/askcore/internal/testing/pgtest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// Two replicas on one PostgreSQL database, each with its notifier: each
// ask is mailed once.
func TestEmailOncePerAskAcrossReplicas(t *testing.T) {
	mail := mailtest.Start(t, mailtest.Options{})
	d := db{"postgres", pgtest.NewDB(t)}
	r1, r2 := newNotifyingReplica(t, d), newNotifyingReplica(t, d)
	a := addAgent(t, r1.store, "ada", "laptop", 0)
	addMailTarget(t, r1.store, a, mail, "ada@example.com")
	const asks = 6
	for i := range asks {
		r := []*replica{r1, r2}[i%2]
		r.create(a, "c"+string(rune('0'+i)))
	}
	mail.Wait(asks)
	waitOutboxDelivered(t, r1.store)
	msgs := mail.Messages()
	assert.Len(t, msgs, asks, "one mail per ask")
	seen := map[string]bool{}
	for _, m := range msgs {
		body := mail.Message(m.ID).Text
		links := linkRE.FindAllString(body, -1)
		require.Len(t, links, 2)
		assert.False(t, seen[links[0]])
		seen[links[0]] = true
	}
}

// waitOutboxDelivered waits until no outbox row is left to deliver, now
// or later.
func waitOutboxDelivered(t *testing.T, s store.Store) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		due, err := s.DueOutbox(context.Background(), time.Now().Add(24*time.Hour), 100)
		require.NoError(t, err)
		if len(due) == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "outbox rows left: %v", due)
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
}

// An SMTP server that cannot be reached is retried after the backoff,
// and the hub keeps serving meanwhile: once the server is up at that
// address, the retry delivers the one mail. A recipient the server
// refuses (550) is given up at once.
func TestEmailUnreachableAndRefused(t *testing.T) {
	ctx := context.Background()
	t.Run("unreachable", func(t *testing.T) {
		eachDB(t, func(t *testing.T, d db) {
			// The backoff after the first failed attempt is the test's clock:
			// it holds the retry until the server is up, then makes it due.
			failed, retry := make(chan int, 1), make(chan struct{})
			r := newReplicaConfig(t, d, server.Config{Notify: notify.Options{Timeout: 5 * time.Second, Poll: 10 * time.Millisecond,
				Backoff: func(n int) time.Duration { failed <- n; <-retry; return 0 }}})
			released := false
			release := func() {
				if !released {
					released = true
					close(retry)
				}
			}
			t.Cleanup(release) // before the hub stops (cleanups run last first)
			a := addAgent(t, r.store, "ada", "laptop", 0)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			closed := l.Addr().String()
			require.NoError(t, l.Close())
			_, err = r.store.AddNotifyTarget(ctx, store.NotifyTarget{PersonID: a.person, Kind: store.NotifyEmail, URL: "smtp://" + closed, Settings: store.TargetSettings{To: "ada@example.com"}})
			require.NoError(t, err)
			id := r.create(a, "c1")
			assert.Equal(t, 1, chantest.Receive(t, failed, waitLong, "no failed attempt"), "the first attempt failed")

			// The hub serves on while the mail waits.
			resp := r.do("GET", "/v1/asks/"+id, a.token, "")
			assert.Equal(t, http.StatusOK, resp.status, "%s", resp.body)

			mail := mailtest.Start(t, mailtest.Options{SMTP: closed})
			release()
			m := mail.Message(mail.Wait(1)[0].ID)
			assert.Contains(t, m.Text, "Which database?")
			waitOutboxDelivered(t, r.store)
			assert.Len(t, mail.Messages(), 1, "one mail")
			select {
			case n := <-failed:
				t.Errorf("attempt %d failed too", n)
			default: // the second attempt delivered: attempts = 2
			}
		})
	})
	t.Run("refused recipient", func(t *testing.T) {
		mail := mailtest.Start(t, mailtest.Options{AllowedRecipients: `^ada@example\.com$`})
		var log syncbuf.Buffer
		r := newReplicaConfig(t, db{"sqlite", t.TempDir() + "/hub.db"}, server.Config{Notify: notify.Options{Timeout: 10 * time.Second, Backoff: func(int) time.Duration { return time.Hour },
			Logger: slog.New(slog.NewTextHandler(&log, nil))}})
		a := addAgent(t, r.store, "ada", "laptop", 0)
		addMailTarget(t, r.store, a, mail, "nobody@example.com")
		r.create(a, "c1")
		waitOutboxDelivered(t, r.store) // a permanent refusal is not retried
		assert.Contains(t, log.String(), "refused the mail")
		assert.Contains(t, log.String(), "given up\"=true")
		assert.Empty(t, mail.Messages())
	})
}

// mailParts reads a mail from its raw source, as a mail client would,
// and checks its structure: multipart/alternative with the text/plain
// part before the text/html one (a client shows the last part it can
// render: the HTML, else the text), marked as a machine's mail (no
// vacation reply, no auto-forward loop: RFC 3834 and Outlook's header),
// and an HTML part that loads and runs nothing. It returns the parts'
// decoded bodies.
func mailParts(t *testing.T, raw string) (text, html string) {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, "auto-generated", msg.Header.Get("Auto-Submitted"))
	assert.Equal(t, "All", msg.Header.Get("X-Auto-Response-Suppress"))
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mt)
	parts := multipart.NewReader(msg.Body, params["boundary"])
	var types, bodies []string
	for {
		p, err := parts.NextPart() // undoes quoted-printable
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		pt, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		require.NoError(t, err)
		var r io.Reader = p
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64") {
			r = base64.NewDecoder(base64.StdEncoding, p)
		}
		b, err := io.ReadAll(r)
		require.NoError(t, err)
		types, bodies = append(types, pt), append(bodies, string(b))
	}
	require.Equal(t, []string{"text/plain", "text/html"}, types, "the text part first, then the HTML one")
	lower := strings.ToLower(bodies[1])
	for _, banned := range []string{"<script", "<img", "<link", "<iframe", "<object", "<style", "src=", "url("} {
		assert.NotContains(t, lower, banned, "the HTML part loads or runs nothing")
	}
	return bodies[0], bodies[1]
}

// A model's header and question with CR/LF and other control characters
// cannot add a header to the mail; a batch and a multi-select question
// are shown whole, without answer links (no one option answers them).
func TestEmailHostileTextAndWholeBatches(t *testing.T) {
	mail := mailtest.Start(t, mailtest.Options{})
	r := newNotifyingReplica(t, db{"sqlite", t.TempDir() + "/hub.db"})
	a := addAgent(t, r.store, "ada", "laptop", 0)
	addMailTarget(t, r.store, a, mail, "ada@example.com")

	hostile := `{"header":"Deploy\r\nBcc: evil@example.com\r\n\r\nbody","question":"Ship it?\r\nX-Evil: 1","options":[{"label":"Yes"},{"label":"No"}]}`
	resp := r.do("POST", "/v1/asks", a.token, createBody(hostile, "h1", "s1"))
	require.Contains(t, []int{200, 201}, resp.status, "%s", resp.body)
	m := mail.Message(mail.Wait(1)[0].ID)
	assert.NotContains(t, m.Subject, "\n")
	assert.NotContains(t, m.Subject, "\r")
	assert.True(t, strings.HasPrefix(m.Subject, "laptop asks: Deploy"), m.Subject)
	assert.NotContains(t, m.Headers, "Bcc")
	assert.NotContains(t, m.Headers, "X-Evil")
	assert.Len(t, m.To, 1)
	headers, _, _ := strings.Cut(m.Raw, "\r\n\r\n")
	assert.NotRegexp(t, regexp.MustCompile(`(?im)^(bcc|x-evil):`), headers)
	mailParts(t, m.Raw)

	batch := `{"questions":[{"header":"Tests","question":"Which suites?","multiSelect":true,"options":[{"label":"unit","description":"Fast."},{"label":"e2e","recommended":true}]},` +
		`{"question":"Anything else?","options":[]}]}`
	resp = r.do("POST", "/v1/asks", a.token, createBody(batch, "b1", "s1"))
	require.Contains(t, []int{200, 201}, resp.status, "%s", resp.body)
	msgs := mail.Wait(2)
	m = mail.Message(msgs[0].ID)
	assert.Equal(t, "laptop asks: 2 questions: Tests", m.Subject)
	for _, want := range []string{"1. Tests: Which suites?", "Choose one or more.", "unit", "Fast.", "e2e  (recommended)", "2. Anything else?", "Answer in your own words.", "Answer in the inbox: " + r.url + "/"} {
		assert.Contains(t, m.Text, want)
	}
	_, html := mailParts(t, m.Raw)
	for _, want := range []string{"laptop</strong> asks you 2 questions:", "1. Tests", "Which suites?", "Choose one or more.", "a) unit", "Fast.", "b) e2e", "recommended",
		">2.</p>", "Anything else?", "Answer in your own words.", `href="` + r.url + `/"`, "Answer in the inbox"} {
		assert.Contains(t, html, want, "the batch whole in the HTML part")
	}
	assert.Empty(t, linkRE.FindAllString(m.Text+m.HTML, -1), "no answer links for a batch")
}
