package mcpserver

// The answer page with go-sdk's own client (over lineTransport, as on
// stdio): on 2025-11-25 through URL-mode elicitation (2026-07-28:
// page_held_test.go), and for a client without elicitation the page alone
// with its URL in the progress messages.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// TestGoClientURLMode: go-sdk's client, advertising elicitation.url only,
// receives the page's URL in a URL-mode request it validates, consents,
// and hears notifications/elicitation/complete with the same
// elicitationId once the page answered; the result is the core's bytes.
func TestGoClientURLMode(t *testing.T) {
	asked := make(chan *mcp.ElicitParams, 1)
	completed := make(chan string, 1)
	log := &syncbuf.Buffer{}
	h := start(t, modeLegacy, options{page: []answerpage.Option{answerpage.WithLog(log)}}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- r.Params
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			completed <- r.Params.ElicitationID
		},
	})
	results := make(chan *mcp.CallToolResult, 1)
	go func() { results <- h.mustCall(json.RawMessage(choiceArgs)) }()
	var params *mcp.ElicitParams
	select {
	case params = <-asked:
	case res := <-results:
		t.Fatalf("answered without asking: %v", res)
	}
	assert.Equal(t, "url", params.Mode)
	assert.Equal(t, "Answer in your browser: Which database should I use?", params.Message)
	assert.Nil(t, params.RequestedSchema)
	printed := pagetest.WaitURL(t, log.String, nil)
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+/[A-Za-z0-9_-]{43}/$`, printed, "on loopback, behind a 43-character token")
	assert.Equal(t, printed, params.URL, "the URL printed is the URL sent")

	page := pagetest.Open(t, params.URL)
	q := page.Events().Question()
	status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Options: []int{1}}))
	require.Equal(t, http.StatusOK, status)
	res := <-results
	assertBytes(t, res, []byte(coretest.Resolved(t, choiceArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))), false)
	assert.Equal(t, params.ElicitationID, <-completed)
	assert.Equal(t, "answered", h.logs.wait(t, 0))
}

// TestGoClientWithoutFormsOnThePage: go-sdk's client without elicitation,
// on both protocol versions, the page's address printed where the person
// reads it: the call stays open while the page is answered, its progress
// notifications name the page.
func TestGoClientWithoutFormsOnThePage(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			messages := make(chan string, 16)
			h := start(t, m, options{}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{},
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					select {
					case messages <- r.Params.Message:
					default:
					}
				},
			})
			results := make(chan *mcp.CallToolResult, 1)
			go func() {
				params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(openArgs)}
				params.SetProgressToken(7)
				ctx, cancel := context.WithTimeout(context.Background(), waitLong)
				defer cancel()
				res, err := h.cs.CallTool(ctx, params)
				assert.NoError(t, err)
				results <- res
			}()
			msg := <-messages
			// The core's words (Core.Progress), the page's URL last.
			_, url, ok := strings.Cut(msg, " Answer at ")
			require.True(t, ok, "the progress message names the page: %q", msg)
			want, err := nativeCore.Progress(context.Background(), 0, url)
			require.NoError(t, err)
			require.Equal(t, want, msg)
			page := pagetest.Open(t, url)
			q := page.Events().Question()
			assert.Equal(t, "askcore-test 0", q.From.AgentID, "the page names the asker by the client's clientInfo")
			status, _ := page.Answer(q.ID, pagetest.Picks(askcore.Pick{Text: "Hardy"}))
			require.Equal(t, http.StatusOK, status)
			assertBytes(t, <-results, []byte(coretest.Resolved(t, openArgs, askcore.Picks(askcore.Pick{Text: "Hardy"}))), false)
		})
	}
}
