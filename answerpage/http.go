package answerpage

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/askcore/askcore"
)

// ContentSecurityPolicy allows the server's own scripts, styles and
// connections, the WebAssembly compile of askcore.wasm, and nothing else:
// no inline script or style, no eval, no other origin, no frames, no
// forms posting anywhere, no HTML sinks (Trusted Types). SecurityHeaders
// sets it; it is exported for a server that serves the page's client on
// pages of its own (the hub's inbox).
const ContentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
	"require-trusted-types-for 'script'; trusted-types 'none'"

// maxAnswerBytes bounds an answer's body. The core's own limits on what a
// person types are far smaller (docs/SPEC.md, "Limits").
const maxAnswerBytes = 1 << 20

// sseKeepAlive is how often an idle event stream gets a comment, so that
// proxies and browsers keep it open.
const sseKeepAlive = 15 * time.Second

// securityHeaders are set on every response, refusals included.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
}

// SecurityHeaders sets the headers of every response of the page
// (ContentSecurityPolicy, no-store, nosniff, no referrer, no framing), for
// a server that serves the page's client on pages of its own (the hub's
// inbox) under the same locks.
func SecurityHeaders(h http.Header) { securityHeaders(h) }

// SameOriginFetch reports whether the browser says req comes from a page
// of the server's own origin (Sec-Fetch-Site same-origin), or says nothing
// (not a browser, or an old one).
func SameOriginFetch(req *http.Request) bool { return sameOriginFetch(req) }

// ServeFile serves one of Files by name (gzipped for a browser that
// accepts it, compressed once per process), or 404: the JS host and the
// module under host/, for a server of its own that runs the page's client.
func ServeFile(w http.ResponseWriter, req *http.Request, name string) {
	sharedStatics().serve(w, req, name)
}

// refuse writes a short plain-text refusal.
func refuse(w http.ResponseWriter, status int, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, why+"\n")
}

// handler serves one start.
func (s *Server) handler(r *run) http.Handler {
	prefix := "/" + s.token + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		securityHeaders(w.Header())
		// DNS rebinding: a page of another name that resolves here sends
		// its own name as Host.
		if !allowedHost(req.Host, r.host, r.port) {
			refuse(w, http.StatusForbidden, "wrong Host")
			return
		}
		path := req.URL.Path
		if !hasToken(path, prefix) {
			refuse(w, http.StatusNotFound, "not found")
			return
		}
		name := path[len(prefix):]
		// Everything but the page itself is fetched by the page: a request
		// the browser says comes from another origin (another site, or a
		// page on another local port) is refused. The page may be opened
		// from anywhere (a link in a terminal or a chat), but it is read
		// only by whoever opened it.
		if name != "" && !sameOriginFetch(req) {
			refuse(w, http.StatusForbidden, "cross-origin request")
			return
		}
		switch name {
		case "events":
			if req.Method != http.MethodGet {
				refuse(w, http.StatusMethodNotAllowed, "method not allowed")
				return
			}
			s.serveEvents(w, req, r)
		case "answer":
			s.serveAnswer(w, req)
		default:
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				refuse(w, http.StatusMethodNotAllowed, "method not allowed")
				return
			}
			if name == "" {
				name = "index.html"
			}
			s.statics.serve(w, req, name)
		}
	})
}

// hasToken reports whether path begins with prefix, "/TOKEN/", comparing
// the token in constant time.
func hasToken(path, prefix string) bool {
	if len(path) < len(prefix) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(path[:len(prefix)]), []byte(prefix)) == 1
}

// allowedHost: the listening port, with localhost or the listening
// address (127.0.0.1 by default); a server listening on every interface
// takes any IP address. A name other than localhost is refused: a page of
// another name can make its name resolve here (DNS rebinding), an address
// cannot be rebound.
func allowedHost(hostport, listenHost, port string) bool {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil || p != port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil || strings.Contains(host, "%") {
		return false
	}
	listen := net.ParseIP(listenHost)
	return listen != nil && (listen.IsUnspecified() || listen.Equal(ip))
}

// sameOriginFetch: the browser says the request comes from the page's own
// origin (Sec-Fetch-Site), or says nothing (not a browser, or an old one;
// the token is still needed).
func sameOriginFetch(req *http.Request) bool {
	site := req.Header.Get("Sec-Fetch-Site")
	return site == "" || site == "same-origin"
}

// sameOrigin: a state-changing request must name the page's origin.
func sameOrigin(req *http.Request) bool {
	origin := req.Header.Get("Origin")
	return origin != "" && origin == "http://"+req.Host
}

// answerRequest is what the page posts: the question and what the person
// gave.
type answerRequest struct {
	ID    string `json:"id"`
	Reply struct {
		Picks   *[]askcore.Pick `json:"picks"`
		Decline *bool           `json:"decline"`
	} `json:"reply"`
}

// answerResponse is the server's verdict.
type answerResponse struct {
	State   string          `json:"state,omitempty"`
	Message string          `json:"message,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	// Question is the question (from 0) the error is about.
	Question *int `json:"question,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// serveAnswer takes an answer: once per question, judged by the call's own
// core.
func (s *Server) serveAnswer(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		refuse(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if !sameOrigin(req) {
		refuse(w, http.StatusForbidden, "foreign Origin")
		return
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		refuse(w, http.StatusUnsupportedMediaType, "the answer is application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxAnswerBytes))
	if err != nil {
		refuse(w, http.StatusRequestEntityTooLarge, "the answer is too large")
		return
	}
	var a answerRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || dec.More() {
		refuse(w, http.StatusBadRequest, "the answer is {\"id\":...,\"reply\":{\"picks\":[...]} or {\"decline\":true}}")
		return
	}
	decline := a.Reply.Decline != nil
	if decline == (a.Reply.Picks != nil) || decline && !*a.Reply.Decline {
		refuse(w, http.StatusBadRequest, "the reply is {\"picks\":[...]} or {\"decline\":true}")
		return
	}

	// Claim the question, so that a second answer meanwhile is refused.
	s.mu.Lock()
	it := s.items[a.ID]
	if it == nil || it.state != statePending {
		info, known := s.ended[a.ID]
		s.mu.Unlock()
		if it != nil {
			writeJSON(w, http.StatusConflict, answerResponse{State: "checking", Message: "another answer to this question is being checked"})
			return
		}
		if known {
			writeJSON(w, http.StatusConflict, answerResponse{State: info.State, Message: info.Message})
			return
		}
		writeJSON(w, http.StatusNotFound, answerResponse{State: "unknown", Message: "no such question"})
		return
	}
	it.state = stateChecking
	s.mu.Unlock()

	reply, info, status, resp := s.judge(req.Context(), it, a, decline)

	s.mu.Lock()
	if it.state != stateChecking {
		// Withdrawn, timed out or closed while its answer was checked.
		info := s.ended[it.id]
		s.mu.Unlock()
		writeJSON(w, http.StatusConflict, answerResponse{State: info.State, Message: info.Message})
		return
	}
	if status != http.StatusOK {
		it.state = statePending
		s.mu.Unlock()
		writeJSON(w, status, resp)
		return
	}
	it.reply <- reply
	s.endLocked(it, info)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, answerResponse{State: info.State, Message: info.Message})
}

// judge has the call's core check every pick (the page's check is only a
// preview): the reply for the seam and how the question ended, or the
// refusal.
func (s *Server) judge(ctx context.Context, it *item, a answerRequest, decline bool) (askcore.Reply, endInfo, int, answerResponse) {
	call := it.call
	if decline {
		word := "declined"
		if raw, err := call.Picker(ctx); err == nil {
			var words struct {
				Declined string `json:"declined"`
			}
			if json.Unmarshal(raw, &words) == nil && words.Declined != "" {
				word = words.Declined
			}
		}
		return askcore.Decline(), endInfo{ID: it.id, State: "declined", Message: word}, http.StatusOK, answerResponse{}
	}
	picks := *a.Reply.Picks
	if len(picks) != len(call.Questions) {
		return askcore.Reply{}, endInfo{}, http.StatusBadRequest, answerResponse{
			Message: fmt.Sprintf("the reply has %d picks for %d questions", len(picks), len(call.Questions))}
	}
	var lines []string
	for i, p := range picks {
		summary, err := call.CheckPick(ctx, i, p)
		if err != nil {
			var e *askcore.Error
			if errors.As(err, &e) && e.Code == askcore.CodeInvalidAnswer {
				n := i
				return askcore.Reply{}, endInfo{}, http.StatusUnprocessableEntity, answerResponse{Message: e.Message, Error: e.JSON(), Question: &n}
			}
			return askcore.Reply{}, endInfo{}, http.StatusInternalServerError, answerResponse{Message: "the answer could not be checked"}
		}
		lines = append(lines, "→ "+summary)
	}
	return askcore.Picks(picks...), endInfo{ID: it.id, State: "answered", Message: strings.Join(lines, "\n")}, http.StatusOK, answerResponse{}
}

// subscriber is one open event stream.
type subscriber struct {
	ch      chan []byte // formatted events
	dropped chan struct{}
}

// subscriberBuffer is how many events a slow page may lag behind before
// its stream is closed (it reconnects and gets a fresh snapshot).
const subscriberBuffer = 256

// broadcastLocked sends one event to every page of the current start;
// s.mu is held.
func (s *Server) broadcastLocked(event string, data []byte) {
	if s.run == nil {
		return
	}
	frame := sseFrame(event, data)
	for sub := range s.run.subs {
		select {
		case sub.ch <- frame:
		default:
			delete(s.run.subs, sub)
			close(sub.dropped)
		}
	}
}

func sseFrame(event string, data []byte) []byte {
	var b []byte
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, '\n')
	// data never holds a line break: it is compact JSON, whose strings
	// escape them.
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// serveEvents streams the queue: the pending questions, then each question
// added and ended.
func (s *Server) serveEvents(w http.ResponseWriter, req *http.Request, r *run) {
	fl, ok := w.(http.Flusher)
	if !ok {
		refuse(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	sub := &subscriber{ch: make(chan []byte, subscriberBuffer), dropped: make(chan struct{})}
	s.mu.Lock()
	if s.run != r {
		s.mu.Unlock()
		refuse(w, http.StatusServiceUnavailable, "stopping")
		return
	}
	snapshot := s.snapshotLocked()
	r.subs[sub] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(r.subs, sub)
		s.mu.Unlock()
	}()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte("retry: 1000\n\n"))
	w.Write(sseFrame("pending", snapshot))
	fl.Flush()
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	for {
		select {
		case frame := <-sub.ch:
			w.Write(frame)
			// Send what else is queued with it.
			for n := len(sub.ch); n > 0; n-- {
				w.Write(<-sub.ch)
			}
			fl.Flush()
		case <-tick.C:
			w.Write([]byte(": keep-alive\n\n"))
			fl.Flush()
		case <-sub.dropped:
			return
		case <-req.Context().Done():
			return
		case <-r.ctx.Done():
			// The queued events first (the last questions' ends), then
			// goodbye: the page stops reconnecting.
			for n := len(sub.ch); n > 0; n-- {
				w.Write(<-sub.ch)
			}
			w.Write(sseFrame("bye", []byte("{}")))
			fl.Flush()
			return
		}
	}
}
