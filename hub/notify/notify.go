// Package notify tells a person of a new ask without a page open: it
// delivers the hub's outbox (one row per new ask and notification target,
// written in the ask's transaction) to webhooks, signed with HMAC-SHA256,
// to ntfy topics and by mail. A notification of a question whose options
// are each a whole answer carries answer links (links.go): capabilities
// for that one ask, never an agent's or a person's token. Delivery is asynchronous, with timeouts, bounded
// response reads and exponential backoff, so a failing receiver never
// slows asking or answering; rows are claimed under a lease (FOR UPDATE
// SKIP LOCKED on PostgreSQL), so several hub processes on one database
// deliver each row once.
package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askcore/askcore/hub/store"
)

// Headers of a webhook delivery.
const (
	// SignatureHeader is "t=UNIX_SECONDS,v1=HEX": HEX is the
	// HMAC-SHA256, keyed with the target's secret, of the timestamp, a
	// '.', and the body's bytes.
	SignatureHeader = "Askcore-Signature"
	// DeliveryHeader is the same on every attempt of one notification:
	// a receiver that saw it already drops the repeat.
	DeliveryHeader = "Askcore-Delivery"
)

// Webhook is the JSON body of a webhook delivery.
type Webhook struct {
	Type       string `json:"type"` // "ask.created"
	DeliveryID string `json:"deliveryId"`
	Ask        struct {
		ID      string `json:"id"`
		Agent   string `json:"agent"`
		Session string `json:"session"`
		// Call is the call as the hub's core normalized it.
		Call      json.RawMessage `json:"call"`
		CreatedAt time.Time       `json:"createdAt"`
	} `json:"ask"`
	InboxURL string `json:"inboxUrl"`
	// AnswerLinks answer the ask with one option each, for a single
	// question whose options are each a whole answer (else empty): a chat
	// bot renders them as buttons that open the link's confirm page.
	AnswerLinks []AnswerLink `json:"answerLinks"`
}

// Sign returns the SignatureHeader value for body at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a SignatureHeader value against body, in constant time,
// and refuses a timestamp further than window from now.
func Verify(secret, header string, body []byte, now time.Time, window time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return errors.New("hub notify: malformed signature header")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > window || d < -window {
		return errors.New("hub notify: signature timestamp outside the window")
	}
	want := Sign(secret, time.Unix(sec, 0), body)
	if !hmac.Equal([]byte(want), []byte("t="+ts+",v1="+sig)) {
		return errors.New("hub notify: signature mismatch")
	}
	return nil
}

// NewSecret returns a fresh webhook signing secret.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + hex.EncodeToString(b[:])
}

// CheckURL refuses a target URL that is not absolute http or https.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("hub notify: %q is not an http(s)://HOST/... URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("hub notify: %q carries credentials in the URL; give a token instead", raw)
	}
	return nil
}

// Options configure a Notifier. Store and InboxURL are required.
type Options struct {
	Store store.Store
	// InboxURL is the inbox's address, sent in every notification.
	InboxURL string
	Logger   *slog.Logger
	// Timeout bounds one delivery (default 10 s).
	Timeout time.Duration
	// Poll is how often the outbox is read (default 1 s).
	Poll time.Duration
	// Backoff is the delay before attempt n+1 after n failed attempts
	// (default 2^(n-1) s, at most an hour).
	Backoff func(attempts int) time.Duration
	// MaxAttempts: a notification that failed this often is given up
	// (default 30).
	MaxAttempts int
	// Client sends the requests; the default has Timeout and follows no
	// redirect.
	Client *http.Client
}

// maxResponse bounds how much of a receiver's response is read.
const maxResponse = 64 << 10

// Notifier delivers the outbox. Run it once per hub process.
type Notifier struct {
	o    Options
	wake chan struct{}
}

// New returns a Notifier.
func New(o Options) *Notifier {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration {
			if n > 12 {
				return time.Hour
			}
			return min(time.Second<<max(n-1, 0), time.Hour)
		}
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 30
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Client == nil {
		o.Client = &http.Client{
			Timeout: o.Timeout,
			// A receiver's redirect is a failed delivery: the body and
			// signature go only where the person said.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &Notifier{o: o, wake: make(chan struct{}, 1)}
}

// Kick makes Run read the outbox now (after a new ask), without waiting.
func (n *Notifier) Kick() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends.
func (n *Notifier) Run(ctx context.Context) {
	t := time.NewTicker(n.o.Poll)
	defer t.Stop()
	for {
		n.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-n.wake:
		}
	}
}

// RunOnce claims the due rows and attempts each once.
func (n *Notifier) RunOnce(ctx context.Context) {
	// The lease outlasts one delivery, so no other process takes a row
	// while it is being sent.
	items, err := n.o.Store.ClaimOutbox(ctx, time.Now(), 2*n.o.Timeout+5*time.Second, 20)
	if err != nil {
		if ctx.Err() == nil {
			n.o.Logger.Warn("notify: reading the outbox", "err", err)
		}
		return
	}
	for _, it := range items {
		if ctx.Err() != nil {
			return
		}
		err := n.deliver(ctx, it)
		done := err == nil || errors.Is(err, errDrop) || it.Attempts+1 >= n.o.MaxAttempts
		next := time.Now()
		if !done {
			next = next.Add(n.o.Backoff(it.Attempts + 1))
		}
		if err != nil {
			n.o.Logger.Warn("notify: delivery failed", "outbox", it.ID, "attempt", it.Attempts+1, "given up", done, "err", err)
		}
		if err := n.o.Store.MarkOutbox(context.WithoutCancel(ctx), it.ID, done, next); err != nil {
			n.o.Logger.Warn("notify: recording a delivery", "outbox", it.ID, "err", err)
		}
	}
}

// errDrop: the notification is moot (its target was removed, its ask
// answered already, or the row is not one this version knows), or can
// never be delivered (errDropped says why).
var errDrop = errors.New("hub notify: nothing to deliver")

// errDropped is err, given up at once.
func errDropped(err error) error { return fmt.Errorf("%w: %w", errDrop, err) }

func (n *Notifier) deliver(ctx context.Context, it store.OutboxItem) error {
	if it.Kind != store.OutboxAsked {
		return errDrop
	}
	var p store.AskedPayload
	if json.Unmarshal(it.Payload, &p) != nil {
		return errDrop
	}
	target, err := n.o.Store.NotifyTarget(ctx, p.TargetID)
	if errors.Is(err, store.ErrNotFound) {
		return errDrop
	}
	if err != nil {
		return err
	}
	ask, err := n.o.Store.Ask(ctx, p.AskID)
	if errors.Is(err, store.ErrNotFound) {
		return errDrop
	}
	if err != nil {
		return err
	}
	if ask.State != store.StatePending {
		return errDrop
	}
	id := ask.ID + "." + strconv.FormatInt(target.ID, 10)
	if target.Kind == store.NotifyEmail {
		return n.email(ctx, target, ask, id)
	}
	if CheckURL(target.URL) != nil {
		return errDrop
	}
	var req *http.Request
	switch target.Kind {
	case store.NotifyWebhook:
		req, err = n.webhook(ctx, target, ask, id)
	case store.NotifyNtfy:
		req, err = n.ntfy(ctx, target, ask)
	default:
		return errDrop
	}
	if err != nil {
		return err
	}
	req.Header.Set(DeliveryHeader, id)
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	resp, err := n.o.Client.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("hub notify: %s answered %s", target.URL, resp.Status)
	}
	return nil
}

func (n *Notifier) webhook(ctx context.Context, t store.NotifyTarget, a store.Ask, id string) (*http.Request, error) {
	var w Webhook
	w.Type, w.DeliveryID, w.InboxURL = "ask.created", id, n.o.InboxURL
	w.Ask.ID, w.Ask.Agent, w.Ask.Session, w.Ask.Call, w.Ask.CreatedAt = a.ID, a.AgentName, a.SessionID, a.Call, a.CreatedAt.UTC()
	links, err := n.answerLinks(ctx, a, store.ViaChat, store.LinkPath)
	if err != nil {
		return nil, err
	}
	w.AnswerLinks = append([]AnswerLink{}, links...)
	body, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askcore-hub")
	req.Header.Set(SignatureHeader, Sign(t.Secret, time.Now(), body))
	return req, nil
}

func (n *Notifier) ntfy(ctx context.Context, t store.NotifyTarget, a store.Ask) (*http.Request, error) {
	if t.Settings.AnswerButtons {
		if c := parseCall(a.Call); c.linkable() && len(c.Questions[0].Options) <= MaxNtfyButtons {
			return n.ntfyButtons(ctx, t, a)
		}
	}
	body := QuestionText(a.Call)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	// ntfy reads RFC 2047 encoded words in its headers: the agent's name
	// may be any text.
	req.Header.Set("Title", mime.BEncoding.Encode("UTF-8", a.AgentName+" asks"))
	req.Header.Set("Click", n.o.InboxURL)
	req.Header.Set("Tags", "question")
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("User-Agent", "askcore-hub")
	if t.Secret != "" {
		req.Header.Set("Authorization", "Bearer "+t.Secret)
	}
	return req, nil
}

// QuestionText is the plain text of a normalized call: each question's
// header and text, one question a line.
func QuestionText(call json.RawMessage) string {
	type q struct {
		Header   string `json:"header"`
		Question string `json:"question"`
	}
	var c struct {
		q
		Questions []q `json:"questions"`
	}
	_ = json.Unmarshal(call, &c)
	qs := c.Questions
	if len(qs) == 0 {
		qs = []q{c.q}
	}
	var lines []string
	for _, x := range qs {
		if x.Header != "" {
			lines = append(lines, x.Header+": "+x.Question)
		} else {
			lines = append(lines, x.Question)
		}
	}
	return strings.Join(lines, "\n")
}

// MaxNtfyButtons is ntfy's limit of actions on one notification.
const MaxNtfyButtons = 3

// ntfyMessage is ntfy's JSON publishing format (a POST to the server's
// root naming the topic), the one that carries actions as JSON.
type ntfyMessage struct {
	Topic   string       `json:"topic"`
	Title   string       `json:"title"`
	Message string       `json:"message"`
	Click   string       `json:"click"`
	Tags    []string     `json:"tags"`
	Actions []ntfyAction `json:"actions"`
}

// ntfyAction is an "http" action button: pressing it makes the ntfy app
// send the request itself, without opening anything.
type ntfyAction struct {
	Action string `json:"action"` // "http"
	Label  string `json:"label"`
	URL    string `json:"url"`
	Method string `json:"method"`
	Clear  bool   `json:"clear"`
}

// ntfyButtons publishes the ask with one button per option, each a POST
// to that option's button link (store.ButtonPath). The topic is the
// target URL's last path segment, published to through the server's root.
func (n *Notifier) ntfyButtons(ctx context.Context, t store.NotifyTarget, a store.Ask) (*http.Request, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, errDropped(err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	i := strings.LastIndex(path, "/")
	topic := path[i+1:]
	if topic == "" {
		return nil, errDropped(fmt.Errorf("hub notify: %s names no ntfy topic", t.URL))
	}
	u.Path, u.RawPath = path[:i+1], ""
	links, err := n.answerLinks(ctx, a, store.ViaNtfy, store.ButtonPath)
	if err != nil {
		return nil, err
	}
	m := ntfyMessage{Topic: topic, Title: oneLine(a.AgentName, 64) + " asks", Message: QuestionText(a.Call), Click: n.o.InboxURL, Tags: []string{"question"}}
	for _, l := range links {
		m.Actions = append(m.Actions, ntfyAction{Action: "http", Label: oneLine(l.Label, 40), URL: l.URL, Method: http.MethodPost, Clear: true})
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askcore-hub")
	if t.Secret != "" {
		req.Header.Set("Authorization", "Bearer "+t.Secret)
	}
	return req, nil
}
