package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/chantest"
)

// recorder is a real HTTP server on loopback that records each request.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []recorded
	got  chan struct{}
}

type recorded struct {
	method, path string
	header       http.Header
	body         []byte
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{got: make(chan struct{}, 100)}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{r.Method, r.URL.Path, r.Header.Clone(), b})
		rec.mu.Unlock()
		rec.got <- struct{}{}
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

// next waits for the next request.
func (rec *recorder) next(t *testing.T) recorded {
	t.Helper()
	select {
	case <-rec.got:
	case <-time.After(waitLong):
		t.Fatal("no request arrived")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.reqs[len(rec.reqs)-1]
}

// ntfyActionFields are the fields ntfy documents for an action button
// (docs.ntfy.sh, "Action buttons", JSON format); "http" actions need
// action, label and url.
var ntfyActionFields = map[string]bool{"action": true, "label": true, "url": true, "method": true, "headers": true, "body": true, "clear": true}

// ntfyPublishFields are the fields of ntfy's publish-as-JSON format
// (docs.ntfy.sh, "Publish as JSON").
var ntfyPublishFields = map[string]bool{"topic": true, "message": true, "title": true, "tags": true, "priority": true, "actions": true,
	"click": true, "attach": true, "markdown": true, "icon": true, "filename": true, "delay": true, "email": true, "call": true}

// ntfy with --answer-buttons: the ask is published as ntfy's JSON with one
// "http" action per option, each a POST to that option's button link;
// pressing one (the ntfy app's request: no Origin, no page) answers the
// ask, and the agent's core gets that option's answer. 3 options (ntfy's
// limit) get 3 buttons; a question of more, a multi-select question and
// a batch (no one option answers them) get the plain notification.
func TestNtfyAnswerButtons(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ntfy := newRecorder(t)
		r := newNotifyingReplica(t, d)
		a := addAgent(t, r.store, "ada", "laptop", 0)
		_, err := r.store.AddNotifyTarget(context.Background(), store.NotifyTarget{PersonID: a.person, Kind: store.NotifyNtfy, URL: ntfy.srv.URL + "/askcore-ada",
			Secret: "tk_topic", Settings: store.TargetSettings{AnswerButtons: true}})
		require.NoError(t, err)

		q := agentAsks(t, r, a, richQuestion, "call-1")
		got := ntfy.next(t)
		assert.Equal(t, "POST", got.method)
		assert.Equal(t, "/", got.path, "JSON is published to the server's root")
		assert.Equal(t, "application/json", got.header.Get("Content-Type"))
		assert.Equal(t, "Bearer tk_topic", got.header.Get("Authorization"))
		var msg struct {
			Topic, Title, Message, Click string
			Actions                      []map[string]any
		}
		require.NoError(t, json.Unmarshal(got.body, &msg), "%s", got.body)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(got.body, &fields))
		for k := range fields {
			assert.True(t, ntfyPublishFields[k], "field %q is not ntfy's", k)
		}
		assert.Equal(t, "askcore-ada", msg.Topic)
		assert.Equal(t, "laptop asks", msg.Title)
		assert.Contains(t, msg.Message, "Which database should the hub use?")
		assert.Equal(t, r.url+"/", msg.Click)
		require.Len(t, msg.Actions, 2)
		for i, act := range msg.Actions {
			for k := range act {
				assert.True(t, ntfyActionFields[k], "field %q is not ntfy's", k)
			}
			assert.Equal(t, "http", act["action"])
			assert.Equal(t, []string{"SQLite", "PostgreSQL"}[i], act["label"])
			assert.Equal(t, "POST", act["method"])
			assert.Equal(t, true, act["clear"])
			assert.True(t, strings.HasPrefix(act["url"].(string), r.url+store.ButtonPath), act["url"])
		}
		assert.NotContains(t, string(got.body), a.token)

		// The ntfy app presses "PostgreSQL".
		press := func() response {
			u := msg.Actions[1]["url"].(string)
			return r.do("POST", strings.TrimPrefix(u, r.url), "", "", "User-Agent", "ntfy/1.0")
		}
		resp := press()
		require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
		assert.Equal(t, coreAnswer(t, richQuestion, 1), string(q.wait(t).JSON()))
		events, err := r.store.Events(context.Background(), store.EventFilter{PersonID: a.person})
		require.NoError(t, err)
		assert.Equal(t, store.ViaNtfy, events[len(events)-1].Where)
		resp = press()
		assert.Equal(t, http.StatusConflict, resp.status, "a second press: %s", resp.body)
		assert.Contains(t, string(resp.body), "from an ntfy button")

		// Three options: ntfy's limit, three buttons.
		resp = r.do("POST", "/v1/asks", a.token, createBody(`{"question":"Which?","options":[{"label":"a"},{"label":"b"},{"label":"c"}]}`, "c3", "s1"))
		require.Contains(t, []int{200, 201}, resp.status, "%s", resp.body)
		got = ntfy.next(t)
		assert.Equal(t, "/", got.path)
		var three struct{ Actions []map[string]any }
		require.NoError(t, json.Unmarshal(got.body, &three), "%s", got.body)
		require.Len(t, three.Actions, 3)
		for i, act := range three.Actions {
			assert.Equal(t, []string{"a", "b", "c"}[i], act["label"])
		}

		// No buttons: four options (more than ntfy's 3 actions), a
		// multi-select question, a batch. The plain publish: the text to
		// the topic's URL, no JSON, no actions.
		for i, args := range []string{
			`{"question":"Which?","options":[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"}]}`,
			`{"question":"Which suites?","multiSelect":true,"options":[{"label":"unit"},{"label":"e2e"}]}`,
			`{"questions":[{"question":"Ship it?","options":[{"label":"Yes"},{"label":"No"}]},{"question":"Anything else?","options":[]}]}`,
		} {
			resp := r.do("POST", "/v1/asks", a.token, createBody(args, fmt.Sprintf("plain-%d", i), "s1"))
			require.Contains(t, []int{200, 201}, resp.status, "%s", resp.body)
			got = ntfy.next(t)
			assert.Equal(t, "/askcore-ada", got.path, args)
			assert.NotContains(t, got.header, "Actions", args)
			assert.True(t, strings.HasPrefix(got.header.Get("Content-Type"), "text/plain"), args)
			assert.False(t, json.Valid(got.body), "a plain text, not JSON: %s", got.body)
			assert.NotContains(t, string(got.body), store.ButtonPath, args)
		}
	})
}

// The webhook's payload carries answerLinks and inboxUrl, on the wire as
// docs/notifications.md shows them (and no token of the agent's or the
// person's); the relay of docs/notifications.md turns them into a chat
// message with buttons (here posted to a recording server), and a
// button's link, followed and confirmed, answers the ask. A multi-select
// question's and a batch's answerLinks are [].
func TestWebhookRelayToChat(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		chat := newRecorder(t)
		r := newNotifyingReplica(t, d)
		a := addAgent(t, r.store, "ada", "laptop", 0)
		signin, signinHash := server.NewToken("")
		require.NoError(t, r.store.CreateSigninLink(ctx, store.SigninLink{TokenHash: signinHash, PersonID: a.person, ExpiresAt: time.Now().Add(time.Hour)}))
		secret := notify.NewSecret()
		// The hub's webhooks as they arrive, before the relay reads them.
		hooks := make(chan []byte, 10)
		relayTo := relay(secret, chat.srv.URL+"/post")
		relaySrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			hooks <- b
			req.Body = io.NopCloser(bytes.NewReader(b))
			relayTo.ServeHTTP(w, req)
		}))
		defer relaySrv.Close()
		_, err := r.store.AddNotifyTarget(ctx, store.NotifyTarget{PersonID: a.person, Kind: store.NotifyWebhook, URL: relaySrv.URL, Secret: secret})
		require.NoError(t, err)

		// wire reads a webhook's body as JSON, and checks what it must
		// never hold.
		wire := func() map[string]any {
			t.Helper()
			body := chantest.Receive(t, hooks, waitLong, "no webhook")
			for _, secret := range []string{a.token, server.HashToken(a.token), signin, signinHash, server.AgentTokenPrefix} {
				assert.NotContains(t, string(body), secret)
			}
			var m map[string]any
			require.NoError(t, json.Unmarshal(body, &m), "%s", body)
			assert.Equal(t, r.url+"/", m["inboxUrl"])
			require.Contains(t, m, "answerLinks")
			return m
		}

		q := agentAsks(t, r, a, richQuestion, "call-1")
		hook := wire()
		links, ok := hook["answerLinks"].([]any)
		require.True(t, ok, "answerLinks is an array: %v", hook["answerLinks"])
		require.Len(t, links, 2)
		for i, l := range links {
			link, ok := l.(map[string]any)
			require.True(t, ok, "%v", l)
			assert.ElementsMatch(t, []string{"label", "value", "url"}, slices.Collect(maps.Keys(link)))
			assert.Equal(t, []string{"SQLite", "PostgreSQL"}[i], link["label"])
			assert.Equal(t, []string{"SQLite", "PostgreSQL"}[i], link["value"])
			assert.Regexp(t, "^"+regexp.QuoteMeta(r.url+store.LinkPath)+"acl_", link["url"])
		}

		got := chat.next(t)
		var msg chatMessage
		require.NoError(t, json.Unmarshal(got.body, &msg), "%s", got.body)
		assert.Contains(t, msg.Text, "laptop asks: Database: Which database should the hub use?")
		require.Len(t, msg.Buttons, 3)
		assert.Equal(t, "SQLite", msg.Buttons[0].Text)
		assert.Equal(t, "PostgreSQL", msg.Buttons[1].Text)
		assert.Equal(t, chatButton{Text: "Open the inbox", URL: r.url + "/"}, msg.Buttons[2])

		page, form := r.linkPage(msg.Buttons[0].URL)
		require.Equal(t, http.StatusOK, page.status)
		resp := r.formPost(msg.Buttons[0].URL, form)
		require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
		assert.Equal(t, coreAnswer(t, richQuestion, 0), string(q.wait(t).JSON()))
		events, err := r.store.Events(ctx, store.EventFilter{PersonID: a.person})
		require.NoError(t, err)
		assert.Equal(t, store.ViaChat, events[len(events)-1].Where)

		// No one option answers these: answerLinks is [], not null.
		for i, args := range []string{
			`{"question":"Which suites?","multiSelect":true,"options":[{"label":"unit"},{"label":"e2e"}]}`,
			`{"questions":[{"question":"Ship it?","options":[{"label":"Yes"},{"label":"No"}]},{"question":"Anything else?","options":[]}]}`,
		} {
			resp := r.do("POST", "/v1/asks", a.token, createBody(args, fmt.Sprintf("whole-%d", i), "s1"))
			require.Contains(t, []int{200, 201}, resp.status, "%s", resp.body)
			hook := wire()
			assert.Equal(t, []any{}, hook["answerLinks"], "%s", args)
			chat.next(t)
		}
	})
}

// relay:begin
// chatMessage is what the chat's incoming webhook takes: a text and URL
// buttons (the shape of Slack's, Mattermost's and others', simplified).
type chatMessage struct {
	Text    string       `json:"text"`
	Buttons []chatButton `json:"buttons"`
}

type chatButton struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// relay takes the hub's webhook, checks its signature, and posts the ask
// to the chat with one button per answer link and one to the inbox. A
// button opens the link's page, whose confirm button answers.
func relay(secret, chatURL string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		sig := r.Header.Get(notify.SignatureHeader)
		if err != nil || notify.Verify(secret, sig, body, time.Now(), 5*time.Minute) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var hook notify.Webhook
		if err := json.Unmarshal(body, &hook); err != nil {
			http.Error(w, "bad payload", http.StatusBadRequest)
			return
		}
		msg := chatMessage{Text: hook.Ask.Agent + " asks: " + notify.QuestionText(hook.Ask.Call)}
		for _, l := range hook.AnswerLinks {
			msg.Buttons = append(msg.Buttons, chatButton{Text: l.Label, URL: l.URL})
		}
		msg.Buttons = append(msg.Buttons, chatButton{Text: "Open the inbox", URL: hook.InboxURL})
		out, _ := json.Marshal(msg)
		resp, err := http.Post(chatURL, "application/json", bytes.NewReader(out))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway) // the hub retries
			return
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			http.Error(w, "chat: "+resp.Status, http.StatusBadGateway)
		}
	})
}

// relay:end
