package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
)

// defaultProgressEvery is how often a call with a progress token hears
// from the server while the person answers. Clients that reset their
// request timeout on progress (the TypeScript SDK's default is 60 s) keep
// the call open for as long as the person needs.
const defaultProgressEvery = 5 * time.Second

// options configure a server.
type options struct {
	// timeout, when positive, ends each question with ASK_TIMEOUT. Off by
	// default: nothing is ever chosen on a person's behalf.
	timeout time.Duration
	// progressEvery is the progress interval (0: defaultProgressEvery;
	// negative: no progress notifications).
	progressEvery time.Duration
	// protocolVersions, when set, limits the versions the server accepts
	// (tests use it to force the legacy path on a Go client).
	protocolVersions []string
	log              *slog.Logger
	// web is when the answer page is used (frontdoor.WebAuto: where the client shows
	// no form); page configures the page (web.go).
	web  frontdoor.WebMode
	page pageOptions
}

// server is askcore-mcp: an MCP server with one tool, ask_user_question,
// over one engine. It serves any number of sessions, one after another or
// at once.
type server struct {
	seam    *seam
	mcp     *mcp.Server
	timeout time.Duration
	log     *slog.Logger
	dispose func()
	// pages is the answer page, started on the first question asked there.
	pages *pages

	// life ends when the server is stopped (stop): every call in progress
	// and every later one ends with the core's stopped situation.
	life     context.Context
	stopLife context.CancelCauseFunc
	mu       sync.Mutex
	signal   string // what stopped the server ("SIGTERM"), once stopped
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

// newServer reads the tool from the core, registers the MCP provider on the
// seam and builds the MCP server. close releases the provider (pending
// questions end with ASK_ABORTED); the engine is the caller's.
func newServer(ctx context.Context, c *askcore.Core, o options) (*server, error) {
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	every := o.progressEvery
	if every == 0 {
		every = defaultProgressEvery
	}
	if every < 0 {
		every = 0
	}
	sm := newSeam(c)
	name, description, schema, err := sm.tool(ctx)
	if err != nil {
		return nil, err
	}
	pages := newPages(c, o.page)
	dispose, err := sm.svc.Register(&provider{seam: sm, log: o.log, progressEvery: every, web: o.web, pages: pages})
	if err != nil {
		return nil, err
	}
	s := &server{seam: sm, timeout: o.timeout, log: o.log, dispose: dispose, pages: pages}
	s.life, s.stopLife = context.WithCancelCause(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "askcore-mcp", Title: "askcore", Version: frontdoor.Version()}, &mcp.ServerOptions{
		Logger: o.log,
		// Tools only: no logging capability (diagnostics go to stderr).
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: o.protocolVersions,
	})
	// Registered raw: the input schema is the core's bytes, and the
	// arguments reach the core as they came, so a bad request is the
	// core's INVALID_REQUEST (mcp.AddTool[In, Out] would validate them
	// itself and answer a plain-text error without a code).
	s.mcp.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: schema}, s.handle)
	return s, nil
}

// close withdraws pending questions (ASK_ABORTED), on the answer page too,
// and stops the page.
func (s *server) close() {
	s.dispose()
	s.pages.close()
}

// stop ends every question in progress, and answers every later call at
// once, with the core's stopped situation naming signal (e.g. "SIGTERM";
// may be empty). The calls' results still go out while the connection
// lasts.
func (s *server) stop(signal string) {
	s.mu.Lock()
	if s.life.Err() == nil {
		s.signal = signal
	}
	s.mu.Unlock()
	s.stopLife(stopCause{signal})
}

// stoppedBy is what stopped the server, and whether it was stopped.
func (s *server) stoppedBy() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signal, s.life.Err() != nil
}

// handle is the tools/call handler of ask_user_question. The SDK runs each
// call in its own goroutine and cancels ctx on notifications/cancelled or a
// lost connection; stop cancels it too.
func (s *server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.life, func() { cancel(context.Cause(s.life)) })()
	c := &call{req: req}
	answer, err := s.seam.ask(withCall(ctx, c), req.Params.Arguments, s.timeout)
	if signal, stopped := s.stoppedBy(); stopped && err != nil && askcore.AsError(err).Code == askcore.CodeAskAborted {
		err = s.seam.stopped(ctx, signal)
	}
	if ir := c.takeInputRequest(); ir != nil && ctx.Err() == nil {
		// 2026-07-28: the form goes to the client inside the result; it
		// retries the call with the reply.
		s.log.Debug("ask_user_question: form returned as an input request")
		// (go-sdk writes "content": null beside it; lineTransport drops it.)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey: ir}}, nil
	}
	if err != nil {
		s.logOutcome(err)
		return bytesResult(errorObject(err), true), nil
	}
	s.log.Info("ask_user_question", "outcome", "answered")
	return bytesResult(answer, false), nil
}

func (s *server) logOutcome(err error) {
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
func (s *server) shutdown(ctx context.Context, ss *mcp.ServerSession, conn *lineConn, deadline time.Time) {
	signal := ""
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) {
		signal = signalName(sc.sig)
	}
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
		s.pages.close()
		_ = ss.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-wait.Done():
		s.log.Warn("stopping: the session did not close in time")
	}
}
