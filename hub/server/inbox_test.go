package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/pagehttp"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inbox over real HTTP on every store (inboxEachStore): each lock of
// docs/HARDENING.md "The hub's inbox", the sign-in link, the live stream
// and the reply, with asks made by agents through the real agent API.

// inboxPaths are every path the inbox serves, with a method each.
var inboxPaths = []struct{ method, path string }{
	{http.MethodGet, "/"},
	{http.MethodGet, "/signin?token=" + strings.Repeat("A", 43)},
	{http.MethodPost, "/signin"},
	{http.MethodPost, "/signout"},
	{http.MethodGet, "/inbox/events"},
	{http.MethodPost, "/inbox/reply"},
	{http.MethodGet, "/inbox/inbox.js"},
	{http.MethodGet, "/inbox/inbox.css"},
	{http.MethodGet, "/host/browser.js"},
	{http.MethodGet, "/host/askcore.wasm"},
	{http.MethodGet, "/favicon.svg"},
}

func TestInboxWrongHost(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		id := e.agent("ada", "builder").ask(dbRequest, "call-1", "s1")
		for _, host := range []string{"evil.example:" + e.base.Port(), "127.0.0.1.nip.io:" + e.base.Port(), "localhost.evil.example:" + e.base.Port(), "10.0.0.1:" + e.base.Port(), "evil.example"} {
			for _, p := range inboxPaths {
				res := b.do(p.method, p.path, []byte(`{"id":"`+id+`","reply":{"decline":true}}`), func(req *http.Request) { req.Host = host })
				// The hub's guard, before the inbox: 421 Misdirected Request.
				assert.Equal(t, http.StatusMisdirectedRequest, res.StatusCode, "%s %s Host %s", p.method, p.path, host)
				assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
				assert.Empty(t, res.Cookies())
				for k := range res.Header {
					assert.False(t, strings.HasPrefix(k, "Access-Control-"), "CORS header %s", k)
				}
			}
		}
		status, v := b.reply(id, map[string]any{"decline": true}, nil)
		assert.Equal(t, http.StatusOK, status, "the ask was left pending: %s", v.Message)
	})
}

// assertLocked: the answer page's headers on every response, no CORS.
func assertLocked(t *testing.T, h http.Header, what string) {
	t.Helper()
	assert.Contains(t, h.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'", what)
	assert.Contains(t, h.Get("Content-Security-Policy"), "require-trusted-types-for 'script'", what)
	assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'", what)
	assert.Equal(t, "no-store", h.Get("Cache-Control"), what)
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), what)
	// The sign-in page's form post carries the page's Origin.
	if h.Get("Referrer-Policy") != "same-origin" || !strings.Contains(what, "/signin") {
		assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"), what)
	}
	for k := range h {
		assert.False(t, strings.HasPrefix(k, "Access-Control-"), "%s: CORS header %s", what, k)
	}
}

func TestInboxHeadersAndNoCORS(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		for _, p := range inboxPaths {
			res := b.do(p.method, p.path, []byte("{}"), func(req *http.Request) {
				req.Header.Set("Origin", "https://evil.example")
				req.Header.Set("Access-Control-Request-Method", "POST")
			})
			assertLocked(t, res.Header, p.method+" "+p.path)
		}
		res := b.do(http.MethodOptions, "/inbox/reply", nil, func(req *http.Request) {
			req.Header.Set("Origin", "https://evil.example")
			req.Header.Set("Access-Control-Request-Method", "POST")
		})
		assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
		assertLocked(t, res.Header, "preflight")
		// Only the sign-in page may post its form, to the hub itself.
		res = e.raw(http.MethodGet, "/signin?token="+strings.Repeat("A", 43), nil, nil)
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self'")
		res = b.get("/")
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'none'")
	})
}

func TestInboxForeignOrigin(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		id := e.agent("ada", "builder").ask(dbRequest, "call-1", "s1")
		good := map[string]any{"picks": []map[string]any{{"options": []int{0}}}}
		for _, tc := range []struct {
			name  string
			tweak func(*http.Request)
		}{
			{"no Origin", func(r *http.Request) { r.Header.Del("Origin") }},
			{"null", func(r *http.Request) { r.Header.Set("Origin", "null") }},
			{"another site", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }},
			{"another local port", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }},
			{"https", func(r *http.Request) { r.Header.Set("Origin", "https://"+e.base.Host) }},
			{"Sec-Fetch-Site cross-site", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }},
			{"Sec-Fetch-Site same-site", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }},
		} {
			status, _ := b.reply(id, good, tc.tweak)
			assert.Equal(t, http.StatusForbidden, status, "reply: %s", tc.name)
			res := b.do(http.MethodPost, "/signout", nil, tc.tweak)
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "sign-out: %s", tc.name)
		}
		// A sign-in form posted from elsewhere signs nobody in and leaves
		// the link usable.
		token := e.hooks.link("ada", time.Minute)
		res := e.signinForm(token, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") })
		assert.Equal(t, http.StatusForbidden, res.StatusCode)
		assert.Empty(t, res.Cookies())
		res = e.signinForm(token, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
		assert.Equal(t, http.StatusForbidden, res.StatusCode)
		res = e.signinForm(token, nil)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
		// Everything refused left the ask pending and the session open.
		status, v := b.reply(id, good, nil)
		assert.Equal(t, http.StatusOK, status, v.Message)
	})
}

func TestInboxCSRF(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		other := e.signin("ada") // the same person in another browser
		id := e.agent("ada", "builder").ask(dbRequest, "call-1", "s1")
		good := map[string]any{"picks": []map[string]any{{"options": []int{0}}}}
		require.NotEqual(t, b.csrf, other.csrf)
		for _, tc := range []struct {
			name  string
			tweak func(*http.Request)
		}{
			{"missing", func(r *http.Request) { r.Header.Del(inboxCSRFHeader) }},
			{"empty", func(r *http.Request) { r.Header.Set(inboxCSRFHeader, "") }},
			{"wrong", func(r *http.Request) { r.Header.Set(inboxCSRFHeader, strings.Repeat("A", 43)) }},
			{"another session's", func(r *http.Request) { r.Header.Set(inboxCSRFHeader, other.csrf) }},
			{"the session token itself", func(r *http.Request) { r.Header.Set(inboxCSRFHeader, b.cookie.Value) }},
		} {
			status, v := b.reply(id, good, tc.tweak)
			assert.Equal(t, http.StatusForbidden, status, "reply, CSRF %s: %s", tc.name, v.Message)
			res := b.do(http.MethodPost, "/signout", nil, tc.tweak)
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "sign-out, CSRF %s", tc.name)
		}
		status, v := b.reply(id, good, nil)
		assert.Equal(t, http.StatusOK, status, v.Message)
	})
}

func TestInboxCookieFlags(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		token := e.hooks.link("ada", time.Minute)
		res := e.signinForm(token, nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		raw := res.Header.Values("Set-Cookie")
		require.Len(t, raw, 1)
		c := res.Cookies()[0]
		assert.Equal(t, inboxCookie, c.Name, "plain HTTP on loopback: no __Host- prefix (it needs Secure)")
		assert.True(t, c.HttpOnly, raw[0])
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite, raw[0])
		assert.Equal(t, "/", c.Path, raw[0])
		assert.Empty(t, c.Domain, raw[0])
		assert.False(t, c.Secure, "plain HTTP: a Secure cookie would not come back")
		assert.True(t, inboxTokenShape(c.Value), "256 random bits, URL-safe: %q", c.Value)
		// Stored hashed: the store knows SHA-256 of the token, not the
		// token.
		assert.True(t, e.hooks.session(HashToken(c.Value)))
		assert.False(t, e.hooks.session(c.Value))
	})
}

// Behind a proxy that terminates TLS (or with the hub's own certificate),
// the cookie is Secure with the __Host- prefix and the origin is https.
func TestInboxCookieUnderTLS(t *testing.T) {
	inboxEachStoreWith(t, Options{Secure: true}, func(t *testing.T, e *inboxEnv) {
		token := e.hooks.link("ada", time.Minute)
		res := e.signinForm(token, nil)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, "the browser's origin is https behind the proxy")
		res = e.signinForm(token, func(r *http.Request) { r.Header.Set("Origin", "https://"+e.base.Host) })
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		c := res.Cookies()[0]
		assert.Equal(t, inboxSecureCookie, c.Name)
		assert.True(t, c.Secure)
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
		assert.Equal(t, "/", c.Path)
		// The plain cookie name is not read under TLS.
		res = e.raw(http.MethodGet, "/", nil, func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: inboxCookie, Value: c.Value})
		})
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
		res = e.raw(http.MethodGet, "/", nil, func(r *http.Request) { r.AddCookie(c) })
		assert.Equal(t, http.StatusOK, res.StatusCode)
	})
}

func TestInboxSigninLink(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		// A link scanner fetches the link: nothing is used up.
		token := e.hooks.link("ada", time.Minute)
		for range 3 {
			res := e.raw(http.MethodGet, "/signin?token="+token, nil, nil)
			require.Equal(t, http.StatusOK, res.StatusCode)
			body := readBody(t, res)
			assert.Contains(t, body, `<form method="post" action="/signin">`)
			assert.Contains(t, body, `value="`+token+`"`)
			assert.Empty(t, res.Cookies(), "a GET signs nobody in")
		}
		res := e.raw(http.MethodHead, "/signin?token="+token, nil, nil)
		assert.Empty(t, res.Cookies())
		res = e.signinForm(token, nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		// Single use.
		res = e.signinForm(token, nil)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
		assert.Empty(t, res.Cookies())
		assert.Contains(t, readBody(t, res), "was used already or has expired")

		expired := e.hooks.link("ada", -time.Second)
		res = e.signinForm(expired, nil)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "expired")
		assert.Empty(t, res.Cookies())

		for _, forged := range []string{strings.Repeat("A", 43), token[:42] + "B", "", "short", strings.Repeat("A", 44), strings.Repeat("é", 22), "../../etc/passwd"} {
			res = e.signinForm(forged, nil)
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "forged %q", forged)
			assert.Empty(t, res.Cookies())
			res = e.raw(http.MethodGet, "/signin?token="+forged, nil, nil)
			assert.NotEqual(t, http.StatusInternalServerError, res.StatusCode)
		}
		// Only a form post: JSON, no content type, a huge body.
		fresh := e.hooks.link("ada", time.Minute)
		res = e.raw(http.MethodPost, "/signin", []byte(`{"token":"`+fresh+`"}`), func(r *http.Request) {
			r.Header.Set("Origin", e.origin())
			r.Header.Set("Content-Type", "application/json")
		})
		assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
		res = e.raw(http.MethodPost, "/signin", bytes.Repeat([]byte("a"), 1<<20), func(r *http.Request) {
			r.Header.Set("Origin", e.origin())
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		})
		assert.Equal(t, http.StatusBadRequest, res.StatusCode)
		// Still unused after the refusals.
		res = e.signinForm(fresh, nil)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	})
}

func TestInboxSignedOut(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		res := e.raw(http.MethodGet, "/", nil, nil)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
		body := readBody(t, res)
		assert.Contains(t, body, "askcore-hub login")
		assert.NotContains(t, body, `href="/"`)
		// From a link elsewhere the SameSite=Strict cookie stays home: a
		// link of the hub's own brings it.
		res = e.raw(http.MethodGet, "/", nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
		assert.Contains(t, readBody(t, res), `<a class="reopen" href="/">open the inbox</a>`)
		for _, cookie := range []string{"", strings.Repeat("A", 43), "not-a-token"} {
			for _, p := range []string{"/", "/inbox/events"} {
				res := e.raw(http.MethodGet, p, nil, func(r *http.Request) {
					r.AddCookie(&http.Cookie{Name: inboxCookie, Value: cookie})
				})
				assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s with cookie %q", p, cookie)
			}
		}
		// Signed out: the cookie opens nothing any more.
		b := e.signin("ada")
		ev := b.events()
		assert.Equal(t, "pending", ev.next().name)
		res = b.do(http.MethodPost, "/signout", nil, nil)
		assert.Equal(t, http.StatusNoContent, res.StatusCode)
		assert.Equal(t, -1, res.Cookies()[0].MaxAge)
		assert.Equal(t, "signedout", ev.next().name, "an open stream is told")
		assert.Equal(t, http.StatusUnauthorized, b.get("/").StatusCode)
		status, _ := b.reply("x", map[string]any{"decline": true}, nil)
		assert.Equal(t, http.StatusUnauthorized, status)
	})
}

func TestInboxNoGETChangesState(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		agent := e.agent("ada", "builder")
		id := agent.ask(dbRequest, "call-1", "s1")
		token := e.hooks.link("ada", time.Minute)
		reply := `{"id":"` + id + `","reply":{"picks":[{"options":[1]}]}}`
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, p := range []string{"/", "/signin?token=" + token, "/signout", "/inbox/reply", "/inbox/reply?body=" + reply, "/signin?token=" + token + "&submit=1"} {
				res := b.do(method, p, nil, func(r *http.Request) { r.Header.Set("Origin", e.origin()) })
				assert.NotEqual(t, http.StatusInternalServerError, res.StatusCode, "%s %s", method, p)
				assert.Empty(t, res.Cookies(), "%s %s set a cookie", method, p)
			}
		}
		// The ask is pending, the session open, the link unused.
		assert.Equal(t, "pending", agent.poll(id, 0)["state"])
		assert.Equal(t, http.StatusOK, b.get("/").StatusCode)
		res := e.signinForm(token, nil)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	})
}

func TestInboxAnotherPersonsAsk(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		ada := e.signin("ada")
		bob := e.signin("bob")
		adaAgent := e.agent("ada", "builder")
		e.agent("bob", "reviewer")
		id := adaAgent.ask(dbRequest, "call-1", "s1")
		ev := bob.events()
		first := ev.next()
		require.Equal(t, "pending", first.name)
		assert.NotContains(t, string(first.data), id, "bob's inbox does not list ada's ask")
		status, v := bob.reply(id, map[string]any{"picks": []map[string]any{{"options": []int{0}}}}, nil)
		assert.Equal(t, http.StatusNotFound, status, v.Message)
		status, _ = bob.reply("no-such-ask", map[string]any{"decline": true}, nil)
		assert.Equal(t, http.StatusNotFound, status)
		assert.Equal(t, "pending", adaAgent.poll(id, 0)["state"])
		status, v = ada.reply(id, map[string]any{"picks": []map[string]any{{"options": []int{0}}}}, nil)
		assert.Equal(t, http.StatusOK, status, v.Message)
	})
}

func TestInboxLiveAndReply(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		agent := e.agent("ada", "builder")
		old := agent.ask(map[string]any{"question": "Deploy now?", "options": []string{"Yes", "No"}}, "call-0", "s0")
		ev := b.events()
		first := ev.next()
		require.Equal(t, "pending", first.name)
		var snap struct {
			Items []inboxItem `json:"items"`
			Now   int64       `json:"now"`
		}
		require.NoError(t, json.Unmarshal(first.data, &snap))
		require.Len(t, snap.Items, 1)
		assert.Equal(t, old, snap.Items[0].ID)
		assert.Equal(t, "builder", snap.Items[0].Agent)
		assert.Equal(t, "s0", snap.Items[0].SessionID)
		assert.InDelta(t, snap.Now, snap.Items[0].Created, float64(time.Minute.Milliseconds()))

		// An agent asks: the open inbox gets it.
		id := agent.ask(dbRequest, "call-1", "s1")
		add := ev.next()
		require.Equal(t, "add", add.name)
		var p inboxItem
		require.NoError(t, json.Unmarshal(add.data, &p))
		assert.Equal(t, id, p.ID)
		assert.Contains(t, string(p.Call), "Which database should the service use?")

		// INVALID_ANSWER is shown and the person tries again.
		status, v := b.reply(id, map[string]any{"picks": []map[string]any{{"options": []int{}}}}, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, status)
		assert.NotEmpty(t, v.Message)
		assert.Contains(t, string(v.Error), "INVALID_ANSWER")
		assert.Equal(t, "pending", agent.poll(id, 0)["state"])
		status, v = b.reply(id, map[string]any{"picks": []map[string]any{{"options": []int{1}}}}, nil)
		require.Equal(t, http.StatusOK, status, v.Message)
		assert.Equal(t, "replied", v.State)
		assert.Contains(t, v.Message, "SQLite")
		assert.Equal(t, "ada", v.RepliedBy)
		assert.Contains(t, v.Where, "inbox")

		// The agent gets the reply; the stream says the ask ended.
		got := agent.poll(id, 5)
		assert.Equal(t, "replied", got["state"])
		assert.Equal(t, []any{float64(1)}, pickedOptions(t, got))
		end := ev.next()
		require.Equal(t, "end", end.name)
		var pe inboxEnd
		require.NoError(t, json.Unmarshal(end.data, &pe))
		assert.Equal(t, id, pe.ID)
		assert.Equal(t, "replied", pe.State)

		// The agent withdraws the other: the stream says so in the core's words.
		status, _ = agent.do(http.MethodDelete, "/v1/asks/"+old, nil)
		assert.Less(t, status, 300)
		end = ev.next()
		require.Equal(t, "end", end.name)
		require.NoError(t, json.Unmarshal(end.data, &pe))
		assert.Equal(t, old, pe.ID)
		assert.Equal(t, "withdrawn", pe.State)
		assert.NotEmpty(t, pe.Message)
	})
}

// A second reply, from another device, is 409 with the first one's
// outcome: who, when, where.
func TestInboxSecondReply(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		phone := e.signin("ada")
		laptop := e.signin("ada")
		agent := e.agent("ada", "builder")
		id := agent.ask(dbRequest, "call-1", "s1")
		const n = 8
		var wg sync.WaitGroup
		statuses := make([]int, n)
		verdicts := make([]inboxVerdict, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := phone
				ua := "Mozilla/5.0 (Linux; Android 14) Chrome/130.0 Mobile"
				if i%2 == 1 {
					b = laptop
					ua = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Firefox/130.0"
				}
				statuses[i], verdicts[i] = b.reply(id, map[string]any{"picks": []map[string]any{{"options": []int{i % 2}}}}, func(r *http.Request) {
					r.Header.Set("User-Agent", ua)
				})
			}()
		}
		wg.Wait()
		won := -1
		for i, s := range statuses {
			if s == http.StatusOK {
				require.Equal(t, -1, won, "two replies won")
				won = i
			} else {
				assert.Equal(t, http.StatusConflict, s, verdicts[i].Message)
			}
		}
		require.NotEqual(t, -1, won, "no reply won")
		w := verdicts[won]
		for i, v := range verdicts {
			if i == won {
				continue
			}
			assert.Equal(t, "replied", v.State)
			assert.Equal(t, "ada", v.RepliedBy)
			assert.Equal(t, w.Where, v.Where)
			assert.Equal(t, w.RepliedAt, v.RepliedAt)
			assert.Equal(t, w.Message, v.Message)
		}
		want := "the inbox (Chrome on Android)"
		if won%2 == 1 {
			want = "the inbox (Firefox on Linux)"
		}
		assert.Equal(t, want, w.Where)
		got := agent.poll(id, 5)
		assert.Equal(t, []any{float64(won % 2)}, pickedOptions(t, got))
	})
}

func TestInboxMalformedReplies(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		agent := e.agent("ada", "builder")
		id := agent.ask(dbRequest, "call-1", "s1")
		for _, body := range []string{"", "null", "[]", "{}", `{"id":"` + id + `"}`, `{"id":"` + id + `","reply":{}}`, `{"id":"` + id + `","reply":{"picks":[]}}`, `{"id":"` + id + `","reply":{"decline":false}}`, `{"id":"` + id + `","reply":{"picks":[{"options":[0]}]},"x":1}`, `{"id":"` + id + `","reply":{"decline":true}}{}`} {
			res := b.do(http.MethodPost, "/inbox/reply", []byte(body), nil)
			assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, res.StatusCode, "%s: %s", body, readBody(t, res))
		}
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""} {
			res := b.do(http.MethodPost, "/inbox/reply", []byte(`{"id":"`+id+`","reply":{"decline":true}}`), func(r *http.Request) { r.Header.Set("Content-Type", ct) })
			assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode, "content type %q", ct)
		}
		res := b.do(http.MethodPost, "/inbox/reply", bytes.Repeat([]byte(" "), pagehttp.MaxPostBytes+1), nil)
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
		for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
			res := b.do(m, "/inbox/reply", nil, nil)
			assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, m)
		}
		assert.Equal(t, "pending", agent.poll(id, 0)["state"])
	})
}

func TestInboxStaticFiles(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		for _, tc := range []struct{ path, ctype string }{
			{"/inbox/inbox.js", "text/javascript; charset=utf-8"},
			{"/inbox/inbox.css", "text/css; charset=utf-8"},
			{"/host/browser.js", "text/javascript; charset=utf-8"},
			{"/host/dom.js", "text/javascript; charset=utf-8"},
			{"/host/dom.css", "text/css; charset=utf-8"},
			{"/host/lib/core.js", "text/javascript; charset=utf-8"},
			{"/host/askcore.wasm", "application/wasm"},
			{"/favicon.svg", "image/svg+xml"},
		} {
			res := e.raw(http.MethodGet, tc.path, nil, nil)
			assert.Equal(t, http.StatusOK, res.StatusCode, tc.path)
			assert.Equal(t, tc.ctype, res.Header.Get("Content-Type"), tc.path)
			res = e.raw(http.MethodGet, tc.path, nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "%s fetched by another site", tc.path)
		}
		for _, p := range []string{"/host/", "/host/../go.mod", "/inbox/inbox.html", "/inbox/signin.html", "/host/index.html", "/host/page.js"} {
			res := e.raw(http.MethodGet, p, nil, nil)
			assert.Contains(t, []int{http.StatusNotFound, http.StatusTemporaryRedirect}, res.StatusCode, p)
		}
	})
}

// TestInboxModuleServed: the inbox sends the module as the answer page
// does (pagetest.ModuleRequests): the embedded gzip, byte for byte, to a
// browser that takes gzip, the module itself to one that does not, under
// the page's locks either way. (A request without Accept-Encoding goes
// through a transport that adds none; Go's default one asks for gzip by
// itself.)
func TestInboxModuleServed(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hub.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	e := newInboxEnv(t, st, Options{})
	bare := &http.Transport{DisableCompression: true}
	t.Cleanup(bare.CloseIdleConnections)
	for _, c := range pagetest.ModuleRequests {
		t.Run(c.Name, func(t *testing.T) {
			req, err := http.NewRequest(c.Method, e.origin()+"/host/askcore.wasm", nil)
			require.NoError(t, err)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if c.Accept != "" {
				req.Header.Set("Accept-Encoding", c.Accept)
			}
			res, err := bare.RoundTrip(req)
			require.NoError(t, err)
			defer res.Body.Close()
			assertLocked(t, res.Header, c.Name)
			pagetest.AssertModuleSent(t, c, res)
		})
	}
}

// pickedOptions is the options of the one pick of an ask's reply, as the
// agent got it.
func pickedOptions(t *testing.T, ask map[string]any) []any {
	t.Helper()
	reply, _ := ask["reply"].(map[string]any)
	picks, _ := reply["picks"].([]any)
	require.Len(t, picks, 1, "%v", ask)
	pick, _ := picks[0].(map[string]any)
	options, _ := pick["options"].([]any)
	return options
}

// Several asks seen in one look go to the page oldest first, as the
// snapshot does: the page puts each on top, so the newest ends on top.
func TestInboxNewAsksOldestFirst(t *testing.T) {
	known := map[string]bool{"a": true}
	asks := []store.Ask{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	var ids []string
	for _, a := range newAsks(known, asks) {
		ids = append(ids, a.ID)
	}
	assert.Equal(t, []string{"b", "c"}, ids)
	assert.Equal(t, map[string]bool{"a": true, "b": true, "c": true}, known)
	assert.Empty(t, newAsks(known, asks), "an ask is added once")
}

// TestInboxStreamAcrossReplicaStop: replicas on one database, the
// person's page on the first. The first stops: its stream ends, while a
// stream held on the second keeps working. The page opens its stream
// again on the second naming the asks it shows (?known=): the ask answered
// meanwhile comes first as its end, with the reply (what the page marks),
// then the same pending asks as before; a name of another person's ask,
// or a made-up one, tells nothing.
func TestInboxStreamAcrossReplicaStop(t *testing.T) {
	for _, b := range inboxStores {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			replica := func() *inboxEnv {
				s, err := store.Open(context.Background(), dsn)
				require.NoError(t, err)
				t.Cleanup(func() { s.Close() })
				return newInboxEnv(t, s, Options{})
			}
			first, second := replica(), replica()
			page := first.signin("ada")
			agent := first.agent("ada", "builder")
			kept := agent.ask(map[string]any{"question": "Deploy now?", "options": []string{"Yes", "No"}}, "call-1", "s1")
			answered := agent.ask(dbRequest, "call-2", "s1")
			other := first.agent("bob", "bobs-agent").ask(dbRequest, "call-3", "s1")
			_, v := second.signin("bob").reply(other, map[string]any{"decline": true}, nil)
			require.Equal(t, "replied", v.State)

			ev := page.events()
			require.Equal(t, "pending", ev.next().name)
			onSecond := &browser{e: second, cookie: page.cookie, csrf: page.csrf} // one database: the same session
			held := onSecond.events()
			require.Equal(t, "pending", held.next().name)

			first.stop()
			ev.ends()

			// Another device answers through the second replica.
			status, v := onSecond.reply(answered, map[string]any{"picks": []map[string]any{{"options": []int{1}, "notes": "zero setup"}}}, nil)
			require.Equal(t, http.StatusOK, status, v.Message)
			end := held.next()
			require.Equal(t, "end", end.name, "the stream held on the second replica goes on")

			again := onSecond.eventsAt("/inbox/events?known=" + url.QueryEscape(strings.Join([]string{kept, answered, other, "ask_madeup"}, ",")))
			end = again.next()
			require.Equal(t, "end", end.name)
			var e inboxEnd
			require.NoError(t, json.Unmarshal(end.data, &e))
			assert.Equal(t, answered, e.ID)
			assert.Equal(t, "replied", e.State)
			assert.Contains(t, e.Message, "SQLite")
			assert.Contains(t, e.Message, "Answered by ada")
			assert.JSONEq(t, `{"picks":[{"options":[1],"text":"","notes":"zero setup"}]}`, string(e.Reply))
			snap := again.next()
			require.Equal(t, "pending", snap.name, "nothing of bob's ask, or of a made-up one")
			var pending struct {
				Items []inboxItem `json:"items"`
			}
			require.NoError(t, json.Unmarshal(snap.data, &pending))
			require.Len(t, pending.Items, 1)
			assert.Equal(t, kept, pending.Items[0].ID)

			// Past maxKnown names, nothing more is looked at.
			many := make([]string, 0, maxKnown+1)
			for i := range maxKnown {
				many = append(many, fmt.Sprintf("ask_madeup%d", i))
			}
			capped := onSecond.eventsAt("/inbox/events?known=" + strings.Join(append(many, answered), ","))
			assert.Equal(t, "pending", capped.next().name, "the answered ask, named 101st, is not looked at")
		})
	}
}
