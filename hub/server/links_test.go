package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/mailtest"
	"github.com/askcore/askcore/internal/testing/pagetest"
)

// richQuestion has what a mail must show whole: a header, descriptions,
// a preview and the recommended mark.
const richQuestion = `{"question":"Which database should the hub use?","header":"Database","options":[` +
	`{"label":"SQLite","description":"One file, no server.","preview":"--db ~/.local/share/askcore/hub.db"},` +
	`{"label":"PostgreSQL","description":"Several replicas share it.","recommended":true}]}`

// linkRE finds the answer links of a mail or a payload.
var linkRE = regexp.MustCompile(`https?://[^\s"<>]+/[ab]/acl_[A-Za-z0-9_-]{43}`)

// addMailTarget notifies the agent's person by mail through m.
func addMailTarget(t *testing.T, s store.Store, a agent, m *mailtest.Server, to string) {
	t.Helper()
	u := strings.Replace(m.URL(), "smtp://", "smtp://ada@", 1) // authenticated: mailpit takes any password
	_, err := s.AddNotifyTarget(context.Background(), store.NotifyTarget{PersonID: a.person, Kind: store.NotifyEmail, URL: u, Secret: "pw",
		Settings: store.TargetSettings{To: to, From: "hub@example.com"}})
	require.NoError(t, err)
}

// asked is an agent's question in flight through the hub client: the
// answer its own core resolves arrives on answer.
type asked struct {
	answer chan askcore.Answer
	err    chan error
}

func agentAsks(t *testing.T, r *replica, a agent, args, toolCallID string) asked {
	t.Helper()
	service := askcore.NewService(nil)
	dispose, err := service.Register(hub.New(r.url, a.token, hub.WithPollSeconds(5)))
	require.NoError(t, err)
	q := asked{answer: make(chan askcore.Answer, 1), err: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ans, err := service.Ask(ctx, args, askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: toolCallID}})
		if err != nil {
			q.err <- err
			return
		}
		q.answer <- ans
	}()
	t.Cleanup(func() { cancel(); <-done; dispose() })
	return q
}

func (q asked) wait(t *testing.T) askcore.Answer {
	t.Helper()
	select {
	case a := <-q.answer:
		return a
	case err := <-q.err:
		t.Fatalf("the agent's ask failed: %v", err)
	case <-time.After(waitLong):
		t.Fatal("the agent got no answer")
	}
	return askcore.Answer{}
}

// coreAnswer is the core's answer to args with option i chosen: the bytes
// the model must receive.
func coreAnswer(t *testing.T, args string, i int) string {
	t.Helper()
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, args)
	require.NoError(t, err)
	ans, err := call.Resolve(ctx, askcore.Picks(askcore.Pick{Options: []int{i}}))
	require.NoError(t, err)
	return string(ans.JSON())
}

// pendingAsk waits for the agent's one pending ask.
func pendingAsk(t *testing.T, s store.Store, a agent) store.Ask {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		asks, err := s.Asks(context.Background(), store.AskFilter{PersonID: a.person, State: store.StatePending})
		require.NoError(t, err)
		if len(asks) == 1 {
			return asks[0]
		}
		require.True(t, time.Now().Before(deadline), "no pending ask")
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

// formPost posts a link's confirm form as the hub's own page would.
func (r *replica) formPost(link, form string, header ...string) response {
	r.t.Helper()
	u, err := url.Parse(link)
	require.NoError(r.t, err)
	h := append([]string{"Content-Type", "application/x-www-form-urlencoded", "Origin", r.url, "Sec-Fetch-Site", "same-origin"}, header...)
	return r.do("POST", u.Path, "", url.Values{"form": {form}}.Encode(), h...)
}

// formToken reads the confirm form's token off a link's page.
var formTokenRE = regexp.MustCompile(`name="form" value="([A-Za-z0-9_-]+)"`)

func (r *replica) linkPage(link string) (response, string) {
	r.t.Helper()
	u, err := url.Parse(link)
	require.NoError(r.t, err)
	resp := r.do("GET", u.Path, "", "")
	m := formTokenRE.FindSubmatch(resp.body)
	if m == nil {
		return resp, ""
	}
	return resp, string(m[1])
}

// From a fresh hub: an email target, an agent asks, the mail arrives in
// mailpit with the whole question, one option link opened in headless
// Chromium changes nothing until its button is pressed, and the agent's
// core then gets the core's answer for that option byte for byte. The
// other link then shows the first outcome, and its POST is 409.
func TestEmailLinkAnswersInChromium(t *testing.T) {
	tab := pagetest.Chromium(t)
	eachDB(t, func(t *testing.T, d db) {
		// A failing step fails the test rather than waiting for ever.
		browser, cancel := context.WithTimeout(tab, 2*waitLong)
		defer cancel()
		mail := mailtest.Start(t, mailtest.Options{})
		r := newNotifyingReplica(t, d)
		a := addAgent(t, r.store, "ada", "laptop", 0)
		addMailTarget(t, r.store, a, mail, "ada@example.com")

		q := agentAsks(t, r, a, richQuestion, "call-1")
		m := mail.Message(mail.Wait(1)[0].ID)
		assert.Equal(t, "laptop asks: Database", m.Subject)
		assert.Equal(t, "ada@example.com", m.To[0].Address)
		for _, want := range []string{"Which database should the hub use?", "SQLite", "One file, no server.", "--db ~/.local/share/askcore/hub.db", "PostgreSQL  (recommended)", "Several replicas share it.", r.url + "/"} {
			assert.Contains(t, m.Text, want)
		}
		for _, want := range []string{"Which database should the hub use?", "One file, no server.", "recommended", "Answer “PostgreSQL”"} {
			assert.Contains(t, m.HTML, want)
		}
		mailParts(t, m.Raw) // its structure, and an HTML part that loads nothing
		links := linkRE.FindAllString(m.Text, -1)
		require.Len(t, links, 2, "one link per option: %s", m.Text)
		assert.ElementsMatch(t, links, linkRE.FindAllString(m.HTML, -1), "the same links in both parts")
		for _, l := range links {
			assert.NotContains(t, m.Raw, a.token)
			assert.True(t, strings.HasPrefix(l, r.url+store.LinkPath), l)
		}
		if path := os.Getenv("ASKCORE_MAIL_SCREENSHOT"); path != "" && d.name == "sqlite" {
			screenshotHTML(t, browser, m.HTML, path)
		}

		_, form0 := r.linkPage(links[0]) // for the POST after the ask closed
		require.NotEmpty(t, form0)
		require.NoError(t, chromedp.Do(browser, chromedp.Navigate(links[1])))
		page, err := chromedp.Run(browser, chromedp.Text("main"))
		require.NoError(t, err)
		assert.Contains(t, page, "PostgreSQL")
		assert.Contains(t, page, "Several replicas share it.")
		assert.Equal(t, store.StatePending, pendingAsk(t, r.store, a).State, "opening the link answered nothing")
		if path := os.Getenv("ASKCORE_LINK_SCREENSHOT"); path != "" && d.name == "sqlite" {
			png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, png, 0o644))
		}
		// The page's one style block is allowed by its hash in the CSP.
		bg, err := chromedp.Run(browser, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('form button')).backgroundColor`))
		require.NoError(t, err)
		assert.Equal(t, "rgb(37, 99, 235)", bg)

		// The button's own click (chromedp's synthetic mouse click waits
		// for a visibility probe this script-free page never answers).
		_, err = chromedp.Run(browser, chromedp.Evaluate[any](`document.querySelector('form button').click()`))
		require.NoError(t, err)
		require.NoError(t, chromedp.Do(browser, chromedp.WaitVisible("h1")))
		after, err := chromedp.Run(browser, chromedp.Text("main"))
		require.NoError(t, err)
		assert.Contains(t, after, "Your answer was sent")
		assert.Contains(t, after, "from an email link")

		got := q.wait(t)
		var events []store.Event
		assert.Equal(t, coreAnswer(t, richQuestion, 1), string(got.JSON()))

		events, err = r.store.Events(context.Background(), store.EventFilter{PersonID: a.person})
		require.NoError(t, err)
		require.Equal(t, store.EventReplied, events[len(events)-1].Kind)
		assert.Equal(t, store.ViaEmail, events[len(events)-1].Where)

		// The other option's link: its page shows the first outcome, its
		// POST is refused with it.
		resp, form := r.linkPage(links[0])
		assert.Equal(t, http.StatusOK, resp.status)
		assert.Empty(t, form, "no button on a closed question")
		assert.Contains(t, string(resp.body), "This question is closed")
		assert.Contains(t, string(resp.body), "Answered by ada")
		resp = r.formPost(links[0], form0)
		assert.Equal(t, http.StatusConflict, resp.status, "%s", resp.body)
		assert.Contains(t, string(resp.body), "from an email link")
	})
}

// screenshotHTML renders a mail's HTML part in Chromium and writes a PNG
// (docs/mail.png is made so: ASKCORE_MAIL_SCREENSHOT=$PWD/docs/mail.png;
// docs/answer-link.png, the link's page, by ASKCORE_LINK_SCREENSHOT).
func screenshotHTML(t *testing.T, browser context.Context, html, path string) {
	t.Helper()
	require.NoError(t, chromedp.Do(browser, chromedp.EmulateViewport(640, 900),
		chromedp.Navigate("data:text/html;base64,"+base64.StdEncoding.EncodeToString([]byte(html)))))
	png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, png, 0o644))
}

// The links' own rules, without a browser: GET changes nothing, a POST
// needs the hub's Origin and the form's token, a guessed or truncated
// token is 404 and, repeated, 429; a mail read after the ask was answered
// in the inbox, withdrawn by its agent or expired shows that outcome, and
// its confirm form (from the page opened while the ask was pending) is
// refused with 409.
func TestAnswerLinkRules(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		mail := mailtest.Start(t, mailtest.Options{})
		r := newReplicaConfig(t, d, server.Config{Options: server.Options{AuthFailRate: 0.001, AuthFailBurst: 2}, Notify: notify.Options{Poll: 10 * time.Millisecond, Timeout: 10 * time.Second}})
		a := addAgent(t, r.store, "ada", "laptop", 0)
		addMailTarget(t, r.store, a, mail, "ada@example.com")

		id := r.create(a, "c1")
		links := linkRE.FindAllString(mail.Message(mail.Wait(1)[0].ID).Text, -1)
		require.Len(t, links, 2)
		_, form1 := r.linkPage(links[1])
		var form0 string
		for i := range 3 {
			resp, form := r.linkPage(links[0])
			require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
			if i == 0 {
				form0 = form
			}
			require.Equal(t, form0, form, "the same form token on every GET")
			require.NotEmpty(t, form)
			require.NotEqual(t, form1, form, "a form token per link")
			assert.Contains(t, resp.header.Get("Content-Security-Policy"), "default-src 'none'")
			assert.Empty(t, resp.header.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, "no-store", resp.header.Get("Cache-Control"), "the page carries the link's form token")
			assert.Equal(t, "DENY", resp.header.Get("X-Frame-Options"))
			assert.Equal(t, "nosniff", resp.header.Get("X-Content-Type-Options"))
		}
		assert.Equal(t, store.StatePending, pendingAsk(t, r.store, a).State, "GETs answered nothing")

		for _, c := range []struct {
			name   string
			form   string
			header []string
			status int
		}{
			{"no Origin", form0, []string{"Origin", ""}, http.StatusForbidden},
			{"foreign Origin", form0, []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
			{"wrong form token", form1, nil, http.StatusForbidden},
			{"no form token", "", nil, http.StatusForbidden},
		} {
			resp := r.formPost(links[0], c.form, c.header...)
			assert.Equal(t, c.status, resp.status, "%s: %s", c.name, resp.body)
		}
		// Another Host (DNS rebinding) is refused before the link is read.
		resp := r.do("GET", mustPath(t, links[0]), "", "", "Host", "evil.example")
		assert.Equal(t, http.StatusMisdirectedRequest, resp.status)
		// A mail's link is no ntfy button.
		u, _ := url.Parse(links[0])
		resp = r.do("POST", strings.Replace(u.Path, store.LinkPath, store.ButtonPath, 1), "", "")
		assert.Equal(t, http.StatusNotFound, resp.status)
		assert.Equal(t, store.StatePending, pendingAsk(t, r.store, a).State)

		// Answered in the inbox before the mail was read: the link shows
		// that outcome and cannot answer again.
		_, err := r.srv.Reply(context.Background(), a.person, id, json.RawMessage(`{"picks":[{"options":[0],"text":""}]}`), "the inbox (Firefox on Linux)")
		require.NoError(t, err)
		page, form := r.linkPage(links[1])
		assert.Equal(t, http.StatusOK, page.status)
		assert.Empty(t, form)
		assert.Contains(t, string(page.body), "from the inbox (Firefox on Linux)")
		resp = r.formPost(links[1], form1)
		assert.Equal(t, http.StatusConflict, resp.status)

		// Withdrawn by its agent, or expired, before the mail was read:
		// the same, with that outcome.
		gone := addAgent(t, r.store, "ada", "gone", 0)
		late := addAgent(t, r.store, "ada", "late", time.Hour)
		goneID, lateID := r.create(gone, "c2"), r.create(late, "c3")
		for _, c := range []struct {
			agent   agent
			end     func()
			outcome string
		}{
			{gone, func() {
				resp := r.do("DELETE", "/v1/asks/"+goneID, gone.token, "")
				require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
			}, "the question was withdrawn"},
			{late, func() {
				// The hour's deadline, passed: what the hub's expiry does.
				expired, err := r.store.ExpireDue(context.Background(), time.Now().Add(2*time.Hour))
				require.NoError(t, err)
				require.Len(t, expired, 1)
				require.Equal(t, lateID, expired[0].ID)
			}, "no answer within 1h; nothing was chosen"},
		} {
			link := linkRE.FindString(mailFrom(t, mail, c.agent.name).Text)
			page, form := r.linkPage(link)
			require.Equal(t, http.StatusOK, page.status)
			require.NotEmpty(t, form, "%s: pending, the page has its button", c.agent.name)
			c.end()
			page, after := r.linkPage(link)
			assert.Equal(t, http.StatusOK, page.status, c.agent.name)
			assert.Empty(t, after, "%s: no button on a closed question", c.agent.name)
			assert.Contains(t, string(page.body), "This question is closed")
			assert.Contains(t, string(page.body), c.outcome)
			resp := r.formPost(link, form)
			assert.Equal(t, http.StatusConflict, resp.status, "%s: %s", c.agent.name, resp.body)
			assert.Contains(t, string(resp.body), c.outcome)
		}
		for _, id := range []string{goneID, lateID} {
			ask, err := r.store.Ask(context.Background(), id)
			require.NoError(t, err)
			assert.NotEqual(t, store.StateReplied, ask.State, "a link answered a closed ask")
		}

		// Guessed and truncated tokens: 404 while the address's budget
		// lasts (2), then 429 even for a good link.
		guessed, _ := store.NewAnswerLinkToken()
		assert.Equal(t, http.StatusNotFound, r.do("GET", store.LinkPath+guessed, "", "").status)
		assert.Equal(t, http.StatusNotFound, r.do("GET", u.Path[:len(u.Path)-5], "", "").status)
		assert.Equal(t, http.StatusTooManyRequests, r.do("GET", store.LinkPath+guessed, "", "").status)
		assert.Equal(t, http.StatusTooManyRequests, r.do("GET", u.Path, "", "").status)
	})
}

// mailFrom is the one mail of agent's ask, read whole.
func mailFrom(t *testing.T, m *mailtest.Server, agent string) mailtest.Message {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		var found []mailtest.Summary
		for _, s := range m.Messages() {
			if strings.HasPrefix(s.Subject, agent+" asks") {
				found = append(found, s)
			}
		}
		if len(found) > 0 {
			require.Len(t, found, 1, "one mail of %s's ask", agent)
			return m.Message(found[0].ID)
		}
		require.True(t, time.Now().Before(deadline), "no mail of %s's ask", agent)
		time.Sleep(20 * time.Millisecond) // polling a condition
	}
}

func mustPath(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u.Path
}
