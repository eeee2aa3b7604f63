package server

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/pagehttp"
)

// The person's side of the hub signs in with a one-time link that
// `askcore-hub login` prints: GET /signin?token=T shows a page with a
// button (a link scanner that fetches the URL signs nobody in and does not
// use the link up), and only POST /signin, the token in the form body,
// uses the link and opens a web session.

const (
	// inboxCookie is the session cookie's name on plain HTTP (loopback,
	// an SSH forward); inboxSecureCookie under TLS, where the __Host-
	// prefix makes the browser refuse it unless it is Secure, for Path=/
	// and without a Domain.
	inboxCookie       = "askcore_inbox"
	inboxSecureCookie = "__Host-askcore_inbox"
	// inboxCSRFHeader carries the page's CSRF token on every
	// state-changing request of the inbox.
	inboxCSRFHeader = "X-Askcore-Csrf"
	// inboxMaxForm bounds the sign-in form's body.
	inboxMaxForm = 4 << 10
)

// DefaultSessionLifetime is how long a web session lasts from sign-in.
const DefaultSessionLifetime = 30 * 24 * time.Hour

// inboxTokenShape: the shape of a token the hub hands out (URL-safe
// base64 of 256 bits, after a prefix of the same characters); anything
// else is refused before a store lookup.
func inboxTokenShape(t string) bool {
	if len(t) < 43 || len(t) > 128 {
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
		return inboxSecureCookie
	}
	return inboxCookie
}

// sessionOf returns the request's web session (from its cookie) and the
// signed-in person, or ok false.
func (in *inbox) sessionOf(req *http.Request) (s store.WebSession, p store.Person, ok bool) {
	c, err := req.Cookie(in.cookieName(req))
	if err != nil || !inboxTokenShape(c.Value) {
		return s, p, false
	}
	s, err = in.store.WebSession(req.Context(), HashToken(c.Value), in.now())
	if err != nil {
		return s, p, false
	}
	p, err = in.store.Person(req.Context(), s.PersonID)
	if err != nil {
		return s, p, false
	}
	return s, p, true
}

// inboxCSRFOK: the request carries the session's CSRF token in its header
// (compared in constant time).
func inboxCSRFOK(req *http.Request, s store.WebSession) bool {
	got := req.Header.Get(inboxCSRFHeader)
	return s.CSRFToken != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.CSRFToken)) == 1
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
	if !inboxTokenShape(token) {
		data = signinData{Message: "This sign-in link is not valid."}
		status = http.StatusBadRequest
	}
	signinHeaders(w.Header())
	writePage(w, status, signinPage(data))
}

// serveSignin uses a sign-in link: once, before it expires. It opens a
// web session and sends the browser to the inbox.
func (in *inbox) serveSignin(w http.ResponseWriter, req *http.Request) {
	signinHeaders(w.Header())
	if !in.sameOrigin(req) {
		pagehttp.Refuse(w, http.StatusForbidden, "foreign Origin")
		return
	}
	if ct := req.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		pagehttp.Refuse(w, http.StatusUnsupportedMediaType, "the sign-in form is application/x-www-form-urlencoded")
		return
	}
	req.Body = http.MaxBytesReader(w, req.Body, inboxMaxForm)
	if err := req.ParseForm(); err != nil {
		pagehttp.Refuse(w, http.StatusBadRequest, "the sign-in form could not be read")
		return
	}
	token := req.PostForm.Get("token")
	refused := func() {
		writePage(w, http.StatusUnauthorized, signinPage(signinData{Message: "This sign-in link is not valid, was used already or has expired."}))
	}
	if !inboxTokenShape(token) {
		refused()
		return
	}
	ctx := req.Context()
	personID, err := in.store.ConsumeSigninLink(ctx, HashToken(token), in.now())
	if errors.Is(err, store.ErrNotFound) {
		refused()
		return
	}
	if err != nil {
		pagehttp.Refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	session, sessionHash := NewToken("")
	csrf, _ := NewToken("")
	now := in.now()
	expires := now.Add(in.sessionLifetime)
	err = in.store.CreateWebSession(ctx, store.WebSession{
		TokenHash: sessionHash, PersonID: personID, CSRFToken: csrf, CreatedAt: now, ExpiresAt: expires,
	})
	if err != nil {
		pagehttp.Refuse(w, http.StatusInternalServerError, "internal error")
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
	s, _, ok := in.changeSession(w, req)
	if !ok {
		return
	}
	if err := in.store.DeleteWebSession(req.Context(), s.TokenHash); err != nil {
		pagehttp.Refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: in.cookieName(req), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: in.secure(req), SameSite: http.SameSiteStrictMode,
	})
	in.wakeAll()
	w.WriteHeader(http.StatusNoContent)
}
