package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
)

// askTitle is the title of an ask_user_question tool call in the client.
const askTitle = "Question for you"

// Serve runs one ACP connection, the agent side: it reads the client's
// lines from r and writes its own to w, until the client goes away (then
// it waits for the connection's prompts to end and returns nil) or ctx is
// done. Then it stops: every prompt in flight ends with ctx's cause (a
// pending question is withdrawn, its tool fails with ASK_ABORTED naming
// the cause, "the agent received SIGTERM" for frontdoor.Stopped), and it
// waits, at most StopGrace, for every request of the client to have its
// response on the wire, and returns ctx's cause.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s := newServer(a)
	out := newOutput(w)
	// No conn.SetLogger: in v0.13.0 it races with the connection's own
	// goroutines; the SDK logs through slog.Default.
	// The core escapes <, > and & as encoding/json does, so the SDK's HTML
	// escaping keeps the core's bytes.
	s.guard = newLineGuard(r, out, a.log)
	conn := acp.NewAgentSideConnection(s, out, s.guard)
	s.attach(conn)
	select {
	case <-conn.Done():
		s.shutdown()
		return nil
	case <-ctx.Done():
		cause := context.Cause(ctx)
		s.stop(cause, out, nil)
		return cause
	}
}

// stopCause is what a stopped prompt's question is aborted with: for a
// signal, "the agent received SIGTERM".
func stopCause(cause error) error {
	if name := frontdoor.StoppedBy(cause); name != "" {
		return errors.New("the agent received " + name)
	}
	return cause
}

// StopGrace bounds how long Serve, once stopped, waits for the prompts it
// ended to have their final updates and responses written; with the
// engine's release it keeps a signal's exit within 2 s.
const StopGrace = 1500 * time.Millisecond

// stop ends every prompt in flight with cause (a pending question becomes
// ASK_ABORTED naming it, stopCause, its tool_call_update goes out, the prompt ends
// with stopReason cancelled), refuses new ones, and waits for the
// client's requests to be answered: until StopGrace has passed, the
// client has gone, or hurry is closed.
func (s *server) stop(cause error, out *output, hurry <-chan struct{}) {
	deadline := time.Now().Add(StopGrace)
	why := []any{"cause", cause.Error()}
	if name := frontdoor.StoppedBy(cause); name != "" {
		why = []any{"signal", name}
	}
	s.agent.log.Warn("stopping: withdrawing pending questions", append(why, "prompts", s.stopPrompts(stopCause(cause)))...)
	answered := make(chan bool, 1)
	go func() { answered <- out.waitAnswered(deadline, s.conn.Done()) }()
	select {
	case ok := <-answered:
		if !ok {
			s.agent.log.Warn("exiting with requests unanswered", "requests", out.unanswered())
		}
	case <-hurry:
		s.agent.log.Warn("exiting now, requests unanswered", "requests", out.unanswered())
	}
	s.mu.Lock()
	s.closed = true
	for id := range s.sessions {
		s.agent.closeSession(id)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
}

// server is the acp.Agent of one connection.
type server struct {
	agent *Agent
	ready chan struct{} // closed once conn is set
	conn  *acp.AgentSideConnection
	guard *lineGuard // the client's lines (nil in some tests)

	form atomic.Bool // the client advertised elicitation.form
	// client is the client's clientInfo from initialize (nil: none given).
	client atomic.Pointer[acp.Implementation]

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	prompts  sync.WaitGroup
	running  map[int]context.CancelCauseFunc // the prompts in flight
	lastRun  int
	stopped  error // set by a signal: the cause every prompt ends with
}

// session is one ACP session: one agent, its history kept across prompts
// (sub-agents that code in the session creates join it through the router).
type session struct {
	id   string
	conv Conversation
	core *askcore.Core // the core, for the text the client is shown
	turn sync.Mutex    // one prompt at a time
}

func newServer(a *Agent) *server {
	return &server{agent: a, ready: make(chan struct{}), sessions: make(map[string]*session), running: make(map[int]context.CancelCauseFunc)}
}

func (s *server) attach(conn *acp.AgentSideConnection) {
	s.conn = conn
	close(s.ready)
}

// shutdown unbinds every session and waits for the prompts in flight (their
// ctx is cancelled by the closed connection).
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	for id := range s.sessions {
		s.agent.closeSession(id)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	s.prompts.Wait()
}

// formElicitation implements peer.
func (s *server) formElicitation() bool { return s.form.Load() }

// clientInfo implements peer.
func (s *server) clientInfo() (name, version string) {
	if ci := s.client.Load(); ci != nil {
		return ci.Name, ci.Version
	}
	return "", ""
}

// elicit implements peer.
func (s *server) elicit(ctx context.Context, req elicitationRequest) (json.RawMessage, error) {
	<-s.ready
	raw, err := createElicitation(ctx, s.conn, req)
	if err != nil && s.disconnected() {
		return nil, errClientGone
	}
	return raw, err
}

// disconnected reports whether the connection has closed. The ctx of each
// request in flight is a child of the connection's, and Go cancels the
// children one by one after the parent is done, so a request can see the
// connection gone while its own ctx is still alive.
func (s *server) disconnected() bool {
	select {
	case <-s.conn.Done():
		return true
	default:
		return false
	}
}

// update sends a session/update (sdkgap_wirebytes.go: raw JSON inside keeps
// its bytes). It is not tied to the prompt's ctx: after session/cancel the
// final tool_call_update must still go out.
func (s *server) update(sessionID string, u acp.SessionUpdate) {
	<-s.ready
	if err := sendSessionUpdate(context.Background(), s.conn, sessionID, u); err != nil {
		s.agent.log.Debug("session/update not sent", "session", sessionID, "err", err)
	}
}

// Initialize records the client's form-elicitation capability and answers
// at once: the engine keeps opening in the background.
func (s *server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	el := p.ClientCapabilities.Elicitation
	s.form.Store(el != nil && el.Form != nil)
	s.client.Store(p.ClientInfo)
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: false},
		AgentInfo:         &acp.Implementation{Name: s.agent.opts.Name, Title: acp.Ptr("askcore"), Version: s.agent.opts.Version},
		AuthMethods:       []acp.AuthMethod{},
	}, nil
}

// Authenticate is a no-op: askcore-acp needs no authentication.
func (s *server) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// NewSession creates an agent for the session (its history is kept across
// prompts) and routes its questions here. It waits for the engine.
func (s *server) NewSession(ctx context.Context, _ acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	b, sessionID, agentID, err := s.agent.openSession(ctx, s)
	if err != nil {
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	sess := &session{id: sessionID, core: b.Core}
	sess.conv = b.NewConversation(agentID, sessionID, s.hooks(sess))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.agent.closeSession(sess.id)
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": "connection closed"})
	}
	s.sessions[sess.id] = sess
	return acp.NewSessionResponse{SessionId: acp.SessionId(sess.id)}, nil
}

func (s *server) session(id acp.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[string(id)]
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", id)})
	}
	return sess, nil
}

// beginPrompt finds the session, counts the prompt in flight (shutdown
// waits for it) and gives it a ctx a signal can end (stopPrompts); end
// uncounts it.
func (s *server) beginPrompt(ctx context.Context, id acp.SessionId) (_ *session, _ context.Context, end func(), _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[string(id)]
	if !ok {
		return nil, nil, nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", id)})
	}
	ctx, cancel := context.WithCancelCause(ctx)
	if s.stopped != nil {
		cancel(s.stopped)
	}
	s.lastRun++
	n := s.lastRun
	s.running[n] = cancel
	s.prompts.Add(1)
	return sess, ctx, func() {
		s.mu.Lock()
		delete(s.running, n)
		s.mu.Unlock()
		cancel(nil)
		s.prompts.Done()
	}, nil
}

// stopPrompts ends every prompt in flight, and every later one, with
// cause; it returns how many were in flight.
func (s *server) stopPrompts(cause error) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = cause
	for _, cancel := range s.running {
		cancel(cause)
	}
	return len(s.running)
}

// Prompt runs the agent loop for one user turn. It ends with end_turn, or
// with cancelled after session/cancel (the SDK cancels ctx), once the
// connection closed, or after a signal (stopPrompts).
func (s *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sess, ctx, end, err := s.beginPrompt(ctx, p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	defer end()
	sess.turn.Lock()
	defer sess.turn.Unlock()
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}

	runErr := sess.conv.Run(ctx, promptText(p.Prompt))
	if ctx.Err() != nil || errors.Is(runErr, context.Canceled) || s.disconnected() {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if runErr != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": runErr.Error()})
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// HandleExtensionMethod implements acp.ExtensionMethodHandler: the line
// guard's flow barriers come back here (sdkgap_flow.go); any other
// extension method is unknown.
func (s *server) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method == flowMethod && s.guard != nil {
		s.guard.flowPassed(params)
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(method)
}

// Cancel needs nothing more: the SDK has cancelled the prompt's ctx, which
// withdraws a pending elicitation ($/cancel_request) and ends the loop.
func (s *server) Cancel(context.Context, acp.CancelNotification) error { return nil }

// CloseSession forgets a session; the questions of its agent and of its
// sub-agents are then SESSION_NOT_FOUND.
func (s *server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[string(p.SessionId)]; ok {
		s.agent.closeSession(string(p.SessionId))
		delete(s.sessions, string(p.SessionId))
	}
	return acp.CloseSessionResponse{}, nil
}

// ListSessions lists the open sessions of this connection.
func (s *server) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for id := range s.sessions {
		out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(id), Cwd: "/"})
	}
	return out, nil
}

// ResumeSession succeeds for a session this connection still holds.
func (s *server) ResumeSession(_ context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if _, err := s.session(p.SessionId); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return acp.ResumeSessionResponse{}, nil
}

func (s *server) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (s *server) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

// hooks report the loop as session updates: text as agent_message_chunk,
// each tool call as tool_call then tool_call_update. Every text the client
// is shown comes from the core: the model's text and the titles of tools
// the model made up through its sanitize op, the card of an answer through
// its summary op, the card of a failure is the core's message.
func (s *server) hooks(sess *session) agent.Hooks {
	return agent.Hooks{
		OnText: func(text string) { s.sendText(sess, text) },
		OnToolCall: func(call agent.ToolCall) {
			opts := []acp.ToolCallStartOpt{acp.WithStartKind(acp.ToolKindOther), acp.WithStartStatus(acp.ToolCallStatusInProgress)}
			if len(call.Arguments) <= maxRawInputBytes {
				opts = append(opts, acp.WithStartRawInput(rawInput(call.Arguments)))
			}
			s.update(sess.id, acp.StartToolCall(acp.ToolCallId(call.ID), s.toolTitle(sess, call.Name), opts...))
		},
		OnToolResult: func(call agent.ToolCall, result json.RawMessage, err error) {
			s.update(sess.id, s.toolResultUpdate(sess, call, result, err))
		},
	}
}

// sendText sends a reply of the model as agent_message_chunk updates, made
// safe by the core, whatever its length (text.go).
func (s *server) sendText(sess *session, text string) {
	err := cleanChunks(context.Background(), sess.core, text, sanitizePieceBytes, messageChunkBytes, func(chunk string) {
		s.update(sess.id, acp.UpdateAgentMessageText(chunk))
	})
	if err != nil { // never show model text the core did not clean
		s.agent.log.Warn("agent text not sent (or not all of it): the core could not sanitize it", "session", sess.id, "err", err)
	}
}

// toolTitle is the title of a tool card: askTitle for the ask tool, else the
// name the model wrote as the core makes it fit a title (one line, cut).
func (s *server) toolTitle(sess *session, name string) string {
	if name == askcore.ToolName {
		return askTitle
	}
	title, err := sess.core.SanitizeTitle(context.Background(), name)
	if err != nil { // no title rather than model text the core did not clean
		s.agent.log.Warn("tool title left empty: the core could not sanitize it", "session", sess.id, "err", err)
	}
	return title
}

// maxRawInputBytes bounds the arguments a tool card shows as rawInput:
// longer ones (the core refuses ask_user_question arguments over
// core.MaxArgumentsBytes, 256 KiB, anyway) leave the card without
// rawInput, so that no tool_call line comes near an ACP peer's line limit
// (a model's 16 MiB of arguments would end an acp-go-sdk client).
const maxRawInputBytes = 1 << 20

// rawInput is the model's arguments as JSON when they are JSON, else the
// text as it came.
func rawInput(args json.RawMessage) any {
	if json.Valid(args) {
		return args
	}
	return string(args)
}

// toolResultUpdate is the tool_call_update for a result: completed with the
// result bytes (for the ask tool, the answer as the core wrote it) and the
// core's summary of the answer on the card, or failed with the error object
// as the core wrote it and its message on the card.
func (s *server) toolResultUpdate(sess *session, call agent.ToolCall, result json.RawMessage, err error) acp.SessionUpdate {
	if err != nil {
		he := askcore.AsError(err)
		return acp.UpdateToolCall(acp.ToolCallId(call.ID),
			acp.WithUpdateStatus(acp.ToolCallStatusFailed),
			acp.WithUpdateRawOutput(json.RawMessage(he.JSON())),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(he.Message))}))
	}
	opts := []acp.ToolCallUpdateOpt{
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(result),
	}
	if call.Name == askcore.ToolName {
		if summary, err := s.summary(sess, call, result); err == nil {
			opts = append(opts, acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(summary))}))
		} else {
			s.agent.log.Warn("tool card without a summary", "session", sess.id, "call", call.ID, "err", err)
		}
	}
	return acp.UpdateToolCall(acp.ToolCallId(call.ID), opts...)
}

// summary is the core's one line per question of what answer chose.
func (s *server) summary(sess *session, call agent.ToolCall, answer json.RawMessage) (string, error) {
	ctx := context.Background()
	normalized, err := sess.core.Normalize(ctx, string(call.Arguments))
	if err != nil {
		return "", err
	}
	var a askcore.Answer
	if err := json.Unmarshal(answer, &a); err != nil {
		return "", err
	}
	return normalized.Summary(ctx, a)
}

// promptText flattens a prompt to the text the model reads.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			parts = append(parts, b.Resource.Resource.TextResourceContents.Text)
		}
	}
	return strings.Join(parts, "\n")
}
