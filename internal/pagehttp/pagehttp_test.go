package pagehttp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		name, scheme, origin, site string
		want                       bool
	}{
		{"same", "http", "http://127.0.0.1:8080", "", true},
		{"same, the browser says so", "https", "https://127.0.0.1:8080", "same-origin", true},
		{"no Origin", "http", "", "", false},
		{"null", "http", "null", "", false},
		{"other scheme", "http", "https://127.0.0.1:8080", "", false},
		{"other port", "http", "http://127.0.0.1:8081", "", false},
		{"trailing slash", "http", "http://127.0.0.1:8080/", "", false},
		{"the browser says another site", "http", "http://127.0.0.1:8080", "cross-site", false},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/answer", nil)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.site != "" {
			req.Header.Set("Sec-Fetch-Site", c.site)
		}
		assert.Equal(t, c.want, SameOrigin(req, c.scheme), c.name)
	}
}

func TestReadPost(t *testing.T) {
	for _, c := range []struct {
		name, ctype, body string
		status            int // 0: read
	}{
		{"json", "application/json", `{"id":"a"}`, 0},
		{"json with a charset", "application/json; charset=utf-8", `{"id":"a"}`, 0},
		{"a form post", "application/x-www-form-urlencoded", `id=a`, http.StatusUnsupportedMediaType},
		{"text", "text/plain", `{"id":"a"}`, http.StatusUnsupportedMediaType},
		{"too large", "application/json", `{"id":"` + strings.Repeat("x", MaxPostBytes) + `"}`, http.StatusRequestEntityTooLarge},
		{"an unknown field", "application/json", `{"id":"a","x":1}`, http.StatusBadRequest},
		{"two values", "application/json", `{"id":"a"}{"id":"b"}`, http.StatusBadRequest},
		{"not JSON", "application/json", `{`, http.StatusBadRequest},
	} {
		req := httptest.NewRequest(http.MethodPost, "/answer", strings.NewReader(c.body))
		req.Header.Set("Content-Type", c.ctype)
		w := httptest.NewRecorder()
		var v struct{ ID string }
		ok := ReadPost(w, req, "answer", &v)
		if c.status == 0 {
			assert.True(t, ok, c.name)
			assert.Equal(t, "a", v.ID, c.name)
			continue
		}
		assert.False(t, ok, c.name)
		assert.Equal(t, c.status, w.Code, c.name)
	}
}

// An idle stream gets a keep-alive comment every keepAlive (shortened here
// from KeepAlive's 15 s) and stays open past the server's read and write
// timeouts, which NewStream lifts for it.
func TestStreamKeepAlive(t *testing.T) {
	const (
		timeout   = 300 * time.Millisecond
		keepAlive = 50 * time.Millisecond
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		st, ok := NewStream(w, keepAlive)
		if !ok {
			return
		}
		defer st.Close()
		st.Open(time.Second)
		st.Flush()
		for {
			select {
			case <-req.Context().Done():
				return
			case <-st.KeepAliveDue():
				if !st.KeepAlive() {
					return
				}
			}
		}
	}))
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = timeout, timeout
	srv.Start()
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // only a failing test waits that long
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	start := time.Now()
	sc := bufio.NewScanner(res.Body)
	require.True(t, sc.Scan())
	assert.Equal(t, "retry: 1000", sc.Text())
	comments := 0
	for time.Since(start) < 3*timeout {
		require.True(t, sc.Scan(), "the stream ended after %s: %v", time.Since(start), sc.Err())
		switch line := sc.Text(); line {
		case ": keep-alive":
			comments++
		case "":
		default:
			t.Fatalf("an idle stream sent %q", line)
		}
	}
	// 18 were due, and a loaded machine may run late; at KeepAlive's 15 s
	// (the interval not applied) the first would come alone, long after.
	assert.GreaterOrEqual(t, comments, 2)
}
