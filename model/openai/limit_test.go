package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/model/openai"
)

// limitReply is a chat completion whose reply is content.
func limitReply(content string) string {
	return `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		content + `"},"finish_reason":"stop"}]}`
}

// limitServer answers every request with handler and counts them.
func limitServer(t *testing.T, handler http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After-Ms", "1") // keep retries fast
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func limitModel(t *testing.T, s *httptest.Server, limit int64) *openai.Model {
	t.Helper()
	m, err := openai.New(openai.Config{BaseURL: s.URL + "/v1", Model: "m", HTTPClient: s.Client(), MaxResponseBytes: limit, MaxRetries: 2})
	require.NoError(t, err)
	return m
}

func complete(m *openai.Model) (agent.Reply, error) {
	return m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
}

// body writes b with the status, with a Content-Length or chunked.
func body(status int, b string, contentLength bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if contentLength {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		}
		w.WriteHeader(status)
		for rest := b; len(rest) > 0; { // in pieces, so an unsized body goes chunked
			n := min(len(rest), 4096)
			_, _ = w.Write([]byte(rest[:n]))
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}
}

// A response body is read up to Config.MaxResponseBytes: at the limit it
// is a reply; one byte over, sized or not, the call fails with
// *ResponseTooLargeError naming the limit, and is not retried.
func TestResponseBodyIsBounded(t *testing.T) {
	const limit = 64 << 10
	pad := func(n int) string { return strings.Repeat("x", n-len(limitReply(""))) }
	for _, sized := range []bool{true, false} {
		t.Run(fmt.Sprintf("Content-Length %v", sized), func(t *testing.T) {
			s, _ := limitServer(t, body(200, limitReply(pad(limit)), sized))
			r, err := complete(limitModel(t, s, limit))
			require.NoError(t, err)
			assert.Len(t, r.Content, limit-len(limitReply("")))

			s, requests := limitServer(t, body(200, limitReply(pad(limit+1)), sized))
			_, err = complete(limitModel(t, s, limit))
			var tooLarge *openai.ResponseTooLargeError
			require.True(t, errors.As(err, &tooLarge), "%T: %v", err, err)
			assert.Equal(t, int64(limit), tooLarge.Limit)
			assert.Equal(t, 200, tooLarge.StatusCode)
			assert.Contains(t, err.Error(), "over 65536 bytes, the limit on a model API response (openai.Config.MaxResponseBytes)")
			assert.EqualValues(t, 1, requests.Load(), "not retried")
		})
	}
}

// An error reply is bounded the same way (after the retries its status
// allows).
func TestErrorBodyIsBounded(t *testing.T) {
	s, requests := limitServer(t, body(500, `{"error":{"message":"`+strings.Repeat("e", 100<<10)+`"}}`, false))
	_, err := complete(limitModel(t, s, 64<<10))
	var tooLarge *openai.ResponseTooLargeError
	require.True(t, errors.As(err, &tooLarge), "%T: %v", err, err)
	assert.Equal(t, 500, tooLarge.StatusCode)
	assert.EqualValues(t, 3, requests.Load())
}

// A server that never stops sending: the call ends at the limit instead of
// reading (and holding) an endless body.
func TestEndlessBodyEndsAtTheLimit(t *testing.T) {
	s, _ := limitServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"c1","choices":[{"message":{"content":"`))
		chunk := []byte(strings.Repeat("y", 4096))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	_, err := complete(limitModel(t, s, 1<<20))
	var tooLarge *openai.ResponseTooLargeError
	require.True(t, errors.As(err, &tooLarge), "%T: %v", err, err)
	assert.Equal(t, int64(1<<20), tooLarge.Limit)
}

// Without a setting the limit is DefaultMaxResponseBytes, whether the
// server says the length (refused before a byte is read) or not.
func TestDefaultResponseLimit(t *testing.T) {
	require.Equal(t, 16<<20, openai.DefaultMaxResponseBytes)
	over := limitReply(strings.Repeat("z", openai.DefaultMaxResponseBytes))
	for _, sized := range []bool{true, false} {
		s, _ := limitServer(t, body(200, over, sized))
		_, err := complete(limitModel(t, s, 0))
		var tooLarge *openai.ResponseTooLargeError
		require.True(t, errors.As(err, &tooLarge), "%T: %v", err, err)
		assert.Equal(t, int64(openai.DefaultMaxResponseBytes), tooLarge.Limit)
	}
}
