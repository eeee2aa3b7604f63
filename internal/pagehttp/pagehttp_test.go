package pagehttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
