package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/testing/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// testServer is a server over its own service, with its provider
// registered (as askcore-mcp wires it); close withdraws what is pending.
type testServer struct {
	*Server
	dispose func()
}

// startServer makes a testServer over c; no browser is ever opened.
func startServer(ctx context.Context, c *askcore.Core, o options) (*testServer, error) {
	o.page = append([]answerpage.Option{answerpage.WithEnv(noEnv)}, o.page...)
	// The tests read the page's address from its log, as a person reads
	// it on the terminal.
	o.urlShown = true
	svc := askcore.NewService(c)
	s, err := newServer(ctx, svc, o)
	if err != nil {
		return nil, err
	}
	dispose, err := svc.Register(s.Provider())
	if err != nil {
		return nil, err
	}
	return &testServer{s, dispose}, nil
}

func noEnv(string) string { return "" }

func (s *testServer) close() {
	s.dispose()
	s.Close()
}

// waitLong bounds every wait of a test: long enough for a loaded 2-core
// machine under -race, short enough to fail rather than hang.
const waitLong = 30 * time.Second

// legacyVersions are the protocol versions before input requests: a server
// limited to them makes go-sdk's client fall back to initialize with
// 2025-11-25, so questions travel as elicitation/create.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// protocolMode is one way a client speaks to askcore-mcp.
type protocolMode struct {
	name string
	// serverVersions limits the server's versions (nil: all of go-sdk's).
	serverVersions []string
	// inputRequests: the form travels in the tool result (2026-07-28).
	inputRequests bool
}

var (
	modeInputRequests = protocolMode{name: "2026-07-28", inputRequests: true}
	modeLegacy        = protocolMode{name: "2025-11-25", serverVersions: legacyVersions}
	modes             = []protocolMode{modeInputRequests, modeLegacy}
)

// nativeCore runs the core as Go code: the tests compare the server's
// bytes with the core's own.
var nativeCore = askcore.NewCore(askcore.Native{})

// harness is one askcore-mcp server and one go-sdk client connected over
// the SDK's in-memory transport.
type harness struct {
	t      *testing.T
	srv    *testServer
	cs     *mcp.ClientSession
	ss     *mcp.ServerSession
	logs   *outcomeLog
	closed bool
	// pipe is the client's end of the connection when started with
	// startCuttable: closing it is the client process dying.
	pipe net.Conn
}

// start connects a client with copts to a new server with o, in mode m.
// The server reads and writes through lineTransport, as askcore-mcp does
// on stdio; the client is go-sdk's, over a net.Pipe.
func start(t *testing.T, m protocolMode, o options, copts *mcp.ClientOptions) *harness {
	t.Helper()
	return startCuttable(t, m, o, copts)
}

// testClient is the clientInfo of the tests' client.
var testClient = mcp.Implementation{Name: "askcore-test", Version: "0"}

// startAs is start with a client that names itself client.
func startAs(t *testing.T, m protocolMode, o options, copts *mcp.ClientOptions, client mcp.Implementation) *harness {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	return startOn(t, m, o, copts, client,
		&lineTransport{r: serverEnd, w: serverEnd, closeReader: serverEnd.Close},
		&mcp.IOTransport{Reader: clientEnd, Writer: clientEnd}, clientEnd)
}

// startCuttable is start over a net.Pipe whose client end the test can
// close at any moment (h.cut), as when the client process dies.
func startCuttable(t *testing.T, m protocolMode, o options, copts *mcp.ClientOptions) *harness {
	t.Helper()
	return startAs(t, m, o, copts, testClient)
}

// cut closes the client's end of the connection without a word.
func (h *harness) cut() { _ = h.pipe.Close() }

func startOn(t *testing.T, m protocolMode, o options, copts *mcp.ClientOptions, client mcp.Implementation, st, ct mcp.Transport, pipe net.Conn) *harness {
	t.Helper()
	ctx := context.Background()
	logs := newOutcomeLog()
	o.log = slog.New(logs)
	o.protocolVersions = m.serverVersions
	srv, err := startServer(ctx, nativeCore, o)
	require.NoError(t, err)
	ss, err := srv.mcp.Connect(ctx, st, nil)
	require.NoError(t, err)
	if copts == nil {
		copts = &mcp.ClientOptions{}
	}
	c := mcp.NewClient(&client, copts)
	cs, err := c.Connect(ctx, ct, nil)
	require.NoError(t, err)
	if m.inputRequests {
		require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
	} else {
		require.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)
	}
	h := &harness{t: t, srv: srv, cs: cs, ss: ss, logs: logs, pipe: pipe}
	t.Cleanup(h.close)
	return h
}

// close ends the client session and waits for the server session to end.
func (h *harness) close() {
	if h.closed {
		return
	}
	h.closed = true
	_ = h.cs.Close()
	done := make(chan struct{})
	go func() {
		_ = h.ss.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitLong):
		h.t.Error("the server session did not end after the client closed")
	}
	h.srv.close()
}

// call calls ask_user_question with args (any JSON value).
func (h *harness) call(ctx context.Context, args any) (*mcp.CallToolResult, error) {
	return h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_user_question", Arguments: args})
}

// failedWith is the text of res, which must be an error with code.
func failedWith(t *testing.T, res *mcp.CallToolResult, code string) string {
	t.Helper()
	require.True(t, res.IsError)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, `"code":"`+code+`"`)
	return text
}

// mustCall is call within waitLong, failing the test on a protocol error.
func (h *harness) mustCall(args any) *mcp.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	res, err := h.call(ctx, args)
	require.NoError(h.t, err)
	require.NotNil(h.t, res)
	return res
}

// assertBytes checks a tool result: one text block whose text is exactly
// want (the core's bytes), structuredContent the same value, isError as
// given.
func assertBytes(t *testing.T, res *mcp.CallToolResult, want []byte, isError bool) {
	t.Helper()
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	assert.Equal(t, string(want), text.Text, "text content must be the core's bytes")
	sc, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(sc), "structuredContent must be the core's object")
	assert.Equal(t, isError, res.IsError)
}

// wantStep is the core's verdict on reply to the form of round for args,
// from a person who took personMillis to give it.
func wantStep(t *testing.T, args, reply string, round int) askcore.FormStep {
	t.Helper()
	ctx := context.Background()
	call, err := nativeCore.Normalize(ctx, args)
	require.NoError(t, err)
	step, err := call.JudgeForm(ctx, askcore.FormRound{Target: askcore.ForMCP, Response: json.RawMessage(reply), Round: round,
		Delivery: &askcore.Delivery{Elapsed: personTime, Client: "askcore-test", ClientVersion: "0"}})
	require.NoError(t, err)
	return step
}

// personTime is how long the tests' people take to reply to a form: a
// reply faster than core.NotShownMillis is one no person could have given
// (not_shown).
const personTime = (core.NotShownMillis + 50) * time.Millisecond

// stoppedClock is a clock that does not move (options.now): every reply
// comes 0 ms after its form, as a client's that showed it to nobody does,
// however long a loaded machine took to carry it (a real 0.39 s once
// turned such a test's not_shown into a person's decline).
func stoppedClock() func() time.Time {
	at := time.Now()
	return func() time.Time { return at }
}

// wantForm is the core's form for args, as MCP clients read it.
func wantForm(t *testing.T, args string) askcore.Form {
	t.Helper()
	ctx := context.Background()
	call, err := nativeCore.Normalize(ctx, args)
	require.NoError(t, err)
	f, err := call.Form(ctx, askcore.ForMCP)
	require.NoError(t, err)
	return f
}

// outcomeLog is a slog.Handler that records the outcome of each call
// ("answered" or the error code) as the server logs it.
type outcomeLog struct {
	mu       sync.Mutex
	outcomes []string
	changed  chan struct{}
}

func newOutcomeLog() *outcomeLog { return &outcomeLog{changed: make(chan struct{})} }

func (l *outcomeLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *outcomeLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *outcomeLog) WithGroup(string) slog.Handler            { return l }
func (l *outcomeLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "ask_user_question" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "outcome" {
			l.mu.Lock()
			l.outcomes = append(l.outcomes, a.Value.String())
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

// wait returns once an outcome has been logged that was not logged before
// (the n-th overall, from 0), or fails the test after waitLong.
func (l *outcomeLog) wait(t *testing.T, n int) string {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		l.mu.Lock()
		if len(l.outcomes) > n {
			o := l.outcomes[n]
			l.mu.Unlock()
			return o
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no outcome #%d logged within %s", n+1, waitLong)
		}
	}
}

// elicitor is a client elicitation handler that records each form and
// answers with respond.
type elicitor struct {
	respond func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)

	mu    sync.Mutex
	forms []*mcp.ElicitParams
}

func (e *elicitor) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	e.forms = append(e.forms, req.Params)
	e.mu.Unlock()
	return e.respond(ctx, req.Params)
}

func (e *elicitor) seen() []*mcp.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), e.forms...)
}

// replyWith answers every form with the same result, as a person would:
// after personTime (a decline or cancel sooner is not the person's).
func replyWith(action string, content map[string]any) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if action != "accept" {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(personTime):
			}
		}
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}
}
