package acpagent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/acpwire"
	"github.com/askcore/askcore/internal/testing/leaktest"
)

func TestMain(m *testing.M) {
	// The ACP SDK logs through slog.Default (SetLogger races in v0.13.0).
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	dir, err := os.MkdirTemp("", "askcore-acp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir // the binary tests build askcore-acp here
	// ... with the user's build cache: leaktest points XDG_CACHE_HOME,
	// where the go command's default cache lives, at an empty directory.
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	leaktest.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}

// patience is how long a test waits for something that must happen (a
// reply, a question, the end of a prompt or of the connection). Only a
// failing test waits that long: a loaded machine makes the tests slower,
// never red.
const patience = 2 * time.Minute

// verifyNoLeaks is goleak.VerifyNone with patience. Goroutines on their way
// out when a test ends (acp-go-sdk's connection goroutines and request
// handlers finish after the connection is done) get until patience to go,
// instead of goleak's fixed ~0.4 s of retries, which a loaded machine can
// use up; a goroutine that never ends still fails the test.
func verifyNoLeaks(t *testing.T, opts ...goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		err := goleak.Find(opts...) // retries for ~0.4 s itself
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("found unexpected goroutines:\n%v", err)
			return
		}
	}
}

// testScript is the scripted model every test session replays from its
// first line: a choice question, then (next prompt) an optionless one.
const testScript = `{"content":"Let me ask.","tool_calls":[{"id":"call_db","name":"ask_user_question","arguments":{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres","description":"server"},{"label":"SQLite","value":"sqlite","recommended":true}],"allowCustom":true}}]}
{"content":"You chose {{answer}}."}
{"tool_calls":[{"id":"call_name","name":"ask_user_question","arguments":{"question":"What should the project be called?"}}]}
{"content":"Project: {{answer}}."}
`

// elicitFunc answers one elicitation/create on the test client. scope is
// the request's sessionId and toolCallId as they were on the wire.
type elicitFunc func(ctx context.Context, scope wireScope, req acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error)

type wireScope struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId"`
	Mode       string `json:"mode"`
}

// testClient is an ACP client (acp-go-sdk's client side) that records
// session updates and answers form elicitations with elicit.
type testClient struct {
	elicit elicitFunc

	mu      sync.Mutex
	updates map[acp.SessionId][]acp.SessionUpdate
	asked   int
}

func (c *testClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates[n.SessionId] = append(c.updates[n.SessionId], n.Update)
	return nil
}

func (c *testClient) takeUpdates(id acp.SessionId) []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates[id]
	delete(c.updates, id)
	return u
}

func (c *testClient) UnstableCreateElicitation(ctx context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	if p.Form == nil {
		return acp.UnstableCreateElicitationResponse{}, errors.New("not a form elicitation")
	}
	var scope wireScope
	if raw, ok := p.Form.Meta[scopeMetaKey]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &scope)
	}
	if c.elicit == nil {
		return acp.UnstableCreateElicitationResponse{}, errors.New("no elicitation handler")
	}
	return c.elicit(ctx, scope, *p.Form)
}

func (c *testClient) askedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

func (c *testClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}
func (c *testClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}
func (c *testClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{}, acp.NewMethodNotFound(acp.ClientMethodSessionRequestPermission)
}
func (c *testClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}
func (c *testClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}
func (c *testClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}
func (c *testClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}
func (c *testClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// scopeMetaKey is where the test tap copies the wire scope of an
// elicitation/create so that the Go client, which (like the SDK's agent
// side) drops sessionId and toolCallId, can still see them.
const scopeMetaKey = "askcore.test/scope"

// tap sits between the agent's output and the client's input: it keeps
// every line the agent wrote, and copies the scope of each
// elicitation/create into params._meta for the test client.
type tap struct {
	mu    sync.Mutex
	lines [][]byte
}

func (t *tap) run(src io.Reader, dst *io.PipeWriter) {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), 10<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		t.mu.Lock()
		t.lines = append(t.lines, line)
		t.mu.Unlock()
		if _, err := dst.Write(append(withScopeMeta(line), '\n')); err != nil {
			break
		}
	}
	dst.Close()
	_, _ = io.Copy(io.Discard, src)
}

func withScopeMeta(line []byte) []byte {
	var msg struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != acp.ClientMethodElicitationCreate || msg.Params == nil {
		return line
	}
	var scope wireScope
	b, _ := json.Marshal(msg.Params)
	_ = json.Unmarshal(b, &scope)
	meta, _ := json.Marshal(map[string]any{scopeMetaKey: scope})
	msg.Params["_meta"] = meta
	var full map[string]json.RawMessage
	_ = json.Unmarshal(line, &full)
	full["params"], _ = json.Marshal(msg.Params)
	out, _ := json.Marshal(full)
	return out
}

// elicitations returns the raw elicitation/create params the agent wrote.
func (t *tap) elicitations() []map[string]json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []map[string]json.RawMessage
	for _, line := range t.lines {
		var msg struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &msg) == nil && msg.Method == acp.ClientMethodElicitationCreate {
			out = append(out, msg.Params)
		}
	}
	return out
}

// rawOutputs returns the rawOutput of each tool_call_update for
// toolCallID in session sid, as the agent wrote it on the wire.
func (t *tap) rawOutputs(sid acp.SessionId, toolCallID string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, line := range t.lines {
		if session, id, raw, ok := acpwire.ToolCallUpdate(line); ok && session == string(sid) && id == toolCallID {
			out = append(out, string(raw))
		}
	}
	return out
}

// harness is one askcore-acp connection driven by acp-go-sdk's client side
// over in-memory pipes.
type harness struct {
	t      *testing.T
	app    *Agent
	rt     *testRuntime
	client *testClient
	conn   *acp.ClientSideConnection
	tap    *tap

	toAgent  *io.PipeWriter
	served   chan struct{}
	closed   bool
	stop     context.CancelCauseFunc // stops Serve, as a signal does
	returned chan struct{}           // closed once Serve returned ...
	stopped  error                   // ... this
}

type harnessOptions struct {
	script string                                                // defaults to testScript
	build  func(ctx context.Context) (*frontdoor.Runtime, error) // defaults to frontdoor.Build with the native engine
	web    frontdoor.WebMode                                     // when the answer page asks (default WebAuto)
	page   []answerpage.Option                                   // the answer page's options
}

// testRuntime is the runtime the harness's agent starts with, for tests
// that reach into it (sub-agents, the core).
type testRuntime struct {
	ready chan struct{}
	rt    *frontdoor.Runtime
	err   error
}

// get waits for the runtime.
func (r *testRuntime) get(ctx context.Context) (*frontdoor.Runtime, error) {
	select {
	case <-r.ready:
		return r.rt, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// testSettings are the front-door settings of the tests: the scripted
// model and the native engine.
func testSettings(t *testing.T, script string) frontdoor.Settings {
	t.Helper()
	if script == "" {
		script = testScript
	}
	return frontdoor.Settings{Script: writeScript(t, script), Engine: "native"}
}

func noEnv(string) string { return "" }

func newTestApp(t *testing.T, opts harnessOptions) (*Agent, *testRuntime) {
	t.Helper()
	if opts.build == nil {
		settings := testSettings(t, opts.script)
		opts.build = func(ctx context.Context) (*frontdoor.Runtime, error) { return frontdoor.Build(ctx, settings, noEnv) }
	}
	tr := &testRuntime{ready: make(chan struct{})}
	page := append([]answerpage.Option{answerpage.WithLog(io.Discard)}, opts.page...)
	a := New(Options{
		Start: func(ctx context.Context) (Backend, error) {
			defer close(tr.ready)
			tr.rt, tr.err = opts.build(ctx)
			if tr.err != nil {
				return Backend{}, tr.err
			}
			return FromRuntime(tr.rt), nil
		},
		Web:  opts.web,
		Page: page,
		Log:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	return a, tr
}

func newHarness(t *testing.T, opts harnessOptions, elicit elicitFunc) *harness {
	t.Helper()
	a, rt := newTestApp(t, opts)
	h := connect(t, a, elicit)
	h.rt = rt
	return h
}

// connect serves a on a fresh in-memory connection.
func connect(t *testing.T, a *Agent, elicit elicitFunc) *harness {
	t.Helper()
	clientToAgentR, clientToAgentW := io.Pipe()
	agentOutR, agentOutW := io.Pipe()
	clientInR, clientInW := io.Pipe()

	ctx, stop := context.WithCancelCause(context.Background())
	h := &harness{t: t, app: a, tap: &tap{}, toAgent: clientToAgentW, served: make(chan struct{}), stop: stop, returned: make(chan struct{})}
	h.client = &testClient{elicit: elicit, updates: make(map[acp.SessionId][]acp.SessionUpdate)}
	go h.tap.run(agentOutR, clientInW)
	go func() {
		defer close(h.served)
		h.stopped = a.Serve(ctx, clientToAgentR, agentOutW)
		close(h.returned)
		if h.stopped != nil {
			// A process would exit now; the test's client reads on
			// until the test closes the connection.
			_, _ = io.Copy(io.Discard, clientToAgentR)
		}
		agentOutW.Close()
		clientToAgentR.Close()
	}()
	h.conn = acp.NewClientSideConnection(h.client, clientToAgentW, clientInR)
	t.Cleanup(h.close)
	return h
}

// close ends the connection and waits for everything it started.
func (h *harness) close() {
	if h.closed {
		return
	}
	h.closed = true
	h.toAgent.Close()
	select {
	case <-h.served:
	case <-time.After(patience):
		h.t.Error("serve did not return after the client closed the connection")
	}
	<-h.conn.Done()
	// Closing a wasm engine on a cold compilation cache waits for the
	// background optimizing compile (it fills the cache for the next
	// start), which takes tens of seconds under the race detector.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	require.NoError(h.t, h.app.Close(ctx))
	h.stop(nil)
}

func (h *harness) initialize(form bool) {
	h.t.Helper()
	resp := initialize(h.t, h.conn, form)
	require.Equal(h.t, acp.ProtocolVersion(acp.ProtocolVersionNumber), resp.ProtocolVersion)
}

// initialize sends conn's initialize, as a client with form elicitation
// or without.
func initialize(t *testing.T, conn *acp.ClientSideConnection, form bool) acp.InitializeResponse {
	t.Helper()
	caps := acp.ClientCapabilities{}
	if form {
		caps.Elicitation = &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	resp, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps})
	require.NoError(t, err)
	return resp
}

func (h *harness) newSession() acp.SessionId {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	resp, err := h.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/tmp", McpServers: []acp.McpServer{}})
	require.NoError(h.t, err)
	require.NotEmpty(h.t, resp.SessionId)
	return resp.SessionId
}

// prompt sends one prompt and returns its stop reason and the session's
// updates (all of them have arrived when Prompt returns: the SDK orders
// notifications before the response).
func (h *harness) prompt(id acp.SessionId, text string) (acp.StopReason, []acp.SessionUpdate) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	resp, err := h.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	require.NoError(h.t, err)
	return resp.StopReason, h.client.takeUpdates(id)
}

// endedTurn sends one prompt that must end the turn and returns the
// agent's text and tool events in it.
func (h *harness) endedTurn(id acp.SessionId, text string) (texts []string, tools []toolEvent) {
	h.t.Helper()
	stop, updates := h.prompt(id, text)
	require.Equal(h.t, acp.StopReasonEndTurn, stop)
	return summarize(h.t, updates)
}

// accept answers with content.
func accept(content map[string]any) elicitFunc {
	return func(context.Context, wireScope, acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: content}}, nil
	}
}

// --- update helpers ---

type toolEvent struct {
	kind      string // "tool_call" or "tool_call_update"
	id        string
	status    acp.ToolCallStatus
	rawInput  json.RawMessage
	rawOutput json.RawMessage
	title     string
	toolKind  acp.ToolKind
	content   []string // the text blocks of the card
}

// summarize splits updates into the agent's text and its tool events.
func summarize(t *testing.T, updates []acp.SessionUpdate) (texts []string, tools []toolEvent) {
	t.Helper()
	raw := func(v any) json.RawMessage {
		if v == nil {
			return nil
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	for _, u := range updates {
		switch {
		case u.AgentMessageChunk != nil:
			require.NotNil(t, u.AgentMessageChunk.Content.Text)
			texts = append(texts, u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			tools = append(tools, toolEvent{kind: "tool_call", id: string(u.ToolCall.ToolCallId), status: u.ToolCall.Status,
				rawInput: raw(u.ToolCall.RawInput), title: u.ToolCall.Title, toolKind: u.ToolCall.Kind})
		case u.ToolCallUpdate != nil:
			var status acp.ToolCallStatus
			if u.ToolCallUpdate.Status != nil {
				status = *u.ToolCallUpdate.Status
			}
			var content []string
			for _, c := range u.ToolCallUpdate.Content {
				require.NotNil(t, c.Content)
				require.NotNil(t, c.Content.Content.Text)
				content = append(content, c.Content.Content.Text.Text)
			}
			tools = append(tools, toolEvent{kind: "tool_call_update", id: string(u.ToolCallUpdate.ToolCallId), status: status,
				rawOutput: raw(u.ToolCallUpdate.RawOutput), content: content})
		}
	}
	return texts, tools
}

// errorCode is the code of an error object {name, code, message}.
func errorCode(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var e struct {
		Name    string `json:"name"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(raw, &e), "rawOutput %s", raw)
	require.Equal(t, "UserInteractionError", e.Name, "rawOutput %s", raw)
	require.NotEmpty(t, e.Message, "rawOutput %s", raw)
	return e.Code
}
