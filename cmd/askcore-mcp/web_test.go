package main

// The answer page through the real binary over pipes: a client without
// form elicitation, URL-mode elicitation, cancellation, a timeout, a
// signal, --web=never and --web=always, and the browser.

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/signaltest"
)

// callWithToken sends tools/call id with args and a progress token.
func (p *proc) callWithToken(id int, args, token string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + args + `,"_meta":{"progressToken":"` + token + `"}}}`)
}

// call sends tools/call id with args.
func (p *proc) call(id int, args string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + args + `}}`)
}

// progressParams are a notifications/progress's params.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Message       string          `json:"message"`
}

// pageURL is the page's URL as the process printed it on stderr: on
// loopback, its token 43 characters of base64url.
func (p *proc) pageURL() string {
	p.t.Helper()
	u := pagetest.WaitURL(p.t, p.stderr.String, p.exited)
	require.Regexp(p.t, `^http://127\.0\.0\.1:[0-9]+/[A-Za-z0-9_-]{43}/$`, u)
	return u
}

// recvResult reads messages until the result of call id, skipping
// progress notifications, and returns the others it read before it.
func (p *proc) recvResult(id int) (msg, []msg) {
	p.t.Helper()
	var others []msg
	for {
		m := p.recv()
		switch {
		case m.Method == "notifications/progress":
		case m.Method == "" && string(m.ID) == itoa(id):
			return m, others
		default:
			others = append(others, m)
		}
	}
}

// TestPageAnswersClientWithoutForms: a client that advertised no form
// elicitation (on 2025-11-25, where the call stays open, and on
// 2026-07-28, where it would have got an input request) is asked on the
// page: its URL on stderr and in the progress message at once, the page
// and its event stream serve the core's normalized call, the person's
// picks go back as page.js posts them, and the tool result is the core's
// answer bytes.
func TestPageAnswersClientWithoutForms(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			p := startProc(t, "--engine", "native", "--progress", "1h")
			p.handshake(version, `{}`)
			p.callWithToken(2, choiceArgs, "tok")
			m := p.recv()
			require.Equal(t, "notifications/progress", m.Method, "%s", m.raw)
			var pp progressParams
			require.NoError(t, json.Unmarshal(m.Params, &pp))
			url := p.pageURL()
			// The core's words (op progress), the page's URL last.
			assert.True(t, strings.HasPrefix(pp.Message, "Waiting for your answer…") && strings.HasSuffix(pp.Message, " Answer at "+url),
				"the progress message names the page: %q", pp.Message)
			assert.Equal(t, `"tok"`, string(pp.ProgressToken))

			page := pagetest.Open(t, url)
			page.Load()
			events := page.Events()
			q := events.Question()
			assert.Equal(t, normalized(t, choiceArgs), string(q.Call), "the page gets the core's normalized call")
			status, verdict := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{0}}))
			require.Equal(t, http.StatusOK, status, "%+v", verdict)
			assert.Equal(t, "answered", verdict.State)
			assert.Contains(t, verdict.Message, "PostgreSQL", "the page shows the core's summary")

			res, others := p.recvResult(2)
			assert.Empty(t, others)
			assert.Equal(t, coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{0}})), p.toolText(res, 2))
			assert.Equal(t, pagetest.End{ID: q.ID, State: "answered", Message: verdict.Message}, events.Ended())

			// A second answer to the same question is refused.
			status, again := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{1}}))
			assert.Equal(t, http.StatusConflict, status)
			assert.Equal(t, "answered", again.State)
			assert.True(t, p.logged("outcome=answered"), p.stderr.String())
		})
	}
}

// TestPageBatchCustomTextAndDecline: a batch answered with an option and
// the person's own text, then a question declined on the page
// (ASK_DECLINED), both the core's bytes; one page serves both calls.
func TestPageBatchCustomTextAndDecline(t *testing.T) {
	batch := `{"questions":[` + choiceArgs + `,` + openArgs + `]}`
	p := startProc(t, "--engine", "native")
	p.handshake("2025-11-25", `{}`)
	p.call(2, batch)
	page := pagetest.Open(t, p.pageURL())
	events := page.Events()
	q := events.Question()
	picks := []askcore.Pick{{Options: []int{1}}, {Text: "askcore <b>&</b>"}}
	status, verdict := page.Answer(q.ID, pagetest.Picks(picks...))
	require.Equal(t, http.StatusOK, status, "%+v", verdict)
	res, _ := p.recvResult(2)
	assert.Equal(t, coretest.Resolved(t, batch, askcore.Picks(picks...)), p.toolText(res, 2))

	p.call(3, openArgs)
	q = events.Question()
	status, verdict = page.Answer(q.ID, pagetest.Decline())
	require.Equal(t, http.StatusOK, status, "%+v", verdict)
	assert.Equal(t, "declined", verdict.State)
	res, _ = p.recvResult(3)
	text := p.toolText(res, 3)
	assert.Equal(t, coretest.Resolved(t, openArgs, askcore.Decline()), text)
	assert.Contains(t, text, `"code":"ASK_DECLINED"`)
	assert.Equal(t, 1, strings.Count(p.stderr.String(), pagetest.LogPrefix), "one page for both calls")
}

// TestPageRefusesAnAnswerThatIsNoOption: a pick the core refuses stays on
// the page (422, the core's message for the person) and the question is
// still answerable.
func TestPageRefusesAnAnswerThatIsNoOption(t *testing.T) {
	noCustom := `{"question":"Pick one","options":["A","B"]}`
	p := startProc(t, "--engine", "native")
	p.handshake("2025-11-25", `{}`)
	p.call(2, noCustom)
	page := pagetest.Open(t, p.pageURL())
	q := page.Events().Question()
	status, verdict := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "C"}))
	assert.Equal(t, http.StatusUnprocessableEntity, status, "%+v", verdict)
	assert.NotEmpty(t, verdict.Message, "the core's message for the person")
	status, _ = page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{1}}))
	require.Equal(t, http.StatusOK, status)
	res, _ := p.recvResult(2)
	assert.Equal(t, coretest.Resolved(t, noCustom, askcore.Picks(askcore.Pick{Options: []int{1}})), p.toolText(res, 2))
}

// urlParams are the params of a URL-mode elicitation/create.
type urlParams struct {
	Mode          string `json:"mode"`
	Message       string `json:"message"`
	URL           string `json:"url"`
	ElicitationID string `json:"elicitationId"`
}

// TestURLModeElicitation: a client that advertises elicitation.url (and
// no form) gets the page's URL through elicitation/create mode "url"
// with an elicitationId; its accept is only consent: the answer comes
// from the page, after which the client hears
// notifications/elicitation/complete, before the tool result. An answer
// on the page before consent cancels the consent request; a refused
// consent is the core's verdict and withdraws the question from the page.
func TestURLModeElicitation(t *testing.T) {
	const caps = `{"elicitation":{"url":{}}}`
	// ask sends the call and returns the URL-mode request, once the
	// first progress notification (sent at once, naming the page) came
	// too, in either order.
	ask := func(t *testing.T, p *proc, id int) (msg, urlParams) {
		p.callWithToken(id, choiceArgs, "tok")
		var el *msg
		progress := ""
		for el == nil || progress == "" {
			m := p.recv()
			if m.Method == "notifications/progress" {
				var pp progressParams
				require.NoError(t, json.Unmarshal(m.Params, &pp))
				progress = pp.Message
				continue
			}
			require.Equal(t, "elicitation/create", m.Method, "%s", m.raw)
			el = &m
		}
		var up urlParams
		require.NoError(t, json.Unmarshal(el.Params, &up))
		assert.True(t, strings.HasPrefix(progress, "Waiting for your answer…") && strings.HasSuffix(progress, " Answer at "+up.URL), "%q", progress)
		return *el, up
	}
	// complete reads the complete notification of elicitationID, then
	// the result of call id, noting a cancellation of request reqID.
	complete := func(t *testing.T, p *proc, id int, elicitationID string) (string, []msg) {
		var seen bool
		for {
			m := p.recv()
			switch m.Method {
			case "notifications/progress":
				continue
			case "notifications/elicitation/complete":
				var c struct {
					ElicitationID string `json:"elicitationId"`
				}
				require.NoError(t, json.Unmarshal(m.Params, &c))
				assert.Equal(t, elicitationID, c.ElicitationID)
				seen = true
				res, others := p.recvResult(id)
				return p.toolText(res, id), others
			case "notifications/cancelled":
				continue
			}
			require.True(t, seen, "the result came before notifications/elicitation/complete: %s", m.raw)
		}
	}

	t.Run("consent, then the page", func(t *testing.T) {
		p := startProc(t, "--engine", "native", "--progress", "1h")
		p.handshake("2025-11-25", caps)
		el, up := ask(t, p, 2)
		url := p.pageURL()
		assert.Equal(t, urlParams{Mode: "url", Message: "Answer in your browser: Which database should I use?", URL: url, ElicitationID: up.ElicitationID}, up)
		assert.Regexp(t, `^[0-9a-f]{32}$`, up.ElicitationID)
		p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept"}}`)
		p.ping("after-consent")

		page := pagetest.Open(t, up.URL)
		page.Load()
		events := page.Events()
		q := events.Question()
		status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{1}}))
		require.Equal(t, http.StatusOK, status)
		text, others := complete(t, p, 2, up.ElicitationID)
		assert.Equal(t, coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}})), text)
		assert.Empty(t, others)
		assert.Equal(t, "answered", events.Ended().State)
	})

	t.Run("the page before consent", func(t *testing.T) {
		p := startProc(t, "--engine", "native", "--progress", "1h")
		p.handshake("2025-11-25", caps)
		el, up := ask(t, p, 2)
		page := pagetest.Open(t, up.URL)
		q := page.Events().Question()
		status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{0}}))
		require.Equal(t, http.StatusOK, status)
		// The consent request still open is cancelled (go-sdk sends that
		// notification in the background: before or after the rest), the
		// interaction is complete and the call answered.
		var cancelled, completed, answered bool
		for !cancelled || !answered {
			m := p.recv()
			switch {
			case m.Method == "notifications/cancelled":
				var c struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				require.NoError(t, json.Unmarshal(m.Params, &c))
				assert.Equal(t, string(el.ID), string(c.RequestID))
				cancelled = true
			case m.Method == "notifications/elicitation/complete":
				assert.Contains(t, string(m.Params), up.ElicitationID)
				completed = true
			case m.Method == "notifications/progress":
			default:
				require.True(t, completed, "the result came before notifications/elicitation/complete: %s", m.raw)
				assert.Equal(t, coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{0}})), p.toolText(m, 2))
				answered = true
			}
		}
		// The client's late reply to the cancelled request is dropped.
		p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":{"action":"accept"}}`)
		p.ping("after-late-consent")
	})

	for _, tc := range []struct{ name, response, want string }{
		{"consent declined", `"result":{"action":"decline"}`, wantAnswerText(t, choiceArgs, `{"action":"decline"}`)},
		{"consent cancelled", `"result":{"action":"cancel"}`, wantAnswerText(t, choiceArgs, `{"action":"cancel"}`)},
		{"an unknown action", `"result":{"action":"later"}`, wantAnswerText(t, choiceArgs, `{"action":"later"}`)},
		{"a client error", `"error":{"code":-32602,"message":"no such mode"}`,
			string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationClientError, Detail: "no such mode (JSON-RPC error -32602)"}).JSON())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProc(t, "--engine", "native", "--progress", "1h")
			p.handshake("2025-11-25", caps)
			el, up := ask(t, p, 2)
			events := pagetest.Open(t, up.URL).Events()
			q := events.Question()
			// A person reads the consent dialog before refusing it: a
			// refusal sooner than core.NotShownMillis is not_shown.
			<-time.After((core.NotShownMillis + 50) * time.Millisecond)
			p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,` + tc.response + `}`)
			res, others := p.recvResult(2)
			assert.Empty(t, others, "no complete notification: nothing was done on the page")
			assert.Equal(t, tc.want, p.toolText(res, 2))
			end := events.Ended()
			assert.Equal(t, q.ID, end.ID)
			assert.Equal(t, "aborted", end.State)
			assert.Contains(t, end.Message, "the page was not opened in the MCP client")
		})
	}
}

// wantAnswerText is the core's verdict on a form reply to args.
func wantAnswerText(t *testing.T, args, reply string) string {
	t.Helper()
	b, _ := coretest.FormAnswer(t, args, reply)
	return string(b)
}

// TestCancelledCallLeavesThePage: notifications/cancelled for a call
// asked on the page withdraws its question there (the page hears it
// ended, an answer to it is refused), the call ends with ASK_ABORTED,
// and the next call is answered on the same page.
func TestCancelledCallLeavesThePage(t *testing.T) {
	p := startProc(t, "--engine", "native")
	p.handshake("2025-11-25", `{}`)
	p.call(2, choiceArgs)
	page := pagetest.Open(t, p.pageURL())
	events := page.Events()
	q := events.Question()
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user pressed Esc"}}`)
	end := events.Ended()
	assert.Equal(t, pagetest.End{ID: q.ID, State: "aborted", Message: end.Message}, end)
	assert.NotEmpty(t, end.Message)
	status, verdict := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{0}}))
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "aborted", verdict.State)
	waitMatch(t, p.stderr, regexp.MustCompile(`outcome=ASK_ABORTED`))

	p.call(3, openArgs)
	q = events.Question()
	status, _ = page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "still here"}))
	require.Equal(t, http.StatusOK, status)
	res, _ := p.recvResult(3)
	assert.Equal(t, coretest.Resolved(t, openArgs, askcore.Picks(askcore.Pick{Text: "still here"})), p.toolText(res, 3))
}

// TestPageTimeout: --timeout applies on the page: ASK_TIMEOUT, and the
// page hears the question timed out. 5 s: the page's event stream must
// open before the question ends, which a loaded machine can delay.
func TestPageTimeout(t *testing.T) {
	p := startProc(t, "--engine", "native", "--timeout", "5s")
	p.handshake("2025-11-25", `{}`)
	p.call(2, choiceArgs)
	events := pagetest.Open(t, p.pageURL()).Events()
	q := events.Question()
	res, _ := p.recvResult(2)
	text := p.toolText(res, 2)
	assert.Equal(t, string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationTimeout, Millis: 5000}).JSON()), text)
	end := events.Ended()
	assert.Equal(t, q.ID, end.ID)
	assert.Equal(t, "timeout", end.State)
}

// TestSignalWithdrawsFromThePage: SIGTERM with a question on the page: the
// page hears it withdrawn (naming the signal) and says goodbye, the call
// gets the core's stopped error, and the process exits 143 within 2 s.
func TestSignalWithdrawsFromThePage(t *testing.T) {
	p := startProc(t, "--engine", "native")
	p.handshake("2025-11-25", `{}`)
	p.call(2, choiceArgs)
	events := pagetest.Open(t, p.pageURL()).Events()
	q := events.Question()
	signalled := time.Now()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	res, _ := p.recvResult(2)
	assert.Equal(t, string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationStopped, Detail: "SIGTERM"}).JSON()), p.toolText(res, 2))
	end := events.Ended()
	assert.Equal(t, q.ID, end.ID)
	assert.Equal(t, "aborted", end.State)
	assert.Contains(t, end.Message, "askcore-mcp was stopped (SIGTERM)")
	events.Next("bye")
	assert.Equal(t, 143, p.wait(), "stderr:\n%s", p.stderr.String())
	assert.Less(t, time.Since(signalled), signaltest.ExitBound)
}

// TestWebNever: --web=never keeps ASK_FAILED (no_form_support) for a
// client without forms, at once, and starts no page.
func TestWebNever(t *testing.T) {
	for _, caps := range []string{`{}`, `{"elicitation":{"url":{}}}`} {
		t.Run(caps, func(t *testing.T) {
			p := startProc(t, "--engine", "native", "--web=never")
			p.handshake("2025-11-25", caps)
			p.call(2, choiceArgs)
			res, others := p.recvResult(2)
			assert.Empty(t, others)
			assert.Equal(t, string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationNoFormSupport}).JSON()), p.toolText(res, 2))
			require.NoError(t, p.stdin.Close())
			assert.Equal(t, 0, p.wait())
			assert.NotContains(t, p.stderr.String(), "askcore: answer at", "no page")
		})
	}
}

// TestWebAlways: --web=always asks on the page even a client that shows
// forms (no form is sent), and through URL mode where it is advertised.
func TestWebAlways(t *testing.T) {
	t.Run("form client", func(t *testing.T) {
		p := startProc(t, "--engine", "native", "--web=always", "--progress", "1h")
		p.handshake("2025-11-25", `{"elicitation":{"form":{}}}`)
		p.callWithToken(2, openArgs, "tok")
		m := p.recv()
		require.Equal(t, "notifications/progress", m.Method, "no form, the page: %s", m.raw)
		page := pagetest.Open(t, p.pageURL())
		q := page.Events().Question()
		status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "Hardy"}))
		require.Equal(t, http.StatusOK, status)
		res, others := p.recvResult(2)
		assert.Empty(t, others, "no elicitation/create")
		assert.Equal(t, coretest.Resolved(t, openArgs, askcore.Picks(askcore.Pick{Text: "Hardy"})), p.toolText(res, 2))
	})
	t.Run("form and url client", func(t *testing.T) {
		p := startProc(t, "--engine", "native", "--web=always")
		p.handshake("2025-11-25", `{"elicitation":{"form":{},"url":{}}}`)
		p.call(2, openArgs)
		m := p.recv()
		require.Equal(t, "elicitation/create", m.Method, "%s", m.raw)
		var up urlParams
		require.NoError(t, json.Unmarshal(m.Params, &up))
		assert.Equal(t, "url", up.Mode)
		assert.Equal(t, p.pageURL(), up.URL)
	})
}

// TestBrowserOpened: the page is opened in "the browser"
// (ASKCORE_BROWSER names a command, here a script that hands the URL it
// was given to the test) for a client without forms; never with
// --no-browser, nor where the client opens the page itself (URL mode).
func TestBrowserOpened(t *testing.T) {
	t.Run("opened", func(t *testing.T) {
		browser := pagetest.NewBrowser(t)
		p := startProcEnv(t, []string{browser.Env()}, "--engine", "native")
		p.handshake("2025-11-25", `{}`)
		p.call(2, openArgs)
		url := p.pageURL()
		assert.Equal(t, []string{url}, browser.WaitOpened())
		page := pagetest.Open(t, url)
		q := page.Events().Question()
		status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "x"}))
		require.Equal(t, http.StatusOK, status)
		p.recvResult(2)
	})

	// Where no browser may be opened.
	for _, tc := range []struct {
		name string
		args []string
		caps string
	}{
		{"--no-browser", []string{"--no-browser"}, `{}`},
		{"url mode", nil, `{"elicitation":{"url":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			browser := pagetest.NewBrowser(t)
			p := startProcEnv(t, []string{browser.Env()}, append([]string{"--engine", "native"}, tc.args...)...)
			p.handshake("2025-11-25", tc.caps)
			p.call(2, openArgs)
			page := pagetest.Open(t, p.pageURL())
			q := page.Events().Question()
			status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "x"}))
			require.Equal(t, http.StatusOK, status)
			p.recvResult(2)
			require.NoError(t, p.stdin.Close())
			assert.Equal(t, 0, p.wait())
			assert.Empty(t, browser.Opened(), "no browser was started")
		})
	}
}
