package hubserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"
)

// The person's side of the hub signs in with a one-time link that
// `askcore-hub login` prints: GET /signin?token=T shows a page with a
// button (a link scanner that fetches the URL signs nobody in and does not
// use the link up), and only POST /signin, the token in the form body,
// uses the link and opens a web session.

const (
	// sessionCookie is the session cookie's name on plain HTTP
	// (loopback, an SSH forward); secureSessionCookie under TLS, where the
	// __Host- prefix makes the browser refuse it unless it is Secure, for
	// Path=/ and without a Domain.
	sessionCookie       = "askcore_inbox"
	secureSessionCookie = "__Host-askcore_inbox"
	// csrfHeader carries the page's CSRF token on every state-changing
	// request of the inbox.
	csrfHeader = "X-Askcore-Csrf"
	// sessionBytes is a session token's length: 256 random bits.
	sessionBytes = 32
	// maxFormBytes bounds the sign-in form's body.
	maxFormBytes = 4 << 10
)

// DefaultSessionLifetime is how long a web session lasts from sign-in.
const DefaultSessionLifetime = 30 * 24 * time.Hour

// HashToken is how the hub stores every token it hands out (agent tokens,
// sign-in links, web sessions): SHA-256 of the token's text, so that a
// copy of the database signs nobody in. Tokens are 256 random bits, which
// leaves nothing to guess and no need for a slow hash.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// newSessionToken returns 256 random bits, URL-safe.
func newSessionToken() (string, error) {
	b := make([]byte, sessionBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// csrfToken is the page's CSRF token for a session: derived from the
// session's own token (which only the cookie holds), so that nothing more
// is stored and a page of another site, which can neither read the cookie
// nor the inbox page, cannot know it.
func csrfToken(session string) string {
	m := hmac.New(sha256.New, []byte(session))
	m.Write([]byte("askcore inbox csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validToken: the shape of a token the hub hands out (43 URL-safe
// base64 characters); anything else is refused before a store lookup.
func validToken(t string) bool {
	if len(t) != 43 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// cookieName is the session cookie's name for this request.
func (in *inbox) cookieName(req *http.Request) string {
	if in.secure(req) {
		return secureSessionCookie
	}
	return sessionCookie
}

// sessionOf returns the request's session token (from its cookie) and the
// signed-in person, or ok false.
func (in *inbox) sessionOf(req *http.Request) (token string, p person, ok bool) {
	c, err := req.Cookie(in.cookieName(req))
	if err != nil || !validToken(c.Value) {
		return "", person{}, false
	}
	p, err = in.b.sessionPerson(req.Context(), HashToken(c.Value), in.now())
	if err != nil {
		return "", person{}, false
	}
	return c.Value, p, true
}

// checkCSRF: the request carries the session's CSRF token in its header
// (compared in constant time).
func checkCSRF(req *http.Request, session string) bool {
	got := req.Header.Get(csrfHeader)
	want := csrfToken(session)
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// signinHeaders: the sign-in page is the one page that posts a form (to
// the hub itself), and its post must carry the page's Origin, which a
// browser replaces with "null" under Referrer-Policy no-referrer: the
// referrer (the link, token included) goes to the hub itself only.
func signinHeaders(h http.Header) {
	h.Set("Content-Security-Policy", signinPolicy)
	h.Set("Referrer-Policy", "same-origin")
}

// serveSigninPage shows the sign-in button for a link; it changes nothing.
func (in *inbox) serveSigninPage(w http.ResponseWriter, req *http.Request) {
	token := req.URL.Query().Get("token")
	data := signinData{Token: token}
	status := http.StatusOK
	if !validToken(token) {
		data = signinData{Message: "This sign-in link is not valid."}
		status = http.StatusBadRequest
	}
	signinHeaders(w.Header())
	in.render(w, status, signinPage, data)
}

// serveSignin uses a sign-in link: once, before it expires. It opens a
// web session and sends the browser to the inbox.
func (in *inbox) serveSignin(w http.ResponseWriter, req *http.Request) {
	if !in.sameOrigin(req) {
		refuse(w, http.StatusForbidden, "foreign Origin")
		return
	}
	signinHeaders(w.Header())
	req.Body = http.MaxBytesReader(w, req.Body, maxFormBytes)
	if ct := req.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		refuse(w, http.StatusUnsupportedMediaType, "the sign-in form is application/x-www-form-urlencoded")
		return
	}
	if err := req.ParseForm(); err != nil {
		refuse(w, http.StatusBadRequest, "the sign-in form could not be read")
		return
	}
	token := req.PostForm.Get("token")
	used := func(msg string) { in.render(w, http.StatusUnauthorized, signinPage, signinData{Message: msg}) }
	if !validToken(token) {
		used("This sign-in link is not valid.")
		return
	}
	personID, err := in.b.useSignin(req.Context(), HashToken(token), in.now())
	if err != nil {
		if errors.Is(err, errNotFound) {
			used("This sign-in link is not valid, was used already or has expired.")
			return
		}
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	session, err := newSessionToken()
	if err != nil {
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	expires := in.now().Add(in.sessionLifetime)
	if err := in.b.createSession(req.Context(), HashToken(session), personID, expires); err != nil {
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     in.cookieName(req),
		Value:    session,
		Path:     "/",
		Expires:  expires,
		MaxAge:   int(in.sessionLifetime / time.Second),
		HttpOnly: true,
		Secure:   in.secure(req),
		SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, req, "/", http.StatusSeeOther)
}

// serveSignout ends the request's web session and clears its cookie.
func (in *inbox) serveSignout(w http.ResponseWriter, req *http.Request) {
	session, _, ok := in.sessionOf(req)
	if !ok {
		refuse(w, http.StatusUnauthorized, "not signed in")
		return
	}
	if !in.sameOrigin(req) {
		refuse(w, http.StatusForbidden, "foreign Origin")
		return
	}
	if !checkCSRF(req, session) {
		refuse(w, http.StatusForbidden, "missing or wrong CSRF token")
		return
	}
	if err := in.b.deleteSession(req.Context(), HashToken(session)); err != nil {
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: in.cookieName(req), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: in.secure(req), SameSite: http.SameSiteStrictMode,
	})
	in.wakeAll()
	w.WriteHeader(http.StatusNoContent)
}
