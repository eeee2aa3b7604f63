package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
}

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
	dispose, err := sm.svc.Register(&provider{seam: sm, log: o.log, progressEvery: every})
	if err != nil {
		return nil, err
	}
	s := &server{seam: sm, timeout: o.timeout, log: o.log, dispose: dispose}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "askcore-mcp", Title: "askcore", Version: frontdoor.Version()}, &mcp.ServerOptions{
		Logger: o.log,
		// Tools only: no logging capability (diagnostics go to stderr).
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: o.protocolVersions,
	})
	s.mcp.AddSendingMiddleware(captureReplies)
	// Registered raw: the input schema is the core's bytes, and the
	// arguments reach the core as they came, so a bad request is the
	// core's INVALID_REQUEST (mcp.AddTool[In, Out] would validate them
	// itself and answer a plain-text error without a code).
	s.mcp.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: schema}, s.handle)
	return s, nil
}

// close withdraws pending questions (ASK_ABORTED).
func (s *server) close() { s.dispose() }

// handle is the tools/call handler of ask_user_question. The SDK runs each
// call in its own goroutine and cancels ctx on notifications/cancelled or a
// lost connection.
func (s *server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c := &call{req: req}
	answer, err := s.seam.ask(withCall(ctx, c), req.Params.Arguments, s.timeout)
	if ir := c.takeInputRequest(); ir != nil && ctx.Err() == nil {
		// 2026-07-28: the form goes to the client inside the result; it
		// retries the call with the reply.
		s.log.Debug("ask_user_question: form returned as an input request")
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
