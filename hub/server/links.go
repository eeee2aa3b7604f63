package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	g "maragu.dev/gomponents"
	h "maragu.dev/gomponents/html"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/pagehttp"
)

// Answer links (docs/notifications.md, "The security model of the
// links"): a link in a mail or a chat, or an ntfy button, answers one ask
// with one option, without a sign-in. Its token is the capability: 256
// random bits, kept only hashed, good for one ask, answering only while
// the ask is pending. The reply goes through Reply, the inbox's own path:
// the hub's core judges it, and the first reply of any surface wins.
//
//   - GET /a/{token} shows the question and the link's option with one
//     confirm button, and changes nothing: mail scanners and chat previews
//     fetch links.
//   - POST /a/{token} is that button: the form of the hub's own page, so
//     the browser's Origin must be the hub's and the form must carry the
//     token derived from the link (linkFormToken).
//   - POST /b/{token} is an ntfy button, pressed by the ntfy app (no
//     browser Origin, no page before it). Only the links minted for ntfy
//     buttons answer there: a mail's link never answers without its page.
//
// An unknown token is 404 and counts against the client address's
// failed-authentication budget (the agent API's); once spent, every link
// request from that address is 429 until it refills.

// linkRoutes registers the answer links.
func (s *Server) linkRoutes() {
	l := &links{s: s, endings: &inbox{core: s.core}}
	s.mux.Handle("GET "+store.LinkPath+"{token}", http.HandlerFunc(l.serveGet))
	s.mux.Handle("POST "+store.LinkPath+"{token}", http.HandlerFunc(l.servePost))
	s.mux.Handle("POST "+store.ButtonPath+"{token}", http.HandlerFunc(l.serveButton))
	refuse := func(w http.ResponseWriter, r *http.Request) {
		linkHeaders(w.Header())
		pagehttp.Refuse(w, http.StatusMethodNotAllowed, "method not allowed")
	}
	s.mux.Handle(store.LinkPath+"{token}", http.HandlerFunc(refuse))
	s.mux.Handle(store.ButtonPath+"{token}", http.HandlerFunc(refuse))
}

type links struct {
	s *Server
	// endings words how an ask ended, as the inbox does.
	endings *inbox
}

// linkMaxForm bounds the confirm button's form (one short field).
const linkMaxForm = 4 << 10

// linkCSS is the links' page style, allowed by its hash alone: the page
// loads nothing and runs no script.
const linkCSS = `body{margin:0;background:#f4f4f5;color:#18181b;font:16px/1.5 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:560px;margin:0 auto;padding:24px 16px}
.card{background:#fff;border:1px solid #e4e4e7;border-radius:8px;padding:16px;margin:0 0 16px}
.agent{color:#52525b;font-size:14px;margin:0 0 12px}
.header{margin:0 0 4px;font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#2563eb}
.question{margin:0 0 12px;font-size:18px;font-weight:600;white-space:pre-wrap}
.choice{border-left:4px solid #2563eb;padding:4px 12px;margin:0 0 16px}
.label{margin:0;font-weight:600}
.desc{margin:2px 0 0;color:#52525b;white-space:pre-wrap}
.rec{display:inline-block;margin-left:6px;padding:0 6px;border-radius:4px;background:#dcfce7;color:#166534;font-size:12px}
pre{margin:8px 0 0;padding:8px;background:#f4f4f5;border-radius:4px;font:13px ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
button{font:inherit;font-weight:600;padding:10px 20px;min-height:44px;border:0;border-radius:6px;background:#2563eb;color:#fff;cursor:pointer}
.outcome{white-space:pre-wrap}
.note{color:#71717a;font-size:13px}
a{color:#2563eb}`

// linkPolicy: nothing loads, nothing runs, the only form posts to the hub.
var linkPolicy = func() string {
	sum := sha256.Sum256([]byte(linkCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}()

// linkHeaders are the pages' headers (no-store: the page carries the
// link's form token; nosniff, no framing) with two differences: the link
// page's own policy, and the referrer kept on the same origin.
func linkHeaders(h http.Header) {
	pagehttp.SecurityHeaders(h)
	h.Set("Content-Security-Policy", linkPolicy)
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" with the confirm form's POST, which the Origin check
	// refuses. The link's URL goes to no other site either way.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Robots-Tag", "noindex, nofollow")
}

// linkPage is the link's page: the question and the link's option with
// its confirm button while the ask is pending, else how the ask ended.
// What the model, the agent or the person wrote (the agent's name, the
// question, the option, the outcome) goes in as text, escaped, never as
// markup.
func linkPage(v linkView) g.Node {
	q, o := v.Question, v.Option
	var rest, after g.Node
	if v.Pending {
		rest = g.Group{
			h.Div(h.Class("choice"),
				h.P(h.Class("label"), g.Text(o.Label), g.If(o.Recommended, h.Span(h.Class("rec"), g.Text("recommended")))),
				g.If(o.Description != "", h.P(h.Class("desc"), g.Text(o.Description))),
				g.If(o.Preview != "", h.Pre(g.Text(o.Preview))),
			),
			h.Form(h.Method("post"), h.Action(""),
				h.Input(h.Type("hidden"), h.Name("form"), h.Value(v.Form)),
				h.Button(h.Type("submit"), g.Text("Answer “"+o.Label+"”")),
			),
			h.P(h.Class("note"), g.Text("Nothing is sent until you press the button.")),
		}
		after = h.P(h.Class("note"), g.Text("To answer otherwise, open the inbox: "), h.A(h.Href(v.Inbox), g.Text(v.Inbox)))
	} else {
		rest = g.Group{
			h.H1(h.Class("label"), g.Text(v.Title)),
			h.P(h.Class("outcome"), g.Text(v.Outcome)),
		}
	}
	return h.Doctype(h.HTML(h.Lang("en"),
		h.Head(
			h.Meta(h.Charset("utf-8")),
			h.Meta(h.Name("viewport"), h.Content("width=device-width, initial-scale=1")),
			h.TitleEl(g.Text(v.Agent+" asks")),
			// Raw, as it is: the policy allows these bytes by their hash.
			h.StyleEl(g.Raw(linkCSS)),
		),
		h.Body(h.Main(
			h.Div(h.Class("card"),
				h.P(h.Class("agent"), h.Strong(g.Text(v.Agent)), g.Text(" asks you:")),
				g.If(q.Header != "", h.P(h.Class("header"), g.Text(q.Header))),
				h.P(h.Class("question"), g.Text(q.Question)),
				rest,
			),
			after,
		)),
	))
}

type linkView struct {
	Agent    string
	Question askcore.Question
	Option   askcore.Option
	Pending  bool
	Form     string
	Title    string
	Outcome  string
	Inbox    string
}

// linkFormToken is the confirm form's token, derived from the link's: a
// POST must come from the page a GET of the link served (or from someone
// holding the link, who could open that page anyway).
func linkFormToken(token string) string {
	sum := sha256.Sum256([]byte("askcore answer form\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// plausibleToken: the shape of a link token (a prefix and 43 base64url
// characters); anything else is not looked up.
func plausibleToken(t string) bool {
	rest, ok := strings.CutPrefix(t, store.AnswerLinkPrefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// lookup finds the link and its ask, or answers the request itself: 429
// for an address that guessed too often, 404 for an unknown token.
func (l *links) lookup(w http.ResponseWriter, r *http.Request) (store.AnswerLink, store.Ask, bool) {
	linkHeaders(w.Header())
	addr, now := clientAddr(r), l.s.now()
	if l.s.authLimits.exhausted(addr, now) {
		pagehttp.Refuse(w, http.StatusTooManyRequests, "too many unknown links from this address; wait and try again")
		return store.AnswerLink{}, store.Ask{}, false
	}
	token := r.PathValue("token")
	notFound := func() (store.AnswerLink, store.Ask, bool) {
		l.s.authLimits.allow(addr, now)
		pagehttp.Refuse(w, http.StatusNotFound, "no such link")
		return store.AnswerLink{}, store.Ask{}, false
	}
	if !plausibleToken(token) {
		return notFound()
	}
	link, err := l.s.store.AnswerLink(r.Context(), store.HashAnswerLinkToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	var a store.Ask
	if err == nil {
		a, err = l.s.store.Ask(r.Context(), link.AskID)
	}
	if err != nil {
		pagehttp.Refuse(w, http.StatusServiceUnavailable, "the store cannot be read")
		return store.AnswerLink{}, store.Ask{}, false
	}
	return link, a, true
}

// view is the page of link on a: the question and the link's option.
func (l *links) view(a store.Ask, link store.AnswerLink) (linkView, bool) {
	var q askcore.Question
	if json.Unmarshal(a.Call, &q) != nil || link.Option < 0 || link.Option >= len(q.Options) {
		return linkView{}, false
	}
	return linkView{Agent: a.AgentName, Question: q, Option: q.Options[link.Option], Inbox: l.s.base + "/"}, true
}

// ended shows how a ended (the first outcome).
func (l *links) ended(ctx context.Context, w http.ResponseWriter, status int, v linkView, a store.Ask, title string) {
	v.Pending, v.Title, v.Outcome = false, title, l.endings.endOf(ctx, a).Message
	writePage(w, status, linkPage(v))
}

func (l *links) serveGet(w http.ResponseWriter, r *http.Request) {
	link, a, ok := l.lookup(w, r)
	if !ok {
		return
	}
	v, ok := l.view(a, link)
	if !ok {
		pagehttp.Refuse(w, http.StatusNotFound, "no such link")
		return
	}
	if a.State != store.StatePending {
		l.ended(r.Context(), w, http.StatusOK, v, a, "This question is closed")
		return
	}
	v.Pending, v.Form = true, linkFormToken(r.PathValue("token"))
	if l.s.base == "" {
		// No --url: the inbox is where this page was opened.
		v.Inbox = l.scheme(r) + "://" + r.Host + "/"
	}
	writePage(w, http.StatusOK, linkPage(v))
}

// sameOrigin: the browser says the request comes from a page of the
// hub's own origin, as the hub's people see it.
func (l *links) sameOrigin(r *http.Request) bool {
	return pagehttp.SameOrigin(r, l.scheme(r))
}

// scheme is the hub's scheme as the browser sees it.
func (l *links) scheme(r *http.Request) string {
	if r.TLS != nil || l.s.secure {
		return "https"
	}
	return "http"
}

func (l *links) servePost(w http.ResponseWriter, r *http.Request) {
	link, a, ok := l.lookup(w, r)
	if !ok {
		return
	}
	if !l.sameOrigin(r) {
		pagehttp.Refuse(w, http.StatusForbidden, "foreign Origin: answer with the button of the link's page")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		pagehttp.Refuse(w, http.StatusUnsupportedMediaType, "the answer is the link page's form")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, linkMaxForm)
	want := linkFormToken(r.PathValue("token"))
	if err := r.ParseForm(); err != nil || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("form")), []byte(want)) != 1 {
		pagehttp.Refuse(w, http.StatusForbidden, "missing or wrong form token: answer with the button of the link's page")
		return
	}
	v, ok := l.view(a, link)
	if !ok {
		pagehttp.Refuse(w, http.StatusNotFound, "no such link")
		return
	}
	got, err := l.answer(r.Context(), a, link)
	var ended *EndedError
	var coreErr *askcore.Error
	switch {
	case err == nil:
		l.ended(r.Context(), w, http.StatusOK, v, got, "Your answer was sent")
	case errors.As(err, &ended):
		l.ended(r.Context(), w, http.StatusConflict, v, ended.Ask, "This question was closed already")
	case errors.As(err, &coreErr):
		v.Title, v.Outcome = "This answer was not taken", coreErr.Message
		writePage(w, http.StatusUnprocessableEntity, linkPage(v))
	default:
		l.s.log.Warn("answer link: reply", "ask", a.ID, "err", err)
		pagehttp.Refuse(w, http.StatusInternalServerError, "the answer could not be stored")
	}
}

// serveButton is an ntfy button's press: the POST of a link minted for
// ntfy, from the ntfy app (docs/notifications.md says why no Origin is
// asked for).
func (l *links) serveButton(w http.ResponseWriter, r *http.Request) {
	link, a, ok := l.lookup(w, r)
	if !ok {
		return
	}
	if link.Via != store.ViaNtfy {
		// A mail's or a chat's link answers only through its page.
		pagehttp.Refuse(w, http.StatusNotFound, "no such button")
		return
	}
	_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, linkMaxForm))
	got, err := l.answer(r.Context(), a, link)
	var ended *EndedError
	var coreErr *askcore.Error
	switch {
	case err == nil:
		pagehttp.Refuse(w, http.StatusOK, l.endings.endOf(r.Context(), got).Message)
	case errors.As(err, &ended):
		pagehttp.Refuse(w, http.StatusConflict, l.endings.endOf(r.Context(), ended.Ask).Message)
	case errors.As(err, &coreErr):
		pagehttp.Refuse(w, http.StatusUnprocessableEntity, coreErr.Message)
	default:
		l.s.log.Warn("answer button: reply", "ask", a.ID, "err", err)
		pagehttp.Refuse(w, http.StatusInternalServerError, "the answer could not be stored")
	}
}

// answer replies to a with the link's option, as its person, through
// Reply: judged by the hub's core, once across every surface and replica.
func (l *links) answer(ctx context.Context, a store.Ask, link store.AnswerLink) (store.Ask, error) {
	reply, err := json.Marshal(map[string][]askcore.Pick{"picks": {{Options: []int{link.Option}}}})
	if err != nil {
		return store.Ask{}, err
	}
	return l.s.Reply(ctx, a.PersonID, a.ID, reply, link.Via)
}
