package mcpserver

// The answer page on 2026-07-28 through a URL-mode input request: the
// question held on the page between the client's calls (page_held.go).

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// urlOnly is a client that shows URL-mode requests and no forms.
var urlOnly = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}

// heldHarness is a 2026-07-28 session with a URL-only client answering
// each URL-mode request with respond (go-sdk's client retries the call
// with the reply itself), and the page's log.
func heldHarness(t *testing.T, o options, respond func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)) (*harness, *elicitor, *syncbuf.Buffer) {
	t.Helper()
	log := &syncbuf.Buffer{}
	o.page = append(o.page, answerpage.WithLog(log))
	e := &elicitor{respond: respond}
	h := start(t, modeInputRequests, o, &mcp.ClientOptions{Capabilities: urlOnly, ElicitationHandler: e.handle})
	return h, e, log
}

// answerOnPage answers the one question on the page at url with SQLite.
func answerOnPage(t *testing.T, url string) {
	page := pagetest.Open(t, url)
	q := page.Events().Sole()
	status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{1}}))
	require.Equal(t, http.StatusOK, status)
}

var elicitationIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestHeldPageAnswered: the URL goes back in the result as a URL-mode
// input request (no elicitation/create); the person answers on the page,
// then the client accepts (Claude Code's "I'm done, continue"), and the
// retried call returns the page's answer as the core wrote it.
func TestHeldPageAnswered(t *testing.T) {
	h, e, log := heldHarness(t, options{}, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		answerOnPage(t, p.URL)
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	res := h.mustCall(json.RawMessage(choiceArgs))
	assertBytes(t, res, []byte(coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))), false)
	seen := e.seen()
	require.Len(t, seen, 1)
	assert.Equal(t, "url", seen[0].Mode)
	assert.Equal(t, "Answer in your browser: Which database should I use?", seen[0].Message)
	assert.Equal(t, pagetest.WaitURL(t, log.String, nil), seen[0].URL, "the URL sent is the page's")
	assert.Regexp(t, elicitationIDPattern, seen[0].ElicitationID)
	assert.Equal(t, "answered", h.logs.wait(t, 0))
}

// TestHeldPageAcceptedFirst: a client that accepts at once (consent, not
// "done"): the retry waits for the page, and returns its answer as soon
// as the person gives it. With no answer within the hold, the URL goes to
// the client again, saying the page has no answer yet; the same page and
// id.
func TestHeldPageAcceptedFirst(t *testing.T) {
	t.Run("answered while the retry waits", func(t *testing.T) {
		urls := make(chan string, 1)
		h, e, _ := heldHarness(t, options{}, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			urls <- p.URL
			return &mcp.ElicitResult{Action: "accept"}, nil
		})
		results := make(chan *mcp.CallToolResult, 1)
		go func() { results <- h.mustCall(json.RawMessage(choiceArgs)) }()
		answerOnPage(t, <-urls)
		assertBytes(t, <-results, []byte(coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))), false)
		assert.Len(t, e.seen(), 1)
	})
	// The person answers once, when the URL comes again. The retry after
	// that answer can still find the hold over (1 ms) before the page's
	// answer reached the held question (a goroutine's hand-over, slow on a
	// loaded machine): the URL then comes a third time, saying the same,
	// and the retry after it returns the answer.
	t.Run("no answer within the hold: the URL again", func(t *testing.T) {
		var answered atomic.Bool
		h, e, _ := heldHarness(t, options{urlHold: time.Millisecond}, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if p.Message != "Answer in your browser: Which database should I use?" && !answered.Swap(true) {
				answerOnPage(t, p.URL)
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		})
		res := h.mustCall(json.RawMessage(choiceArgs))
		assertBytes(t, res, []byte(coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))), false)
		seen := e.seen()
		require.GreaterOrEqual(t, len(seen), 2)
		for _, again := range seen[1:] {
			assert.Equal(t, "No answer on the page yet. Answer in your browser: Which database should I use?", again.Message)
			assert.Equal(t, seen[0].URL, again.URL)
			assert.Equal(t, seen[0].ElicitationID, again.ElicitationID)
		}
	})
}

// TestHeldPageRefused: a decline or cancel withdraws the question from the
// page and is judged as a reply to a URL-mode request: the person's after
// a person's time (ASK_DECLINED, ASK_CANCELLED), not_shown sooner
// (ASK_FAILED: nobody saw it); an answer given on the page before wins.
func TestHeldPageRefused(t *testing.T) {
	for _, tc := range []struct {
		name, action string
		after        time.Duration
		code         string
	}{
		{"declined", "decline", personTime, "ASK_DECLINED"},
		{"cancelled", "cancel", personTime, "ASK_CANCELLED"},
		{"cancelled at once", "cancel", 0, "ASK_FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ended := make(chan pagetest.End, 1)
			o := options{}
			if tc.after == 0 {
				o.now = stoppedClock()
			}
			h, _, _ := heldHarness(t, o, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				page := pagetest.Open(t, p.URL)
				events := page.Events()
				events.Sole()
				time.Sleep(tc.after) // the person reading the dialog
				go func() { ended <- events.Ended() }()
				return &mcp.ElicitResult{Action: tc.action}, nil
			})
			res := h.mustCall(json.RawMessage(choiceArgs))
			text := failedWith(t, res, tc.code)
			if tc.code == "ASK_FAILED" {
				assert.Contains(t, text, "Nobody saw the question")
			}
			end := <-ended
			assert.Equal(t, "the question was aborted: the page was not opened in the MCP client", end.Message, "the page's question ended")
		})
	}
	t.Run("answered on the page, then cancelled", func(t *testing.T) {
		h, _, _ := heldHarness(t, options{}, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			answerOnPage(t, p.URL)
			return &mcp.ElicitResult{Action: "cancel"}, nil
		})
		res := h.mustCall(json.RawMessage(choiceArgs))
		assertBytes(t, res, []byte(coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))), false)
	})
}

// TestHeldPageRetries: a client driving the retries itself. A reply to a
// question this process does not hold (expired, from before a restart):
// an accept asks afresh, a decline is the person's. A retry with other
// arguments withdraws the held question and asks afresh.
func TestHeldPageRetries(t *testing.T) {
	h := start(t, modeInputRequests, options{}, &mcp.ClientOptions{
		Capabilities:       urlOnly,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("not used") },
	})
	call := func(args, state string, action string) *mcp.CallToolResult {
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		p := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(args), RequestState: state}
		if action != "" {
			p.InputResponses = mcp.InputResponseMap{inputKey: &mcp.ElicitResult{Action: action}}
		}
		res, err := h.cs.CallTool(ctx, p)
		require.NoError(t, err)
		return res
	}
	urlRequest := func(res *mcp.CallToolResult) *mcp.ElicitParams {
		t.Helper()
		require.True(t, res.NeedsInput(), "an input request: %+v", res)
		ep, ok := res.InputRequests[inputKey].(*mcp.ElicitParams)
		require.True(t, ok)
		require.Equal(t, "url", ep.Mode)
		assert.Regexp(t, `^url\.`+ep.ElicitationID+`\.mcp-[0-9a-f]{32}$`, res.RequestState)
		return ep
	}

	first := urlRequest(call(choiceArgs, "", ""))
	unknown := "url.0123456789abcdef0123456789abcdef"
	fresh := urlRequest(call(choiceArgs, unknown, "accept"))
	assert.NotEqual(t, first.ElicitationID, fresh.ElicitationID, "asked afresh")

	res := call(choiceArgs, unknown, "decline")
	failedWith(t, res, "ASK_DECLINED")

	page := pagetest.Open(t, first.URL)
	events := page.Events()
	other := urlRequest(call(openArgs, "url."+first.ElicitationID, "accept"))
	assert.NotEqual(t, first.ElicitationID, other.ElicitationID)
	end := events.Ended()
	assert.Equal(t, "the question was aborted: the MCP client called again with other arguments", end.Message)
}

// TestPrintModeFormThenPage: claude -p (its entrypoint sdk-cli) cancels the
// form, then the page's URL-mode request: the model is told nobody saw the
// question, naming both surfaces, in the same bytes on both protocols (on
// 2026-07-28 over three calls).
func TestPrintModeFormThenPage(t *testing.T) {
	claude := mcp.Implementation{Name: "claude-code", Version: "2.1.328"}
	texts := map[string]string{}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := &elicitor{respond: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}}
			h := startAs(t, m, options{web: frontdoor.WebAuto, entrypoint: "sdk-cli"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
					Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: e.handle,
			}, claude)
			h.srv.provider.urlShown = false // claude -p shows no server output
			res := h.mustCall(json.RawMessage(choiceArgs))
			require.True(t, res.IsError)
			texts[m.name] = res.Content[0].(*mcp.TextContent).Text
			modes := []string{}
			for _, f := range e.seen() {
				modes = append(modes, f.Mode)
			}
			assert.Equal(t, []string{"form", "url"}, modes)
		})
	}
	text := texts[modeInputRequests.name]
	assert.Equal(t, texts[modeLegacy.name], text, "the same bytes on both protocols")
	assert.Contains(t, text, `"code":"ASK_FAILED"`)
	assert.Contains(t, text, "the form: claude-code 2.1.328 cancelled the form without a person: it runs unattended (print mode, claude -p)")
	assert.Contains(t, text, "the answer page: claude-code 2.1.328 cancelled")
}
