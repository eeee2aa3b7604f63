// Package pagehttp is the HTTP side of the page client that two servers
// serve: the answer page (package answerpage) and the hub's inbox (package
// hub/server). Both run the same client in the browser, so both answer it
// under the same locks (one Content-Security-Policy, the same headers on
// every response, refusals included), take its posts the same way (same
// origin, JSON only, bounded) and stream it the same events. What differs
// (the answer page's token and Host check, the inbox's session and CSRF
// token) stays with each server.
package pagehttp

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ContentSecurityPolicy allows the server's own scripts, styles and
// connections, the WebAssembly compile of askcore.wasm, and nothing else:
// no inline script or style, no eval, no other origin, no frames, no
// forms posting anywhere, no HTML sinks (Trusted Types).
const ContentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
	"require-trusted-types-for 'script'; trusted-types 'none'"

// SecurityHeaders sets the headers of every response (ContentSecurityPolicy,
// no-store, nosniff, no referrer, no framing), refusals included.
func SecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
}

// SameOriginFetch: the browser says the request comes from a page of the
// server's own origin (Sec-Fetch-Site), or says nothing (not a browser, or
// an old one; the server's other checks still apply).
func SameOriginFetch(req *http.Request) bool {
	site := req.Header.Get("Sec-Fetch-Site")
	return site == "" || site == "same-origin"
}

// SameOrigin: a state-changing request names the server's own origin, as
// the browser reaches it over scheme ("http" or "https"), in its Origin
// header, and the browser does not say it comes from elsewhere.
func SameOrigin(req *http.Request, scheme string) bool {
	origin := req.Header.Get("Origin")
	return origin != "" && strings.EqualFold(origin, scheme+"://"+req.Host) && SameOriginFetch(req)
}

// Refuse writes a short plain-text refusal.
func Refuse(w http.ResponseWriter, status int, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, why+"\n")
}

// WriteJSON writes v as the response's JSON body.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		Refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// MaxPostBytes bounds what the page posts (an answer, a reply). The core's
// own limits on what a person types are far smaller (docs/SPEC.md,
// "Limits").
const MaxPostBytes = 1 << 20

// PostShape tells the page what a post of noun ("answer", "reply") is,
// when it is not.
func PostShape(noun string) string {
	return "the " + noun + " is {\"id\":...,\"reply\":{\"picks\":[...]} or {\"decline\":true}}"
}

// ReadPost decodes the page's post of noun into v: JSON only (a form post
// needs no preflight, so it is refused), at most MaxPostBytes, no unknown
// field, one value. Else it refuses (415, 413, 400) and returns false.
func ReadPost(w http.ResponseWriter, req *http.Request, noun string, v any) bool {
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		Refuse(w, http.StatusUnsupportedMediaType, "the "+noun+" is application/json")
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxPostBytes))
	if err != nil {
		Refuse(w, http.StatusRequestEntityTooLarge, "the "+noun+" is too large")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		Refuse(w, http.StatusBadRequest, PostShape(noun))
		return false
	}
	return true
}

// KeepAlive is how often an idle event stream gets a comment, so that
// proxies and browsers keep it open, unless its server says otherwise
// (NewStream).
const KeepAlive = 15 * time.Second

// WriteWithin is how long one write of an event stream may take before
// the client counts as gone. The keep-alive comments keep a write due well
// within it.
const WriteWithin = 4 * KeepAlive

// Stream is one open event stream to the page. It lasts as long as the
// page: the server's read and write timeouts (meant for a slow client)
// must not cut it, so NewStream lifts them, and a write deadline of the
// stream's own, set again before every write, still lets go of a client
// that stopped reading. (A server write timeout passed mid-stream is what
// a browser reports as ERR_INCOMPLETE_CHUNKED_ENCODING: the next event,
// often another device's answer, was the first write after it.)
type Stream struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	keep *time.Ticker
	err  error // the first failed write or flush: the client is gone
}

// NewStream takes w for an event stream whose keep-alive comments are due
// every keepAlive (0: KeepAlive; a test shortens it), or refuses (500)
// when w cannot stream. Nothing is written until Open; Close stops the
// keep-alive ticks.
func NewStream(w http.ResponseWriter, keepAlive time.Duration) (*Stream, bool) {
	if _, ok := w.(http.Flusher); !ok {
		Refuse(w, http.StatusInternalServerError, "streaming unsupported")
		return nil, false
	}
	if keepAlive <= 0 {
		keepAlive = KeepAlive
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	return &Stream{w: w, rc: rc, keep: time.NewTicker(keepAlive)}, true
}

// KeepAliveDue ticks each time a keep-alive comment is due; the handler's
// loop, the stream's one writer, sends it with KeepAlive.
func (s *Stream) KeepAliveDue() <-chan time.Time { return s.keep.C }

// Close stops the keep-alive ticks.
func (s *Stream) Close() { s.keep.Stop() }

// Open starts the stream: its headers, and how long the browser waits
// before it reconnects.
func (s *Stream) Open(retry time.Duration) {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	s.Write([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n"))
}

// Send queues one event; data is compact JSON, so it holds no line break
// (its strings escape them). Flush sends what is queued.
func (s *Stream) Send(event string, data []byte) { s.Write(Frame(event, data)) }

// SendJSON queues one event of v, as JSON.
func (s *Stream) SendJSON(event string, v any) {
	data, _ := json.Marshal(v)
	s.Send(event, data)
}

// Write queues a frame made by Frame, within WriteWithin.
func (s *Stream) Write(frame []byte) {
	if s.err != nil {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteWithin))
	_, s.err = s.w.Write(frame)
}

// KeepAlive sends a comment, so that an idle stream stays open; false
// when the client is gone.
func (s *Stream) KeepAlive() bool {
	s.Write([]byte(": keep-alive\n\n"))
	return s.Flush()
}

// Flush sends what is queued; false when the client is gone (a write or
// a flush failed), and the stream should end.
func (s *Stream) Flush() bool {
	if s.err == nil {
		_ = s.rc.SetWriteDeadline(time.Now().Add(WriteWithin))
		s.err = s.rc.Flush()
	}
	return s.err == nil
}

// Frame is one event as the stream sends it.
func Frame(event string, data []byte) []byte {
	b := make([]byte, 0, len(event)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}
