package server

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	g "maragu.dev/gomponents"
	h "maragu.dev/gomponents/html"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/hub/internal/wire"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/pagehttp"
)

// The inbox: one page for all of a person's agents (docs/SPEC.md, "The
// hub's inbox"). It runs the answer page's own client (package hostjs's
// files and the page client's glue, served as answerpage serves them) under
// the answer page's locks (package pagehttp), plus a web session and a CSRF
// token.

// inboxFS holds the inbox's script and style; its two pages are built in
// Go (inboxPage, signinPage).
//
//go:embed static
var inboxFS embed.FS

// signinPolicy is the answer page's policy with one change, for the
// sign-in page only: its form may post to the hub itself.
var signinPolicy = strings.Replace(pagehttp.ContentSecurityPolicy, "form-action 'none'", "form-action 'self'", 1)

// DefaultInboxPoll is how often an open inbox looks at the store without
// being woken: what other replicas did (a reply, an ask) shows within it
// even where no notification reaches this process.
const DefaultInboxPoll = 2 * time.Second

// inboxRetry is how long the inbox's event stream waits before it
// reconnects.
const inboxRetry = 2 * time.Second

// maxKnown bounds the asks a page may name in ?known= (a page shows more
// only after long absences; one it does not name ends as "no longer
// waiting" instead of saying how).
const maxKnown = 100

// inboxFiles are the inbox's own script and style, served as the answer
// page serves its files (gzipped, compressed once).
var inboxFiles = sync.OnceValue(func() *pagehttp.Files {
	files := map[string][]byte{}
	for _, name := range []string{"inbox.js", "inbox.css"} {
		b, err := inboxFS.ReadFile("static/" + name)
		if err != nil {
			panic(err) // embedded above
		}
		files["/inbox/"+name] = b
	}
	return pagehttp.NewFiles(files, nil)
})

// inboxRoutes registers the inbox: the page, sign-in and sign-out, its
// event stream and its replies (docs/hub.md, "The inbox: routes, locks and the page"). Under
// Options.Secure (TLS, the hub's own or a proxy's) the browser's origin
// is https and the session cookie Secure.
func (s *Server) inboxRoutes() {
	in := &inbox{
		store:           s.store,
		reply:           s.Reply,
		core:            s.core,
		secureOrigin:    s.secure,
		sessionLifetime: DefaultSessionLifetime,
		poll:            DefaultInboxPoll,
		keepAlive:       s.keep,
		now:             s.now,
		subs:            map[chan struct{}]struct{}{},
		closed:          s.Closing(),
	}
	for _, pattern := range []string{"/{$}", "/signin", "/signout", "/inbox/", "/host/", "/favicon.svg"} {
		s.mux.Handle(pattern, in)
	}
}

// inbox serves the person's side of the hub. The server's guard has
// checked the Host header already (DNS rebinding).
type inbox struct {
	store           store.Store
	reply           func(ctx context.Context, personID int64, askID string, reply json.RawMessage, where string) (store.Ask, error)
	core            *askcore.Core // the words of an ask's end, and its summary
	secureOrigin    bool          // people reach the hub over TLS
	sessionLifetime time.Duration
	poll            time.Duration
	keepAlive       time.Duration // of the event streams (0: pagehttp.KeepAlive)
	now             func() time.Time

	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	closed <-chan struct{} // the server's Closing
}

// wakeAll has every open inbox look at the store now (a session ended).
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
func (in *inbox) secure(req *http.Request) bool { return req.TLS != nil || in.secureOrigin }

// sameOrigin: a state-changing request names the hub's own origin as the
// browser sees it, and the browser does not say it comes from elsewhere.
func (in *inbox) sameOrigin(req *http.Request) bool {
	scheme := "http"
	if in.secure(req) {
		scheme = "https"
	}
	return pagehttp.SameOrigin(req, scheme)
}

// changeSession is the web session of a state-changing request (a reply,
// a sign-out): signed in, from the hub's own origin, with the session's
// CSRF token; else it refuses.
func (in *inbox) changeSession(w http.ResponseWriter, req *http.Request) (store.WebSession, store.Person, bool) {
	s, p, ok := in.sessionOf(req)
	switch {
	case !ok:
		pagehttp.Refuse(w, http.StatusUnauthorized, "not signed in")
	case !in.sameOrigin(req):
		pagehttp.Refuse(w, http.StatusForbidden, "foreign Origin")
	case !inboxCSRFOK(req, s):
		pagehttp.Refuse(w, http.StatusForbidden, "missing or wrong CSRF token")
	default:
		return s, p, true
	}
	return s, p, false
}

type signinData struct {
	Token   string
	Message string
	// Reopen: the inbox was opened from another site, which a SameSite
	// Strict cookie does not come with; a link of the hub's own does.
	Reopen bool
}

type inboxData struct {
	CSRF   string
	Person string
}

// pageHead is the head of the inbox's pages: their charset, viewport,
// colour schemes, referrer policy, title and icon, then rest.
func pageHead(referrer, title string, rest ...g.Node) g.Node {
	return h.Head(
		h.Meta(h.Charset("utf-8")),
		h.Meta(h.Name("viewport"), h.Content("width=device-width, initial-scale=1")),
		h.Meta(h.Name("color-scheme"), h.Content("light dark")),
		h.Meta(h.Name("referrer"), h.Content(referrer)),
		h.TitleEl(g.Text(title)),
		h.Link(h.Rel("icon"), h.Href("/favicon.svg"), h.Type("image/svg+xml")),
		g.Group(rest),
	)
}

// inboxPage is the inbox's document: the page's script (inbox.js) fills
// it in. The person's name goes in as text, escaped.
func inboxPage(d inboxData) g.Node {
	return h.Doctype(h.HTML(h.Lang("en"),
		pageHead("no-referrer", "askcore inbox",
			h.Meta(h.Name("askcore-csrf"), h.Content(d.CSRF)),
			h.Link(h.Rel("stylesheet"), h.Href("/host/dom.css")),
			h.Link(h.Rel("stylesheet"), h.Href("/inbox/inbox.css")),
			h.Link(h.Rel("preload"), h.Href("/host/askcore.wasm"), h.As("fetch"), h.Type("application/wasm"), g.Attr("crossorigin")),
			h.Link(h.Rel("modulepreload"), h.Href("/inbox/client.js")),
			h.Link(h.Rel("modulepreload"), h.Href("/host/browser.js")),
			h.Link(h.Rel("modulepreload"), h.Href("/host/dom.js")),
			h.Script(h.Type("module"), h.Src("/inbox/inbox.js")),
		),
		h.Body(
			h.Header(h.Class("bar"),
				h.H1(g.Text("askcore inbox")),
				h.P(h.Class("who"), g.Text("Signed in as "), h.Span(h.ID("person"), g.Text(d.Person))),
				h.Button(h.Type("button"), h.ID("signout"), h.Class("signout"), g.Text("Sign out")),
			),
			h.Main(h.ID("main"), h.Aria("label", "Questions"),
				h.P(h.ID("status"), h.Role("status"), g.Text("Loading…")),
				h.Button(h.Type("button"), h.ID("notify"), h.Class("notify"), g.Attr("hidden"), g.Text("Notify me of new questions")),
				h.Div(h.ID("announce"), h.Class("visually-hidden"), h.Aria("live", "assertive"), h.Aria("atomic", "true")),
				h.Div(h.ID("asks")),
				h.NoScript(h.P(g.Text("This page needs JavaScript: it runs askcore's rules (askcore.wasm) to show the questions."))),
			),
		),
	))
}

// signinPage is the sign-in link's page: its one button, or why there is
// none.
func signinPage(d signinData) g.Node {
	var body g.Node
	if d.Token != "" {
		body = g.Group{
			h.P(g.Text("This link signs you in to the inbox of this hub, once: press the button on the device you want to answer from.")),
			h.Form(h.Method("post"), h.Action("/signin"),
				h.Input(h.Type("hidden"), h.Name("token"), h.Value(d.Token)),
				h.Button(h.Type("submit"), h.Class("primary"), g.Text("Sign in")),
			),
		}
	} else {
		body = g.Group{
			h.P(h.Role("alert"), g.Text(d.Message)),
			g.If(d.Reopen, h.P(g.Text("Came here from a link in another site or app? Your browser does not send the inbox's cookie then: "),
				h.A(h.Class("reopen"), h.Href("/"), g.Text("open the inbox")), g.Text("."))),
			h.P(g.Text("Ask for a new sign-in link on the hub's machine: "), h.Code(g.Text("askcore-hub login")), g.Text(".")),
		}
	}
	return h.Doctype(h.HTML(h.Lang("en"),
		pageHead("same-origin", "Sign in to the askcore inbox",
			h.Link(h.Rel("stylesheet"), h.Href("/inbox/inbox.css")),
		),
		h.Body(h.Main(h.Class("card"),
			h.H1(g.Text("askcore inbox")),
			body,
		)),
	))
}

// writePage sends a page whole, with its status.
func writePage(w http.ResponseWriter, status int, page g.Node) {
	var b bytes.Buffer
	_ = page.Render(&b) // only its writer can fail, and a bytes.Buffer does not
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// ServeHTTP serves the inbox's paths (inboxRoutes).
func (in *inbox) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	pagehttp.SecurityHeaders(w.Header())
	path := req.URL.Path
	get := req.Method == http.MethodGet || req.Method == http.MethodHead
	// The inbox and the sign-in link are opened from anywhere (a chat, a
	// mail, a bookmark); everything else is fetched by the hub's own pages.
	if path != "/" && path != "/signin" && !pagehttp.SameOriginFetch(req) {
		pagehttp.Refuse(w, http.StatusForbidden, "cross-origin request")
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
		inboxFiles().Serve(w, req, path)
	case path == "/inbox/client.js" && get:
		// The page client, the answer page's own file: one copy for both.
		answerpage.ServeFile(w, req, "client.js")
	case strings.HasPrefix(path, "/host/") && get:
		answerpage.ServeFile(w, req, strings.TrimPrefix(path, "/"))
	case path == "/favicon.svg" && get:
		answerpage.ServeFile(w, req, "favicon.svg")
	case path == "/" || path == "/signin" || path == "/signout" || path == "/inbox/events" || path == "/inbox/reply":
		pagehttp.Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
	default:
		pagehttp.Refuse(w, http.StatusNotFound, "not found")
	}
}

// servePage is the inbox for a signed-in person, else the page that says
// how to sign in.
func (in *inbox) servePage(w http.ResponseWriter, req *http.Request) {
	s, p, ok := in.sessionOf(req)
	if !ok {
		reopen := req.Header.Get("Sec-Fetch-Site") == "cross-site"
		writePage(w, http.StatusUnauthorized, signinPage(signinData{Message: "You are not signed in.", Reopen: reopen}))
		return
	}
	writePage(w, http.StatusOK, inboxPage(inboxData{CSRF: s.CSRFToken, Person: p.Name}))
}

// inboxItem is one pending ask as the page receives it.
type inboxItem struct {
	ID        string          `json:"id"`
	Call      json.RawMessage `json:"call"`
	Agent     string          `json:"agent"`
	SessionID string          `json:"sessionId"`
	Created   int64           `json:"created"` // ms since the epoch
	// WaitingUntil is when the asking program was last known to wait
	// (ms since the epoch): a minute after it, the page says the program
	// is not waiting now.
	WaitingUntil int64 `json:"waitingUntil"`
}

// inboxWaiting tells the page an ask's program waits again (or longer).
type inboxWaiting struct {
	ID           string `json:"id"`
	WaitingUntil int64  `json:"waitingUntil"`
}

// inboxEnd says how an ask ended, for the page; inboxVerdict answers a
// reply with it.
type inboxEnd struct {
	ID string `json:"id,omitempty"`
	// State is "replied", "withdrawn" or "expired".
	State     string `json:"state"`
	Message   string `json:"message"`
	RepliedBy string `json:"repliedBy,omitempty"`
	RepliedAt int64  `json:"repliedAt,omitempty"` // ms since the epoch
	Where     string `json:"where,omitempty"`
	// Reply is what the person gave (the seam's reply shapes), for the
	// page to mark the chosen options.
	Reply json.RawMessage `json:"reply,omitempty"`
}

// inboxVerdict is the hub's answer to a reply.
type inboxVerdict struct {
	inboxEnd
	// Error is the core's error object of an INVALID_ANSWER.
	Error json.RawMessage `json:"error,omitempty"`
}

func toInboxItem(a store.Ask) inboxItem {
	return inboxItem{ID: a.ID, Call: a.Call, Agent: a.AgentName, SessionID: a.SessionID, Created: a.CreatedAt.UnixMilli(), WaitingUntil: a.WaitingUntil.UnixMilli()}
}

// endOf says how a, no longer pending, ended: the core's words for a
// withdrawal or a deadline; for a reply the core's summary of it and who
// gave it, when and where.
func (in *inbox) endOf(ctx context.Context, a store.Ask) inboxEnd {
	e := inboxEnd{ID: a.ID, State: string(a.State)}
	switch a.State {
	case store.StateReplied:
		e.RepliedBy, e.Where, e.Reply = a.RepliedBy, a.RepliedWhere, a.Reply
		e.RepliedAt = a.UpdatedAt.UnixMilli()
		e.Message = fmt.Sprintf("Answered by %s at %s from %s", a.RepliedBy, a.UpdatedAt.UTC().Format("2006-01-02 15:04:05 UTC"), a.RepliedWhere)
		if summary := in.summary(ctx, a); summary != "" {
			e.Message = summary + "\n" + e.Message
		}
	case store.StateExpired:
		ms := a.UpdatedAt.Sub(a.CreatedAt).Milliseconds()
		if !a.ExpiresAt.IsZero() {
			ms = a.ExpiresAt.Sub(a.CreatedAt).Milliseconds()
		}
		e.Message = in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationTimeout, Millis: max(ms, 1)}).Message
	default:
		if a.RepliedWhere != "" && a.RepliedWhere != store.WhereAgent {
			// The agent's own surface (its terminal, its editor's form)
			// got the answer first.
			e.Where = a.RepliedWhere
			e.Message = in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: a.RepliedWhere}).Message
			break
		}
		e.Message = in.core.Fail(ctx, askcore.Failure{Situation: askcore.SituationWithdrawn}).Message
	}
	return e
}

// summary is the core's summary of a's reply ("" if there is none).
func (in *inbox) summary(ctx context.Context, a store.Ask) string {
	call, err := in.core.Normalize(ctx, string(a.Call))
	if err != nil {
		return ""
	}
	var shape struct {
		Lines   []string        `json:"lines"`
		Picks   []askcore.Pick  `json:"picks"`
		Form    json.RawMessage `json:"form"`
		Decline bool            `json:"decline"`
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
		// A decline resolves to the core's ASK_DECLINED: its message is
		// the summary.
		if e := askcore.AsError(err); e != nil && shape.Decline {
			return e.Message
		}
		return ""
	}
	s, err := call.Summary(ctx, ans)
	if err != nil {
		return ""
	}
	return s
}

// serveEvents streams the person's inbox: the pending asks, then each ask
// added and ended, whichever replica took the change. It looks at the
// store when the store says the person's asks changed (in process, or
// LISTEN/NOTIFY), when this process signs someone out, and every in.poll.
//
// A page that opens the stream again (the hub restarted, a proxy failed)
// names the asks it still shows, ?known=ID,ID,...: each of them that ended
// meanwhile comes first, as its end event, so the page says how it ended
// (another device's answer, a withdrawal) rather than only that it is
// gone.
func (in *inbox) serveEvents(w http.ResponseWriter, req *http.Request) {
	s, p, ok := in.sessionOf(req)
	if !ok {
		pagehttp.Refuse(w, http.StatusUnauthorized, "not signed in")
		return
	}
	st, ok := pagehttp.NewStream(w, in.keepAlive)
	if !ok {
		return
	}
	defer st.Close()
	ctx := req.Context()
	changed, stopWatch := in.store.Watch(store.PersonKey(p.ID))
	defer stopWatch()
	wake, stop := in.subscribe()
	defer stop()
	asks, err := in.pending(ctx, p.ID)
	if err != nil {
		pagehttp.Refuse(w, http.StatusServiceUnavailable, "the store cannot be read")
		return
	}
	known := map[string]bool{}
	waiting := map[string]int64{} // what the page was told of each ask's program
	items := make([]inboxItem, 0, len(asks))
	for _, a := range asks {
		known[a.ID] = true
		waiting[a.ID] = a.WaitingUntil.UnixMilli()
		items = append(items, toInboxItem(a))
	}
	ended := in.endedSince(ctx, p.ID, req.URL.Query().Get("known"), known)
	st.Open(inboxRetry)
	for _, e := range ended {
		st.SendJSON("end", e)
	}
	st.SendJSON("pending", map[string]any{"items": items, "now": in.now().UnixMilli()})
	if !st.Flush() {
		return
	}

	poll := time.NewTicker(in.poll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-in.closed:
			return
		case <-st.KeepAliveDue():
			if !st.KeepAlive() {
				return
			}
			continue
		case <-changed:
		case <-wake:
		case <-poll.C:
		}
		if _, err := in.store.WebSession(ctx, s.TokenHash, in.now()); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				st.SendJSON("signedout", struct{}{})
				st.Flush()
				return
			}
			continue
		}
		asks, err := in.pending(ctx, p.ID)
		if err != nil {
			continue
		}
		now := map[string]bool{}
		for _, a := range asks {
			now[a.ID] = true
		}
		for _, a := range asks {
			if until := a.WaitingUntil.UnixMilli(); known[a.ID] && waiting[a.ID] != until {
				waiting[a.ID] = until
				st.SendJSON("waiting", inboxWaiting{ID: a.ID, WaitingUntil: until})
			}
		}
		for _, a := range newAsks(known, asks) {
			waiting[a.ID] = a.WaitingUntil.UnixMilli()
			st.SendJSON("add", toInboxItem(a))
		}
		for id := range known {
			if now[id] {
				continue
			}
			a, err := in.store.Ask(ctx, id)
			if err != nil || a.State == store.StatePending {
				continue // listed meanwhile, or unreadable: the next look tells
			}
			delete(known, id)
			delete(waiting, id)
			st.SendJSON("end", in.endOf(ctx, a))
		}
		if !st.Flush() {
			return
		}
	}
}

// endedSince says how each ask of list (the page's ?known=, comma
// separated) ended: those of the person's that are neither pending nor
// unknown to the store. Another person's ask, or one that cannot be read,
// is left out, as is anything past maxKnown.
func (in *inbox) endedSince(ctx context.Context, personID int64, list string, pending map[string]bool) []inboxEnd {
	var ends []inboxEnd
	seen := map[string]bool{}
	for i, id := range strings.Split(list, ",") {
		if i == maxKnown {
			break
		}
		if id == "" || pending[id] || seen[id] {
			continue
		}
		seen[id] = true
		a, err := in.store.Ask(ctx, id)
		if err != nil || a.PersonID != personID || a.State == store.StatePending {
			continue
		}
		ends = append(ends, in.endOf(ctx, a))
	}
	return ends
}

// newAsks returns the asks not yet known, in the order given (oldest first,
// as the snapshot: the page puts each on top, so the newest ends on top
// however many arrive in one look), and marks them known.
func newAsks(known map[string]bool, asks []store.Ask) []store.Ask {
	var added []store.Ask
	for _, a := range asks {
		if !known[a.ID] {
			known[a.ID] = true
			added = append(added, a)
		}
	}
	return added
}

// pending lists the person's pending asks, oldest first.
func (in *inbox) pending(ctx context.Context, personID int64) ([]store.Ask, error) {
	asks, err := in.store.Asks(ctx, store.AskFilter{PersonID: personID, State: store.StatePending})
	if err != nil {
		return nil, err
	}
	// The store lists newest first.
	for i, j := 0, len(asks)-1; i < j; i, j = i+1, j-1 {
		asks[i], asks[j] = asks[j], asks[i]
	}
	return asks, nil
}

// inboxReplyRequest is what the page posts: the ask and what the person
// gave.
type inboxReplyRequest struct {
	ID    string          `json:"id"`
	Reply json.RawMessage `json:"reply"`
}

// serveReply takes a reply from the page: judged by the hub's core, stored
// once (a second reply, from any device or replica, is 409 with the first
// one's outcome).
func (in *inbox) serveReply(w http.ResponseWriter, req *http.Request) {
	_, p, ok := in.changeSession(w, req)
	if !ok {
		return
	}
	var r inboxReplyRequest
	if !pagehttp.ReadPost(w, req, "reply", &r) {
		return
	}
	if r.ID == "" || !inboxReplyShape(r.Reply) {
		pagehttp.Refuse(w, http.StatusBadRequest, pagehttp.PostShape("reply"))
		return
	}
	ctx := req.Context()
	a, err := in.reply(ctx, p.ID, r.ID, r.Reply, inboxDevice(req))
	var ended *EndedError
	var coreErr *askcore.Error
	var hubErr *wire.Error
	switch {
	case err == nil:
		pagehttp.WriteJSON(w, http.StatusOK, inboxVerdict{inboxEnd: in.endOf(ctx, a)})
	case errors.Is(err, ErrAskNotFound):
		pagehttp.WriteJSON(w, http.StatusNotFound, inboxVerdict{inboxEnd: inboxEnd{State: "unknown", Message: "no such question"}})
	case errors.As(err, &ended):
		pagehttp.WriteJSON(w, http.StatusConflict, inboxVerdict{inboxEnd: in.endOf(ctx, ended.Ask)})
	case errors.As(err, &hubErr):
		pagehttp.WriteJSON(w, http.StatusBadRequest, inboxVerdict{inboxEnd: inboxEnd{Message: hubErr.Message}})
	case errors.As(err, &coreErr) && coreErr.Code == askcore.CodeInvalidAnswer:
		pagehttp.WriteJSON(w, http.StatusUnprocessableEntity, inboxVerdict{inboxEnd: inboxEnd{Message: coreErr.Message}, Error: coreErr.JSON()})
	case errors.As(err, &coreErr):
		pagehttp.WriteJSON(w, http.StatusBadRequest, inboxVerdict{inboxEnd: inboxEnd{Message: coreErr.Message}, Error: coreErr.JSON()})
	default:
		pagehttp.Refuse(w, http.StatusInternalServerError, "the reply could not be stored")
	}
}

// inboxReplyShape: what the page sends, {"picks":[...]} (one pick per
// question; the core judges each) or {"decline":true}, and nothing else.
func inboxReplyShape(raw json.RawMessage) bool {
	var shape struct {
		Picks   *[]askcore.Pick `json:"picks"`
		Decline *bool           `json:"decline"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&shape) != nil || dec.More() {
		return false
	}
	if shape.Decline != nil {
		return *shape.Decline && shape.Picks == nil
	}
	return shape.Picks != nil && len(*shape.Picks) > 0
}

// inboxDevice names where a reply came from, for the event log and the
// other devices: the inbox, and the browser and system its User-Agent
// names.
func inboxDevice(req *http.Request) string {
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
