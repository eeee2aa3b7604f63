package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/store"
)

// A webhook delivery that failed before the hub was killed is delivered,
// signed, by the hub started again.
func TestNotifyAcrossHubRestart(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		var mu sync.Mutex
		calls := 0
		failed, delivered := make(chan struct{}), make(chan []byte, 1)
		var sig, id string
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls == 1 {
				w.WriteHeader(http.StatusInternalServerError)
				close(failed)
				return
			}
			sig, id = r.Header.Get(notify.SignatureHeader), r.Header.Get(notify.DeliveryHeader)
			select {
			case delivered <- body:
			default:
			}
		}))
		defer recv.Close()
		token := cliRun(t, dsn, "agent", "add", "ci")
		secret := cliRun(t, dsn, "notify", "add", "webhook", recv.URL)
		require.True(t, strings.HasPrefix(secret, "whsec_"), secret)

		addr := freeAddr(t)
		h := startHub(t, dsn, addr)
		req, err := http.NewRequest("POST", h.url+"/v1/asks", strings.NewReader(`{"arguments":`+jsonString(question)+`,"toolCallId":"c1","sessionId":"s1"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		select {
		case <-failed:
		case <-time.After(waitLong):
			t.Fatal("no delivery attempt")
		}
		h.kill(t)

		startHub(t, dsn, addr)
		select {
		case body := <-delivered:
			mu.Lock()
			defer mu.Unlock()
			require.NoError(t, notify.Verify(secret, sig, body, time.Now(), 5*time.Minute))
			assert.Contains(t, string(body), `"agent":"ci"`)
			assert.Contains(t, id, "ask_")
		case <-time.After(waitLong):
			t.Fatal("not delivered after the restart")
		}
	})
}

func jsonString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
	b.WriteByte('"')
	return b.String()
}

func TestNotifyCLI(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "hub.db")
	secret := cliRun(t, dsn, "notify", "add", "webhook", "https://hooks.example/askcore")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("tk_ntfy_secret\n"), 0o600))
	cliRun(t, dsn, "notify", "add", "ntfy", "https://ntfy.sh/ada-askcore", "--token-file", tokenFile)
	list := cliRun(t, dsn, "notify", "list")
	assert.Contains(t, list, "https://hooks.example/askcore")
	assert.Contains(t, list, "https://ntfy.sh/ada-askcore")
	assert.NotContains(t, list, secret, "secrets are not printed back")
	assert.NotContains(t, list, "tk_ntfy_secret")
	cliRun(t, dsn, "notify", "remove", "1")
	assert.NotContains(t, cliRun(t, dsn, "notify", "list"), "hooks.example")

	// Email: the password from a file, never shown; ntfy answer buttons.
	pwFile := filepath.Join(t.TempDir(), "smtp-password")
	require.NoError(t, os.WriteFile(pwFile, []byte("hunter2\n"), 0o600))
	cliRun(t, dsn, "notify", "add", "email", "ada@example.com", "--smtp", "smtp://ada@mail.example.com:587", "--smtp-password-file", pwFile, "--from", "hub@example.com")
	cliRun(t, dsn, "notify", "add", "ntfy", "https://ntfy.sh/ada-buttons", "--answer-buttons")
	list = cliRun(t, dsn, "notify", "list")
	assert.Contains(t, list, "ada@example.com via smtp://ada@mail.example.com:587")
	assert.Contains(t, list, "https://ntfy.sh/ada-buttons (answer buttons)")
	assert.NotContains(t, list, "hunter2")
	s, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	targets, err := s.NotifyTargets(context.Background(), 0)
	require.NoError(t, s.Close())
	require.NoError(t, err)
	mail := targets[len(targets)-2]
	assert.Equal(t, store.NotifyEmail, mail.Kind)
	assert.Equal(t, "hunter2", mail.Secret)
	assert.Equal(t, store.TargetSettings{To: "ada@example.com", From: "hub@example.com"}, mail.Settings)
	assert.True(t, targets[len(targets)-1].Settings.AnswerButtons)

	ctx := context.Background()
	for _, args := range [][]string{
		{"notify", "add", "webhook", "file:///etc/passwd"},
		{"notify", "add", "webhook", "https://u:p@x/"},
		{"notify", "add", "email", "https://x/"},
		{"notify", "add", "email", "ada@example.com"},
		{"notify", "add", "email", "ada@example.com", "--smtp", "https://mail.example.com/"},
		{"notify", "add", "email", "ada@example.com", "--smtp", "smtp://mail.example.com"},
		{"notify", "add", "email", "ada@example.com", "--smtp", "smtp://ada:hunter2@mail.example.com:587"},
		{"notify", "add", "email", "ada@example.com\r\nBcc: x@y", "--smtp", "smtp://mail.example.com:587"},
		{"notify", "add", "email", "ada@example.com", "--smtp", "smtp://mail.example.com:587", "--from", "not an address"},
		{"notify", "add", "webhook", "https://x/", "--smtp", "smtp://mail.example.com:587"},
		{"notify", "add", "webhook", "https://x/", "--answer-buttons"},
		{"notify", "add", "webhook", "https://x/", "--token-file", tokenFile},
		{"notify", "remove", "x"},
	} {
		assert.Equal(t, 2, run(ctx, args, io.Discard, io.Discard, dbEnv(dsn)), "%v", args)
	}
	var errb bytes.Buffer
	assert.Equal(t, 2, run(ctx, []string{"notify", "add", "email", "ada@example.com", "--smtp", "smtp://ada:hunter2@mail.example.com:587"}, io.Discard, &errb, dbEnv(dsn)))
	assert.Equal(t, "askcore-hub: hub notify: the SMTP URL carries a password: leave it out and give it with --smtp-password-file\n", errb.String(), "the refusal does not show the password")
	errb.Reset()
	assert.Equal(t, 1, run(ctx, []string{"notify", "remove", "1"}, io.Discard, &errb, dbEnv(dsn)))
	assert.Contains(t, errb.String(), "no notification target 1")
}
