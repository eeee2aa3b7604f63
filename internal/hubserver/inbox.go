package hubserver

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
)

// The inbox: one page for all of a person's agents (docs/SPEC.md, "The
// hub's inbox"). It runs the answer page's own client (package hostjs's
// files, served as answerpage serves them) under the answer page's locks
// (answerpage.SecurityHeaders), plus a web session and a CSRF token.

//go:embed static
var inboxFS embed.FS

var (
	inboxPage  = template.Must(template.ParseFS(inboxFS, "static/inbox.html"))
	signinPage = template.Must(template.ParseFS(inboxFS, "static/signin.html"))
)

// signinPolicy is the answer page's policy with one change, for the
// sign-in page only: its form may post to the hub itself.
var signinPolicy = strings.Replace(answerpage.ContentSecurityPolicy, "form-action 'none'", "form-action 'self'", 1)

const (
	// maxReplyBytes bounds a reply's body; the core's own limits on what a
	// person types are far smaller.
	maxReplyBytes = 1 << 20
	// inboxKeepAlive is how often an idle event stream gets a comment.
	inboxKeepAlive = 15 * time.Second
	// DefaultInboxPoll is how often an open inbox looks at the store
	// without being woken: what other replicas did (a reply, an ask) shows
	// within it even where no notification reaches this process.
	DefaultInboxPoll = 2 * time.Second
)

var errNotFound = errors.New("hubserver: not found")

// person is a signed-in person.
type person struct {
	ID   string
	Name string
}

// inboxAsk is one ask as the inbox shows it.
type inboxAsk struct {
	ID        string
	Agent     string // the agent's name
	SessionID string
	Call      json.RawMessage // the core's normalized call
	Created   time.Time
	// State is "pending", "replied", "withdrawn" or "expired".
	State     string
	Reply     json.RawMessage // the reply shape, once replied
	RepliedBy string          // the person's name
	RepliedAt time.Time
	Where     string
	Ended     time.Time
}

// replyConflict: the ask was replied to (or ended) before this reply.
type replyConflict struct{ ask inboxAsk }

func (c *replyConflict) Error() string { return "hubserver: the ask is " + c.ask.State }

// inboxBackend is what the inbox needs of the hub: its store and its reply.
type inboxBackend interface {
	useSignin(ctx context.Context, tokenHash []byte, now time.Time) (personID string, err error)
	createSession(ctx context.Context, tokenHash []byte, personID string, expires time.Time) error
	sessionPerson(ctx context.Context, tokenHash []byte, now time.Time) (person, error)
	deleteSession(ctx context.Context, tokenHash []byte) error
	// pending lists the person's pending asks, oldest first.
	pending(ctx context.Context, personID string) ([]inboxAsk, error)
	// ask returns one of the person's asks (errNotFound for another's).
	ask(ctx context.Context, personID, id string) (inboxAsk, error)
	// reply judges and stores a reply: the ask as replied, errNotFound, a
	// *replyConflict, or the core's INVALID_ANSWER (*askcore.Error).
	reply(ctx context.Context, personID, id string, reply json.RawMessage, where string) (inboxAsk, error)
}

// inbox serves the person's side of the hub.
type inbox struct {
	b               inboxBackend
	core            *askcore.Core // the words of an ask's end, and its summary
	hostAllowed     func(host string) bool
	tlsProxy        bool // a proxy in front terminates TLS
	sessionLifetime time.Duration
	poll            time.Duration
	now             func() time.Time

	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	closed chan struct{}
	once   sync.Once
}

func newInbox(b inboxBackend, core *askcore.Core, hostAllowed func(string) bool, tlsProxy bool) *inbox {
	return &inbox{
		b:               b,
		core:            core,
		hostAllowed:     hostAllowed,
		tlsProxy:        tlsProxy,
		sessionLifetime: DefaultSessionLifetime,
		poll:            DefaultInboxPoll,
		now:             time.Now,
		subs:            map[chan struct{}]struct{}{},
		closed:          make(chan struct{}),
	}
}

// close ends every open event stream.
func (in *inbox) close() { in.once.Do(func() { close(in.closed) }) }

// wakeAll has every open inbox look at the store now (an ask was added or
// ended in this process).
func (in *inbox) wakeAll() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for ch := range in.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (in *inbox) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	in.mu.Lock()
	in.subs[ch] = struct{}{}
	in.mu.Unlock()
	return ch, func() {
		in.mu.Lock()
		delete(in.subs, ch)
		in.mu.Unlock()
	}
}

// secure: the browser reaches the hub over TLS (its own, or a proxy's).
func (in *inbox) secure(req *http.Request) bool { return req.TLS != nil || in.tlsProxy }

// sameOrigin: a state-changing request names the hub's own origin as the
// browser sees it, and the browser does not say it comes from elsewhere.
func (in *inbox) sameOrigin(req *http.Request) bool {
	scheme := "http"
	if in.secure(req) {
		scheme = "https"
	}
	origin := req.Header.Get("Origin")
	return origin != "" && strings.EqualFold(origin, scheme+"://"+req.Host) && answerpage.SameOriginFetch(req)
}

func refuse(w http.ResponseWriter, status int, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, why+"\n")
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

type signinData struct {
	Token   string
	Message string
}

type inboxData struct {
	CSRF   string
	Person string
}

func (in *inbox) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		refuse(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// isInboxPath: the paths the inbox serves; everything else is the hub's.
func isInboxPath(p string) bool {
	switch p {
	case "/", "/signin", "/signout", "/favicon.svg":
		return true
	}
	return strings.HasPrefix(p, "/inbox/") || strings.HasPrefix(p, "/host/")
}

// ServeHTTP serves the inbox's paths (isInboxPath).
func (in *inbox) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	answerpage.SecurityHeaders(w.Header())
	// DNS rebinding: a page of another name that resolves here sends its
	// own name as Host.
	if !in.hostAllowed(req.Host) {
		refuse(w, http.StatusForbidden, "wrong Host")
		return
	}
	path := req.URL.Path
	get := req.Method == http.MethodGet || req.Method == http.MethodHead
	// The inbox and the sign-in link are opened from anywhere (a chat, a
	// mail, a bookmark); everything else is fetched by the hub's own pages.
	if path != "/" && path != "/signin" && !answerpage.SameOriginFetch(req) {
		refuse(w, http.StatusForbidden, "cross-origin request")
		return
	}
	switch {
	case path == "/" && get:
		in.servePage(w, req)
	case path == "/signin" && get:
		in.serveSigninPage(w, req)
	case path == "/signin" && req.Method == http.MethodPost:
		in.serveSignin(w, req)
	case path == "/signout" && req.Method == http.MethodPost:
		in.serveSignout(w, req)
	case path == "/inbox/events" && req.Method == http.MethodGet:
		in.serveEvents(w, req)
	case path == "/inbox/reply" && req.Method == http.MethodPost:
		in.serveReply(w, req)
	case (path == "/inbox/inbox.js" || path == "/inbox/inbox.css") && get:
		in.serveStatic(w, req, "static/"+strings.TrimPrefix(path, "/inbox/"))
	case strings.HasPrefix(path, "/host/") && get:
		answerpage.ServeFile(w, req, strings.TrimPrefix(path, "/"))
	case path == "/favicon.svg" && get:
		answerpage.ServeFile(w, req, "favicon.svg")
	case path == "/" || path == "/signin" || path == "/signout" || path == "/inbox/events" || path == "/inbox/reply":
		refuse(w, http.StatusMethodNotAllowed, "method not allowed")
	default:
		refuse(w, http.StatusNotFound, "not found")
	}
}

func (in *inbox) serveStatic(w http.ResponseWriter, req *http.Request, name string) {
	b, err := inboxFS.ReadFile(name)
	if err != nil {
		refuse(w, http.StatusNotFound, "not found")
		return
	}
	ctype := "text/css; charset=utf-8"
	if strings.HasSuffix(name, ".js") {
		ctype = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	if req.Method != http.MethodHead {
		w.Write(b)
	}
}

// servePage is the inbox for a signed-in person, else the page that says
// how to sign in.
func (in *inbox) servePage(w http.ResponseWriter, req *http.Request) {
	session, p, ok := in.sessionOf(req)
	if !ok {
		in.render(w, http.StatusUnauthorized, signinPage, signinData{Message: "You are not signed in."})
		return
	}
	name := p.Name
	if name == "" {
		name = p.ID
	}
	in.render(w, http.StatusOK, inboxPage, inboxData{CSRF: csrfToken(session), Person: name})
}

// pageAsk is one pending ask as the page receives it.
type pageAsk struct {
	ID        string          `json:"id"`
	Call      json.RawMessage `json:"call"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"sessionId"`
	Created   int64           `json:"created"` // ms since the epoch
}

// pageEnd says how an ask ended, for the page.
type pageEnd struct {
	ID string `json:"id"`
	// State is "replied", "withdrawn" or "expired".
	State     string `json:"state"`
	Message   string `json:"message"`
	RepliedBy string `json:"repliedBy,omitempty"`
	RepliedAt int64  `json:"repliedAt,omitempty"`
	Where     string `json:"where,omitempty"`
}

func toPage(a inboxAsk) pageAsk {
	return pageAsk{ID: a.ID, Call: a.Call, Agent: a.Agent, SessionID: a.SessionID, Created: a.Created.UnixMilli()}
}

// endOf says how a, no longer pending, ended: the core's words for a
// withdrawal or a deadline, the core's summary of a reply and who gave it,
// when and where.
func (in *inbox) endOf(ctx context.Context, a inboxAsk) pageEnd {
	e := pageEnd{ID: a.ID, State: a.State}
	switch a.State {
	case "replied":
		e.RepliedBy, e.Where = a.RepliedBy, a.Where
		e.RepliedAt = a.RepliedAt.UnixMilli()
		summary := in.summary(ctx, a)
		e.Message = fmt.Sprintf("Answered by %s at %s from %s", a.RepliedBy, a.RepliedAt.UTC().Format("2006-01-02 15:04:05 UTC"), a.Where)
		if summary != "" {
			e.Message = summary + "\n" + e.Message
		}
	case "expired":
		ms := a.Ended.Sub(a.Created).Milliseconds()
		if ms <= 0 {
			ms = 1
		}
		e.Message = in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationTimeout, Millis: ms}).Message
	default:
		e.Message = in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationWithdrawn}).Message
	}
	return e
}

// summary is the core's summary of a's reply ("" if it has none).
func (in *inbox) summary(ctx context.Context, a inboxAsk) string {
	call, err := in.core.Normalize(ctx, string(a.Call))
	if err != nil {
		return ""
	}
	var shape struct {
		Picks   []askcore.Pick `json:"picks"`
		Decline bool           `json:"decline"`
		Lines   []string       `json:"lines"`
		Form    json.RawMessage
	}
	if json.Unmarshal(a.Reply, &shape) != nil {
		return ""
	}
	var r askcore.Reply
	switch {
	case shape.Decline:
		r = askcore.Decline()
	case shape.Picks != nil:
		r = askcore.Picks(shape.Picks...)
	case shape.Lines != nil:
		r = askcore.Lines(shape.Lines...)
	case shape.Form != nil:
		r = askcore.FormReply(shape.Form)
	default:
		return ""
	}
	ans, err := call.Resolve(ctx, r)
	if err != nil {
		return ""
	}
	s, err := call.Summary(ctx, ans)
	if err != nil {
		return ""
	}
	return s
}

func sseFrame(event string, v any) []byte {
	data, _ := json.Marshal(v)
	// data never holds a line break: compact JSON escapes them.
	return []byte("event: " + event + "\ndata: " + string(data) + "\n\n")
}

// serveEvents streams the person's inbox: the pending asks, then each ask
// added and ended, from whichever replica. It looks at the store when
// woken (an ask added or ended in this process) and every in.poll.
func (in *inbox) serveEvents(w http.ResponseWriter, req *http.Request) {
	session, p, ok := in.sessionOf(req)
	if !ok {
		refuse(w, http.StatusUnauthorized, "not signed in")
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		refuse(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	ctx := req.Context()
	wake, stop := in.subscribe()
	defer stop()
	asks, err := in.b.pending(ctx, p.ID)
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, "the store cannot be read")
		return
	}
	known := map[string]bool{}
	items := make([]pageAsk, 0, len(asks))
	for _, a := range asks {
		known[a.ID] = true
		items = append(items, toPage(a))
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte("retry: 2000\n\n"))
	w.Write(sseFrame("pending", map[string]any{"items": items, "now": in.now().UnixMilli()}))
	fl.Flush()

	poll := time.NewTicker(in.poll)
	defer poll.Stop()
	keep := time.NewTicker(inboxKeepAlive)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-in.closed:
			return
		case <-keep.C:
			w.Write([]byte(": keep-alive\n\n"))
			fl.Flush()
			continue
		case <-wake:
		case <-poll.C:
		}
		if _, err := in.b.sessionPerson(ctx, HashToken(session), in.now()); err != nil {
			if errors.Is(err, errNotFound) {
				w.Write(sseFrame("signedout", struct{}{}))
				fl.Flush()
				return
			}
			continue
		}
		asks, err := in.b.pending(ctx, p.ID)
		if err != nil {
			continue
		}
		now := map[string]bool{}
		for _, a := range asks {
			now[a.ID] = true
			if !known[a.ID] {
				known[a.ID] = true
				w.Write(sseFrame("add", toPage(a)))
			}
		}
		for id := range known {
			if now[id] {
				continue
			}
			a, err := in.b.ask(ctx, p.ID, id)
			if err == nil && a.State == "pending" {
				continue // listed meanwhile: the next look shows it
			}
			delete(known, id)
			if err != nil {
				w.Write(sseFrame("end", pageEnd{ID: id, State: "withdrawn", Message: in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationWithdrawn}).Message}))
				continue
			}
			w.Write(sseFrame("end", in.endOf(ctx, a)))
		}
		fl.Flush()
	}
}

// replyRequest is what the page posts: the ask and what the person gave.
type replyRequest struct {
	ID    string          `json:"id"`
	Reply json.RawMessage `json:"reply"`
}

// replyResponse is the hub's verdict.
type replyResponse struct {
	State   string          `json:"state,omitempty"`
	Message string          `json:"message,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	// Question is the question (from 0) an INVALID_ANSWER is about.
	Question  *int   `json:"question,omitempty"`
	RepliedBy string `json:"repliedBy,omitempty"`
	RepliedAt int64  `json:"repliedAt,omitempty"`
	Where     string `json:"where,omitempty"`
}

// serveReply takes a reply from the page: judged by the hub's core, stored
// once (a second reply, from any device or replica, is 409 with the first
// one's outcome).
func (in *inbox) serveReply(w http.ResponseWriter, req *http.Request) {
	session, p, ok := in.sessionOf(req)
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
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		refuse(w, http.StatusUnsupportedMediaType, "the reply is application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxReplyBytes))
	if err != nil {
		refuse(w, http.StatusRequestEntityTooLarge, "the reply is too large")
		return
	}
	var r replyRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil || dec.More() || r.ID == "" || len(r.Reply) == 0 {
		refuse(w, http.StatusBadRequest, "the reply is {\"id\":...,\"reply\":{\"picks\":[...]} or {\"decline\":true}}")
		return
	}
	a, err := in.b.reply(req.Context(), p.ID, r.ID, r.Reply, deviceOf(req))
	var conflict *replyConflict
	var coreErr *askcore.Error
	switch {
	case err == nil:
		in.wakeAll()
		e := in.endOf(req.Context(), a)
		writeJSON(w, http.StatusOK, replyResponse{State: e.State, Message: e.Message, RepliedBy: e.RepliedBy, RepliedAt: e.RepliedAt, Where: e.Where})
	case errors.Is(err, errNotFound):
		writeJSON(w, http.StatusNotFound, replyResponse{State: "unknown", Message: "no such question"})
	case errors.As(err, &conflict):
		e := in.endOf(req.Context(), conflict.ask)
		writeJSON(w, http.StatusConflict, replyResponse{State: e.State, Message: e.Message, RepliedBy: e.RepliedBy, RepliedAt: e.RepliedAt, Where: e.Where})
	case errors.As(err, &coreErr) && coreErr.Code == askcore.CodeInvalidAnswer:
		resp := replyResponse{Message: coreErr.Message, Error: coreErr.JSON()}
		writeJSON(w, http.StatusUnprocessableEntity, resp)
	case errors.As(err, &coreErr) && coreErr.Code == askcore.CodeInvalidRequest:
		writeJSON(w, http.StatusBadRequest, replyResponse{Message: coreErr.Message, Error: coreErr.JSON()})
	default:
		refuse(w, http.StatusInternalServerError, "the reply could not be stored")
	}
}

// deviceOf names where a reply came from, for the event log and the other
// devices: the inbox, and the browser and system its User-Agent names.
func deviceOf(req *http.Request) string {
	ua := req.Header.Get("User-Agent")
	pick := func(pairs ...string) string {
		for i := 0; i < len(pairs); i += 2 {
			if strings.Contains(ua, pairs[i]) {
				return pairs[i+1]
			}
		}
		return ""
	}
	browser := pick("Edg/", "Edge", "Firefox/", "Firefox", "Chrome/", "Chrome", "Chromium/", "Chromium", "Safari/", "Safari")
	system := pick("Android", "Android", "iPhone", "iPhone", "iPad", "iPad", "Windows", "Windows", "Mac OS X", "macOS", "CrOS", "ChromeOS", "Linux", "Linux")
	switch {
	case browser != "" && system != "":
		return "the inbox (" + browser + " on " + system + ")"
	case browser != "" || system != "":
		return "the inbox (" + browser + system + ")"
	}
	return "the inbox"
}
