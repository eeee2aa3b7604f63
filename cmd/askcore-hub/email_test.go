package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	hubserver "github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/internal/testing/mailtest"
)

// From a fresh hub, the real binary: notify add email, an agent asks, the
// mail arrives in mailpit, the "No" link's page and its button answer,
// and the agent's core gets the answer for "No" byte for byte.
func TestServeMailsAnswerLinks(t *testing.T) {
	mail := mailtest.Start(t, mailtest.Options{})
	dsn := t.TempDir() + "/hub.db"
	token := cliRun(t, dsn, "agent", "add", "ci")
	cliRun(t, dsn, "notify", "add", "email", "ada@example.com", "--smtp", mail.URL())
	h := startHub(t, dsn, freeAddr(t))

	svc := askcore.NewService(nil)
	dispose, err := svc.Register(hub.New(h.url, token, hub.WithMaxBackoff(100*time.Millisecond)))
	require.NoError(t, err)
	defer dispose()
	got := make(chan string, 1)
	go func() {
		a, err := svc.Ask(context.Background(), question, askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: "call_1"}})
		out, _ := askcore.ToolResult(a, err)
		got <- string(out)
	}()

	m := mail.Message(mail.Wait(1)[0].ID)
	assert.Equal(t, "ci asks: Ship it?", m.Subject)
	links := regexp.MustCompile(`http://[^\s"]+/a/acl_[A-Za-z0-9_-]{43}`).FindAllString(m.Text, -1)
	require.Len(t, links, 2, "%s", m.Text)
	assert.True(t, strings.HasPrefix(links[1], h.url+"/a/"), links[1])

	resp, err := http.Get(links[1])
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	token1 := links[1][strings.LastIndex(links[1], "/")+1:]
	req, err := http.NewRequest("POST", links[1], strings.NewReader(url.Values{"form": {hubserver.LinkFormToken(token1)}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.url)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	select {
	case out := <-got:
		assert.Equal(t, answerFor(t, "No"), out)
	case <-time.After(waitLong):
		t.Fatal("the agent did not get the answer")
	}
}
