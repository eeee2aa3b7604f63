package answerpage

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/pagehttp"
)

// ContentSecurityPolicy is the policy of every response of the page: the
// server's own scripts, styles and connections, the WebAssembly compile of
// askcore.wasm, and nothing else (no inline script or style, no eval, no
// other origin, no frames, no forms posting anywhere, no HTML sinks).
const ContentSecurityPolicy = pagehttp.ContentSecurityPolicy

// sseRetry is how long the page's event stream waits before it reconnects.
const sseRetry = time.Second

// ServeFile serves one of Files by name (gzipped for a browser that
// accepts it: compressed once per process, the module embedded so), or
// 404: the JS host and the module under host/, for a server of its own
// that runs the page's client.
func ServeFile(w http.ResponseWriter, req *http.Request, name string) {
	sharedStatics().Serve(w, req, name)
}

// handler serves one start.
func (s *Server) handler(r *run) http.Handler {
	prefix := "/" + s.token + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		pagehttp.SecurityHeaders(w.Header())
		// DNS rebinding: a page of another name that resolves here sends
		// its own name as Host.
		if !allowedHost(req.Host, r.host, r.port) {
			pagehttp.Refuse(w, http.StatusForbidden, "wrong Host")
			return
		}
		path := req.URL.Path
		if !hasToken(path, prefix) {
			pagehttp.Refuse(w, http.StatusNotFound, "not found")
			return
		}
		name := path[len(prefix):]
		// Everything but the page itself is fetched by the page: a request
		// the browser says comes from another origin (another site, or a
		// page on another local port) is refused. The page may be opened
		// from anywhere (a link in a terminal or a chat), but it is read
		// only by whoever opened it.
		if name != "" && !pagehttp.SameOriginFetch(req) {
			pagehttp.Refuse(w, http.StatusForbidden, "cross-origin request")
			return
		}
		switch name {
		case "events":
			if req.Method != http.MethodGet {
				pagehttp.Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
				return
			}
			s.serveEvents(w, req, r)
		case "answer":
			s.serveAnswer(w, req)
		default:
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				pagehttp.Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
				return
			}
			if name == "" {
				name = "index.html"
			}
			s.statics.Serve(w, req, name)
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

// serveAnswer takes an answer: once per question, judged by the call's own
// core.
func (s *Server) serveAnswer(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		pagehttp.Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	// The page is served over plain http (loopback).
	if !pagehttp.SameOrigin(req, "http") {
		pagehttp.Refuse(w, http.StatusForbidden, "foreign Origin")
		return
	}
	var a answerRequest
	if !pagehttp.ReadPost(w, req, "answer", &a) {
		return
	}
	decline := a.Reply.Decline != nil
	if decline == (a.Reply.Picks != nil) || decline && !*a.Reply.Decline {
		pagehttp.Refuse(w, http.StatusBadRequest, "the reply is {\"picks\":[...]} or {\"decline\":true}")
		return
	}

	// Claim the question, so that a second answer meanwhile is refused.
	s.mu.Lock()
	it := s.items[a.ID]
	if it == nil || it.state != statePending {
		info, known := s.ended[a.ID]
		s.mu.Unlock()
		if it != nil {
			pagehttp.WriteJSON(w, http.StatusConflict, answerResponse{State: "checking", Message: "another answer to this question is being checked"})
			return
		}
		if known {
			pagehttp.WriteJSON(w, http.StatusConflict, answerResponse{State: info.State, Message: info.Message})
			return
		}
		pagehttp.WriteJSON(w, http.StatusNotFound, answerResponse{State: "unknown", Message: "no such question"})
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
		pagehttp.WriteJSON(w, http.StatusConflict, answerResponse{State: info.State, Message: info.Message})
		return
	}
	if status != http.StatusOK {
		it.state = statePending
		s.mu.Unlock()
		pagehttp.WriteJSON(w, status, resp)
		return
	}
	it.reply <- reply
	s.endLocked(it, info)
	s.mu.Unlock()
	pagehttp.WriteJSON(w, http.StatusOK, answerResponse{State: info.State, Message: info.Message})
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
	frame := pagehttp.Frame(event, data)
	for sub := range s.run.subs {
		select {
		case sub.ch <- frame:
		default:
			delete(s.run.subs, sub)
			close(sub.dropped)
		}
	}
}

// serveEvents streams the queue: the pending questions, then each question
// added and ended.
func (s *Server) serveEvents(w http.ResponseWriter, req *http.Request, r *run) {
	st, ok := pagehttp.NewStream(w, 0)
	if !ok {
		return
	}
	defer st.Close()
	sub := &subscriber{ch: make(chan []byte, subscriberBuffer), dropped: make(chan struct{})}
	s.mu.Lock()
	if s.run != r {
		s.mu.Unlock()
		pagehttp.Refuse(w, http.StatusServiceUnavailable, "stopping")
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

	st.Open(sseRetry)
	st.Send("pending", snapshot)
	st.Flush()
	for {
		select {
		case frame := <-sub.ch:
			st.Write(frame)
			// Send what else is queued with it.
			for n := len(sub.ch); n > 0; n-- {
				st.Write(<-sub.ch)
			}
			st.Flush()
		case <-st.KeepAliveDue():
			st.KeepAlive()
		case <-sub.dropped:
			return
		case <-req.Context().Done():
			return
		case <-r.ctx.Done():
			// The queued events first (the last questions' ends), then
			// goodbye: the page stops reconnecting.
			for n := len(sub.ch); n > 0; n-- {
				st.Write(<-sub.ch)
			}
			st.Send("bye", []byte("{}"))
			st.Flush()
			return
		}
	}
}
