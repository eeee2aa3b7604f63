package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// Options configure a Server; the zero value (or nil) is the default.
type Options struct {
	// Timeout, when positive, ends each question with ASK_TIMEOUT. Off by
	// default: nothing is ever chosen on a person's behalf.
	Timeout time.Duration
	// ProgressEvery is how often a call that carries a progress token
	// hears from the server while a person answers (0: every 5 s;
	// negative: never).
	ProgressEvery time.Duration
	// Web is when Provider asks on the local answer page: frontdoor.WebAuto
	// (the default) where the client shows no form.
	Web frontdoor.WebMode
	// Page configures the answer page, after the server's defaults: its
	// log discarded and a browser opened (on a desktop, where the client
	// does not open the page itself). askcore-mcp passes
	// frontdoor.Web.PageOptions.
	Page []answerpage.Option
	// URLShown: the answer page's address, which the page writes to its
	// log (answerpage.WithLog), reaches the person there (askcore-mcp's
	// stderr is their terminal, or --no-browser said they read it).
	// Without it, and without a browser the page opens or the client's
	// URL-mode request, the page is no surface: a question the client
	// cannot show fails at once instead of waiting unseen.
	URLShown bool
	// ClientEntrypoint is how the client that started this process says
	// it runs, from the environment it gave the process: askcore-mcp
	// passes $CLAUDE_CODE_ENTRYPOINT, which is "sdk-cli" under claude -p.
	// The core then knows a cancel from Claude Code in print mode for what
	// it is (nobody saw the form) however long the client took to send
	// it. Leave it empty where the clients are not this process's parent
	// (Handler, a hub's /mcp endpoint).
	ClientEntrypoint string
	// Logger receives the server's diagnostics (nil: discarded).
	Logger *slog.Logger
	// StopWithin bounds Serve's graceful stop once its ctx ends (0: 1.2 s).
	StopWithin time.Duration
}

// defaultProgressEvery is how often a call with a progress token hears
// from the server while the person answers. Clients that reset their
// request timeout on progress (the TypeScript SDK's default is 60 s) keep
// the call open for as long as the person needs.
const defaultProgressEvery = 5 * time.Second

// defaultStopWithin: a signal ends askcore-mcp within 2 s (documented),
// of which this much serves the calls; the rest releases the engine.
const defaultStopWithin = 1200 * time.Millisecond

// options are Options as the server reads them.
type options struct {
	timeout time.Duration
	// progressEvery is the progress interval (0: defaultProgressEvery;
	// negative: no progress notifications).
	progressEvery time.Duration
	// protocolVersions, when set, limits the versions the server accepts
	// (tests use it to force the legacy path on a Go client).
	protocolVersions []string
	log              *slog.Logger
	// web is when the answer page is used; page configures the page;
	// urlShown is Options.URLShown; entrypoint Options.ClientEntrypoint.
	web        frontdoor.WebMode
	page       []answerpage.Option
	urlShown   bool
	entrypoint string
	stopWithin time.Duration
	// urlHold and heldFor, when set, replace defaultURLHold and
	// defaultHeldFor (tests).
	urlHold, heldFor time.Duration
	// now, when set, replaces time.Now where a reply's delay is measured
	// (the core's not_shown rule reads it): a test of a reply nobody
	// could have given stops the clock, so that a loaded machine's delay
	// is not read as a person's.
	now func() time.Time
}

// Server serves askcore's one tool, ask_user_question, over MCP: every
// call is asked through the askcore.Service it was made with. It serves
// any number of sessions, one after another or at once, over stdio
// (Serve), streamable HTTP (Handler) or any go-sdk transport (Connect).
type Server struct {
	seam    *seam
	mcp     *mcp.Server
	tool    *mcp.Tool
	o       options
	timeout time.Duration
	log     *slog.Logger
	// page is the answer page, started on the first question asked there.
	page     *answerpage.Lazy
	provider *provider

	// life ends when the server is stopped (stop): every call in progress
	// and every later one ends with the core's stopped situation.
	life     context.Context
	stopLife context.CancelCauseFunc
	mu       sync.Mutex
	signal   string // what stopped the server ("SIGTERM"), once stopped
}

// New makes a server whose tool calls svc answers (nil: a new service on
// the native core). svc's provider reaches the person: register your own,
// or the server's, which asks the MCP client of each call (Provider).
func New(svc *askcore.Service, o *Options) (*Server, error) {
	if svc == nil {
		svc = askcore.NewService(nil)
	}
	if o == nil {
		o = &Options{}
	}
	return newServer(context.Background(), svc, options{
		timeout: o.Timeout, progressEvery: o.ProgressEvery, log: o.Logger, web: o.Web,
		page: o.Page, urlShown: o.URLShown, entrypoint: o.ClientEntrypoint,
		stopWithin: o.StopWithin,
	})
}

func newServer(ctx context.Context, svc *askcore.Service, o options) (*Server, error) {
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.stopWithin <= 0 {
		o.stopWithin = defaultStopWithin
	}
	every := o.progressEvery
	if every == 0 {
		every = defaultProgressEvery
	}
	if every < 0 {
		every = 0
	}
	sm := &seam{core: svc.Core(), svc: svc}
	name, description, schema, err := sm.tool(ctx)
	if err != nil {
		return nil, err
	}
	page := answerpage.NewLazy(sm.core, append([]answerpage.Option{answerpage.WithLog(io.Discard), answerpage.WithBrowser(true)}, o.page...)...)
	s := &Server{seam: sm, o: o, timeout: o.timeout, log: o.log, page: page,
		tool: &mcp.Tool{Name: name, Description: description, InputSchema: schema},
		provider: &provider{seam: sm, log: o.log, progressEvery: every, web: o.web,
			page: page, urlShown: o.urlShown, entrypoint: o.entrypoint, now: o.now}}
	if s.provider.now == nil {
		s.provider.now = time.Now
	}
	s.life, s.stopLife = context.WithCancelCause(context.Background())
	s.provider.life = s.life
	s.provider.held.urlHold, s.provider.held.heldFor = o.urlHold, o.heldFor
	if s.provider.held.urlHold <= 0 {
		s.provider.held.urlHold = defaultURLHold
	}
	if s.provider.held.heldFor <= 0 {
		s.provider.held.heldFor = defaultHeldFor
	}
	s.mcp = s.newMCP()
	return s, nil
}

// newMCP is a go-sdk server with the tool: one serves every stdio or
// in-memory session; Handler makes one per HTTP session.
func (s *Server) newMCP() *mcp.Server {
	m := mcp.NewServer(&mcp.Implementation{Name: "askcore-mcp", Title: "askcore", Version: frontdoor.Version()}, &mcp.ServerOptions{
		Logger: s.log,
		// Tools only: no logging capability (diagnostics go to the log).
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: s.o.protocolVersions,
	})
	// Registered raw: the input schema is the core's bytes, and the
	// arguments reach the core as they came, so a bad request is the
	// core's INVALID_REQUEST (mcp.AddTool[In, Out] would validate them
	// itself and answer a plain-text error without a code).
	m.AddTool(s.tool, s.handle)
	return m
}

// Provider is the provider that asks the person through the MCP client of
// the tool call that asked: the client's form (form elicitation), or the
// local answer page where the client shows none (Options.Web), the page's
// URL given through the client's URL-mode elicitation where it has one.
// Register it on the server's service to ask that way.
func (s *Server) Provider() askcore.Provider { return s.provider }

// Connect serves one session over t (a go-sdk transport, such as
// mcp.NewInMemoryTransports for a client in the same process).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// Handler serves MCP over streamable HTTP, a fresh go-sdk server per
// session (opts: go-sdk's, may be nil). Authentication is the caller's.
func (s *Server) Handler(opts *mcp.StreamableHTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.newMCP() }, opts)
}

// Serve serves one session on newline-delimited JSON-RPC (stdio: r is
// stdin, w stdout) until r ends (nil), w breaks (nil: the client went
// away) or ctx ends. Every line is judged before go-sdk sees it: none can
// end the session (docs/mcp.md, "Lines"). When ctx ends, Serve stops
// gracefully within Options.StopWithin: every pending call is answered
// with the core's stopped error (naming the signal of a
// frontdoor.Stopped cause), every form the client shows is withdrawn,
// the answer page says goodbye; it returns ctx's cause.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	tr := &lineTransport{r: r, w: w, log: s.log}
	if c, ok := r.(io.Closer); ok {
		tr.closeReader = c.Close
	}
	ss, err := s.mcp.Connect(context.WithoutCancel(ctx), tr, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-ctx.Done():
		s.shutdown(ctx, ss, tr.conn, time.Now().Add(s.o.stopWithin))
		return context.Cause(ctx)
	}
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil
	case errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrClosedPipe):
		// The client went away (its end of w closed): pending questions
		// were aborted, as at the end of r.
		s.log.Info("the client closed the connection", "err", err)
		return nil
	}
	return err
}

// Close stops the answer page, withdrawing what is pending on it. Dispose
// the provider's registration first to end pending questions with
// ASK_ABORTED.
func (s *Server) Close() {
	withdraw, cancel := context.WithCancel(context.Background())
	cancel()
	_ = s.page.Shutdown(withdraw)
}

// errStopped is the cause of the calls ended by stop (stopCause wraps it
// with the signal).
var errStopped = errors.New("askcore-mcp was stopped")

// stopCause is the cause of the calls ended by stop: errStopped, naming the
// signal when there was one ("askcore-mcp was stopped (SIGTERM)"), which is
// what the answer page shows for a question withdrawn that way.
type stopCause struct{ signal string }

func (c stopCause) Error() string {
	if c.signal == "" {
		return errStopped.Error()
	}
	return errStopped.Error() + " (" + c.signal + ")"
}

func (c stopCause) Unwrap() error { return errStopped }

// stop ends every question in progress, and answers every later call at
// once, with the core's stopped situation naming signal (e.g. "SIGTERM";
// may be empty). The calls' results still go out while the connection
// lasts.
func (s *Server) stop(signal string) {
	s.mu.Lock()
	if s.life.Err() == nil {
		s.signal = signal
	}
	s.mu.Unlock()
	s.stopLife(stopCause{signal})
}

// stoppedBy is what stopped the server, and whether it was stopped.
func (s *Server) stoppedBy() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signal, s.life.Err() != nil
}

// handle is the tools/call handler of ask_user_question. The SDK runs each
// call in its own goroutine and cancels ctx on notifications/cancelled or a
// lost connection; stop cancels it too.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.life, func() { cancel(context.Cause(s.life)) })()
	c := &call{req: req, id: callID(req)}
	answer, err := s.seam.ask(withCall(ctx, c), req.Params.Arguments, asker(req), c.id, s.timeout)
	if signal, stopped := s.stoppedBy(); stopped && err != nil && askcore.AsError(err).Code == askcore.CodeAskAborted {
		err = s.seam.stopped(ctx, signal)
	}
	if ir, state := c.takeInputRequest(); ir != nil && ctx.Err() == nil {
		// 2026-07-28: the form goes to the client inside the result; it
		// retries the call with the reply.
		s.log.Debug("ask_user_question: form returned as an input request")
		// (go-sdk writes "content": null beside it; lineTransport drops it.)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey: ir}, RequestState: state}, nil
	}
	if err != nil {
		s.logOutcome(err)
		return bytesResult(errorObject(err), true), nil
	}
	s.log.Info("ask_user_question", "outcome", "answered")
	return bytesResult(answer, false), nil
}

func (s *Server) logOutcome(err error) {
	var he *askcore.Error
	if errors.As(err, &he) {
		s.log.Info("ask_user_question", "outcome", string(he.Code))
		return
	}
	s.log.Info("ask_user_question", "outcome", "error", "err", err)
}

// bytesResult is a tool result carrying obj (the core's answer object or
// error object) twice: as structuredContent and as the text of the one text
// content block, the same bytes.
func bytesResult(obj json.RawMessage, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(obj)}},
		StructuredContent: obj,
		IsError:           isError,
	}
}

// shutdown is the end of a session on a signal (ctx's cause): every
// question in progress is withdrawn with the core's stopped situation and
// its call answered, every form the client still shows is cancelled
// (notifications/cancelled), the answer page is stopped, and the session
// is closed, all before deadline at the latest.
func (s *Server) shutdown(ctx context.Context, ss *mcp.ServerSession, conn *lineConn, deadline time.Time) {
	signal := frontdoor.StoppedBy(context.Cause(ctx))
	s.log.Info("askcore-mcp stopping: withdrawing the pending questions", "signal", signal)
	s.stop(signal)
	wait, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if !conn.waitAnswered(wait) {
		s.log.Warn("stopping: some calls were not answered in time")
	}
	reason := "askcore-mcp was stopped"
	if signal != "" {
		reason += " (" + signal + ")"
	}
	conn.withdraw(reason)
	closed := make(chan struct{})
	go func() {
		// The answer page says goodbye to its open pages (the questions
		// on it were withdrawn with their calls) and stops listening.
		_ = s.page.Shutdown(wait)
		_ = ss.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-wait.Done():
		s.log.Warn("stopping: the session did not close in time")
	}
}
