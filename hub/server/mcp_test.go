package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/internal/wire"
	"github.com/askcore/askcore/hub/store"
)

// mcpQuestion is a model's arguments text.
const mcpQuestion = `{"question":"Which database?","options":[{"label":"SQLite"},{"label":"PostgreSQL","recommended":true}]}`

// The hub as a remote MCP server (/mcp): go-sdk's own client over real
// HTTP, on every store, answered in the inbox over its HTTP endpoints as
// the inbox page answers.

// bearer adds an agent's token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// mcpBase is the hub's address in the MCP tests, which progress names.
const mcpBase = "https://hub.example.com"

// mcpEachStore runs f on a hub at mcpBase over each store.
func mcpEachStore(t *testing.T, f func(t *testing.T, e *inboxEnv)) {
	inboxEachStoreWith(t, Options{BaseURL: mcpBase}, f)
}

// addAgent adds an agent of person with the token of hash and a deadline
// for its asks, as askcore-hub agent add does.
func (e *inboxEnv) addAgent(t *testing.T, person, name, hash string, deadline time.Duration) store.Agent {
	t.Helper()
	ctx := context.Background()
	p, err := e.store.PersonByName(ctx, person)
	if err != nil {
		p, err = e.store.AddPerson(ctx, person)
		require.NoError(t, err)
	}
	a, err := e.store.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: name, TokenHash: hash, Deadline: deadline})
	require.NoError(t, err)
	return a
}

// mcpClient is a host connected to the hub's /mcp with an agent's token.
type mcpClient struct {
	cs *mcp.ClientSession

	mu       sync.Mutex
	progress []string // the progress messages received, in order
	got      chan struct{}
}

func (e *inboxEnv) mcpConnect(token string) *mcpClient {
	e.t.Helper()
	c := &mcpClient{got: make(chan struct{}, 100)}
	client := mcp.NewClient(&mcp.Implementation{Name: "remote-host", Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params.Message)
			c.mu.Unlock()
			c.got <- struct{}{}
		},
	})
	tr := &http.Transport{}
	e.t.Cleanup(tr.CloseIdleConnections)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   e.origin() + MCPPath,
		HTTPClient: &http.Client{Transport: bearer{token, tr}},
	}, nil)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { _ = cs.Close() })
	c.cs = cs
	return c
}

type toolResult struct {
	res *mcp.CallToolResult
	err error
}

// call calls ask_user_question with arguments (the model's text) and a
// progress token; the result arrives on the channel.
func (c *mcpClient) call(ctx context.Context, arguments string) <-chan toolResult {
	out := make(chan toolResult, 1)
	p := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(arguments)}
	p.SetProgressToken("wait-1")
	go func() {
		res, err := c.cs.CallTool(ctx, p)
		out <- toolResult{res, err}
	}()
	return out
}

// firstProgress waits for the first progress message.
func (c *mcpClient) firstProgress(t *testing.T) string {
	t.Helper()
	select {
	case <-c.got:
	case <-time.After(inboxPatience):
		t.Fatal("no progress notification")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.progress[0]
}

// wantAnswer is the tool result the core writes for reply to arguments.
func wantAnswer(t *testing.T, arguments, reply string) string {
	t.Helper()
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, arguments)
	require.NoError(t, err)
	r, _, err := wire.ParseReply([]byte(reply))
	require.NoError(t, err)
	a, err := call.Resolve(ctx, r)
	require.NoError(t, err)
	return string(a.JSON())
}

func resultText(t *testing.T, r toolResult) string {
	t.Helper()
	require.NoError(t, r.err)
	require.Len(t, r.res.Content, 1)
	return r.res.Content[0].(*mcp.TextContent).Text
}

func receive(t *testing.T, ch <-chan toolResult) toolResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(inboxPatience):
		t.Fatal("the tool call did not end")
		return toolResult{}
	}
}

// pendingItem waits on the inbox's event stream for the ask of an agent
// and returns its id.
func pendingItem(t *testing.T, ev *sse) inboxItem {
	t.Helper()
	for {
		e := ev.next()
		switch e.name {
		case "pending":
			var snap struct {
				Items []inboxItem `json:"items"`
			}
			require.NoError(t, json.Unmarshal(e.data, &snap))
			if len(snap.Items) > 0 {
				return snap.Items[0]
			}
		case "add":
			var it inboxItem
			require.NoError(t, json.Unmarshal(e.data, &it))
			return it
		}
	}
}

// TestMCPAnsweredInInbox: a host calls the hub's /mcp; the call waits,
// with progress naming the inbox; the person answers in the inbox; the
// model gets the core's answer for that reply, byte for byte, as the text
// and as structuredContent.
func TestMCPAnsweredInInbox(t *testing.T) {
	mcpEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		ev := b.events()
		host := e.mcpConnect(e.hooks.agent("ada", "ci-runner"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res := host.call(ctx, mcpQuestion)

		item := pendingItem(t, ev)
		assert.Equal(t, "ci-runner", item.Agent, "the ask is the token's agent's")
		assert.Contains(t, string(item.Call), "Which database?")
		assert.Contains(t, host.firstProgress(t), "Answer at "+mcpBase+"/", "progress names the inbox")

		const reply = `{"picks":[{"options":[1],"text":"","notes":"a server, please"}]}`
		status, v := b.reply(item.ID, json.RawMessage(reply), nil)
		require.Equal(t, http.StatusOK, status, v.Message)

		r := receive(t, res)
		text := resultText(t, r)
		assert.False(t, r.res.IsError, text)
		want := wantAnswer(t, mcpQuestion, reply)
		assert.Equal(t, want, text, "the person's answer, byte for byte")
		sc, err := json.Marshal(r.res.StructuredContent)
		require.NoError(t, err)
		assert.JSONEq(t, want, string(sc))
	})
}

// TestMCPCallAgainAttaches: a call the host gave up on (cancelled, as a
// host that times out does) leaves its ask in the inbox; the same call
// made again in the session attaches to it (no second mcpQuestion), and gets
// the person's answer; made again once answered, it gets that answer at
// once.
func TestMCPCallAgainAttaches(t *testing.T) {
	mcpEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		ev := b.events()
		host := e.mcpConnect(e.hooks.agent("ada", "gemini"))

		first, giveUp := context.WithCancel(context.Background())
		res := host.call(first, mcpQuestion)
		item := pendingItem(t, ev)
		giveUp()
		r := receive(t, res)
		require.Error(t, r.err, "the host gave up")

		again := host.call(context.Background(), mcpQuestion)
		host.firstProgress(t) // the second call waits
		const reply = `{"picks":[{"options":[0],"text":""}]}`
		status, v := b.reply(item.ID, json.RawMessage(reply), nil)
		require.Equal(t, http.StatusOK, status, v.Message)
		want := wantAnswer(t, mcpQuestion, reply)
		assert.Equal(t, want, resultText(t, receive(t, again)), "the call made again gets the answer to the first")

		assert.Equal(t, want, resultText(t, receive(t, host.call(context.Background(), mcpQuestion))), "and once answered, at once")
		ada, err := e.store.PersonByName(context.Background(), "ada")
		require.NoError(t, err)
		asks, err := e.store.Asks(context.Background(), store.AskFilter{PersonID: ada.ID})
		require.NoError(t, err)
		assert.Len(t, asks, 1, "one question, however often it was called")

		status, got := b.e.agent("ada", "probe").do(http.MethodGet, "/v1/asks/"+item.ID, nil)
		assert.Equal(t, http.StatusNotFound, status, "%v: another agent's ask", got)
	})
}

// TestMCPAgentDeadline: the operator's deadline for the agent ends the
// call with ASK_TIMEOUT in the core's words; nothing answers for the
// person.
func TestMCPAgentDeadline(t *testing.T) {
	inboxEachStoreWith(t, Options{BaseURL: mcpBase, ExpireEvery: 20 * time.Millisecond}, func(t *testing.T, e *inboxEnv) {
		token, hash := NewToken(AgentTokenPrefix)
		e.addAgent(t, "ada", "nightly", hash, time.Second) // the store keeps whole seconds
		host := e.mcpConnect(token)
		r := receive(t, host.call(context.Background(), mcpQuestion))
		text := resultText(t, r)
		assert.True(t, r.res.IsError)
		assert.Contains(t, text, `"code":"ASK_TIMEOUT"`)
	})
}

// TestMCPStopWithdraws: a hub that stops ends the waiting calls with the
// core's stopped words, and withdraws their asks, whose answers could no
// longer arrive.
func TestMCPStopWithdraws(t *testing.T) {
	mcpEachStore(t, func(t *testing.T, e *inboxEnv) {
		b := e.signin("ada")
		ev := b.events()
		host := e.mcpConnect(e.hooks.agent("ada", "ci"))
		res := host.call(context.Background(), mcpQuestion)
		item := pendingItem(t, ev)
		e.srv.Close()
		r := receive(t, res)
		text := resultText(t, r)
		assert.True(t, r.res.IsError)
		assert.Contains(t, text, `"code":"ASK_ABORTED"`)
		assert.Contains(t, text, "askcore-hub stopped")
		a, err := e.store.Ask(context.Background(), item.ID)
		require.NoError(t, err)
		assert.Equal(t, store.StateWithdrawn, a.State)
	})
}

// TestMCPLocks: /mcp is the agent API's: a missing, wrong or revoked
// token is 401 (the hub's error, the same for all three), a web page is
// refused, another Host is refused, and a session belongs to the agent
// that opened it.
func TestMCPLocks(t *testing.T) {
	inboxEachStore(t, func(t *testing.T, e *inboxEnv) {
		const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`
		token := e.hooks.agent("ada", "laptop")
		revokedToken, revokedHash := NewToken(AgentTokenPrefix)
		revoked := e.addAgent(t, "ada", "old", revokedHash, 0)
		_, err := e.store.RevokeAgent(context.Background(), revoked.Name, time.Now())
		require.NoError(t, err)
		post := func(tweak func(*http.Request)) *http.Response {
			return e.raw(http.MethodPost, MCPPath, []byte(initialize), func(r *http.Request) {
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				tweak(r)
			})
		}
		bearerOf := func(tok string) func(*http.Request) {
			return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
		}
		for _, tc := range []struct {
			name   string
			tweak  func(*http.Request)
			status int
			body   string
		}{
			{"no token", func(*http.Request) {}, http.StatusUnauthorized, "a valid agent token is required"},
			{"wrong token", bearerOf(AgentTokenPrefix + strings.Repeat("A", 43)), http.StatusUnauthorized, "a valid agent token is required"},
			{"revoked token", bearerOf(revokedToken), http.StatusUnauthorized, "a valid agent token is required"},
			{"not a bearer", func(r *http.Request) { r.Header.Set("Authorization", "Basic "+token) }, http.StatusUnauthorized, "a valid agent token is required"},
			{"a web page", func(r *http.Request) {
				bearerOf(token)(r)
				r.Header.Set("Origin", "https://evil.example")
			}, http.StatusForbidden, "does not serve web pages"},
			{"another host", func(r *http.Request) {
				bearerOf(token)(r)
				r.Host = "evil.example"
			}, http.StatusMisdirectedRequest, "does not serve the host"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := post(tc.tweak)
				body := readBody(t, res)
				assert.Equal(t, tc.status, res.StatusCode, body)
				assert.Contains(t, body, tc.body)
				assert.Contains(t, body, `"code"`, "a structured error")
			})
		}

		// A session is its agent's: another agent's valid token cannot use it.
		res := post(bearerOf(token))
		require.Equal(t, http.StatusOK, res.StatusCode, readBody(t, res))
		session := res.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, session)
		other := e.hooks.agent("ada", "other")
		res = e.raw(http.MethodPost, MCPPath, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), func(r *http.Request) {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("Mcp-Session-Id", session)
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			bearerOf(other)(r)
		})
		assert.Equal(t, http.StatusForbidden, res.StatusCode, readBody(t, res))

		res = e.raw(http.MethodDelete, MCPPath, nil, func(r *http.Request) {
			r.Header.Set("Mcp-Session-Id", session)
			bearerOf(token)(r)
		})
		assert.Less(t, res.StatusCode, 300, "its agent ends the session: %s", readBody(t, res))
	})
}
