package main

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/chantest"
	"github.com/askcore/askcore/internal/testing/mailtest"
)

// From a fresh hub, the real binary: notify add email, an agent asks, the
// mail arrives in mailpit with the whole question, the "No" link's page
// and its button (the form token read off the page, as a browser posts
// it) answer, and the agent's core gets the answer for "No" byte for
// byte.
func TestServeMailsAnswerLinks(t *testing.T) {
	mail := mailtest.Start(t, mailtest.Options{})
	dsn := t.TempDir() + "/hub.db"
	token := cliRun(t, dsn, "agent", "add", "ci")
	cliRun(t, dsn, "notify", "add", "email", "ada@example.com", "--smtp", mail.URL())
	h := startHub(t, dsn, freeAddr(t))

	got := askThroughHub(t, h.url, token)

	m := mail.Message(mail.Wait(1)[0].ID)
	assert.Equal(t, "ci asks: Ship it?", m.Subject)
	for _, want := range []string{"Ship it?", "Choose one", "a) Yes", "Tag and publish v2.", "b) No", "Hold the release.", h.url + "/"} {
		assert.Contains(t, m.Text, want, "the whole question in the text part")
	}
	links := regexp.MustCompile(`http://[^\s"]+/a/acl_[A-Za-z0-9_-]{43}`).FindAllString(m.Text, -1)
	require.Len(t, links, 2, "%s", m.Text)
	assert.True(t, strings.HasPrefix(links[1], h.url+"/a/"), links[1])

	resp, err := http.Get(links[1])
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Hold the release.")
	form := regexp.MustCompile(`name="form" value="([A-Za-z0-9_-]+)"`).FindSubmatch(page)
	require.NotNil(t, form, "the page's confirm form: %s", page)
	req, err := http.NewRequest("POST", links[1], strings.NewReader(url.Values{"form": {string(form[1])}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.url)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, answerFor(t, "No"), chantest.Receive(t, got, waitLong, "the agent did not get the answer"))
}
