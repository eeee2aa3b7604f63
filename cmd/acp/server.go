package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/core"
)

// version is reported in initialize.
var version = "dev"

// askTitle is the title of an ask_user_question tool call in the client.
const askTitle = "Question for you"

// serve runs one ACP connection (the agent reads r and writes w) until the
// peer goes away, then waits for its prompts to end.
func serve(a *app, r io.Reader, w io.Writer) {
	s := newServer(a)
	r = newResponseRepair(r)
	// No conn.SetLogger: in v0.13.0 it races with the connection's own
	// goroutines; the SDK logs through slog.Default (main sets it).
	conn := acp.NewAgentSideConnection(s, w, r)
	s.attach(conn)
	<-conn.Done()
	s.shutdown()
}

// server is the acp.Agent of one connection.
type server struct {
	app   *app
	ready chan struct{} // closed once conn is set
	conn  *acp.AgentSideConnection

	form atomic.Bool // the client advertised elicitation.form

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	prompts  sync.WaitGroup
}

// session is one ACP session: one agent, its history kept across prompts.
type session struct {
	id    string
	agent *agent.Agent
	turn  sync.Mutex // one prompt at a time

	mu      sync.Mutex
	pending map[string]bool // tool calls reported and not yet resolved
}

func newServer(a *app) *server {
	return &server{app: a, ready: make(chan struct{}), sessions: make(map[string]*session)}
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
	for id, sess := range s.sessions {
		s.app.forget(sess.agent.ID)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	s.prompts.Wait()
}

// formElicitation implements peer.
func (s *server) formElicitation() bool { return s.form.Load() }

// elicit implements peer.
func (s *server) elicit(ctx context.Context, req elicitationRequest) (json.RawMessage, error) {
	<-s.ready
	return createElicitation(ctx, s.conn, req)
}

// update sends a session/update. It is not tied to the prompt's ctx: after
// session/cancel the final tool_call_update must still go out.
func (s *server) update(sessionID string, u acp.SessionUpdate) {
	<-s.ready
	if err := s.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: acp.SessionId(sessionID), Update: u}); err != nil {
		s.app.log.Debug("session/update not sent", "session", sessionID, "err", err)
	}
}

// Initialize records the client's form-elicitation capability and answers
// at once: the engine keeps opening in the background.
func (s *server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	el := p.ClientCapabilities.Elicitation
	s.form.Store(el != nil && el.Form != nil)
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: false},
		AgentInfo:         &acp.Implementation{Name: "askcore-acp", Title: acp.Ptr("askcore"), Version: version},
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
	sess := &session{pending: make(map[string]bool)}
	ag, err := s.app.newAgent(ctx, s, func(sessionID string) agent.Hooks {
		sess.id = sessionID
		return s.hooks(sess)
	})
	if err != nil {
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	sess.agent = ag
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.app.forget(ag.ID)
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

// beginPrompt finds the session and counts the prompt in flight (shutdown
// waits for it).
func (s *server) beginPrompt(id acp.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[string(id)]
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", id)})
	}
	s.prompts.Add(1)
	return sess, nil
}

// Prompt runs the agent loop for one user turn. It ends with end_turn, or
// with cancelled after session/cancel (the SDK cancels ctx).
func (s *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sess, err := s.beginPrompt(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	defer s.prompts.Done()
	sess.turn.Lock()
	defer sess.turn.Unlock()
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}

	runErr := sess.agent.Run(ctx, promptText(p.Prompt))
	cancelled := ctx.Err() != nil || errors.Is(runErr, context.Canceled)
	s.abortPending(sess)
	if cancelled {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if runErr != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": runErr.Error()})
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// Cancel needs nothing more: the SDK has cancelled the prompt's ctx, which
// withdraws a pending elicitation ($/cancel_request) and ends the loop.
func (s *server) Cancel(context.Context, acp.CancelNotification) error { return nil }

// CloseSession forgets a session; its agent's questions are then
// SESSION_NOT_FOUND.
func (s *server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[string(p.SessionId)]; ok {
		s.app.forget(sess.agent.ID)
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
// each tool call as tool_call then tool_call_update.
func (s *server) hooks(sess *session) agent.Hooks {
	return agent.Hooks{
		OnText: func(text string) {
			// Model text: no escape sequence, control or bidi override
			// reaches the client (the core's rule, as for every field).
			if text = core.SanitizeText(text); text != "" {
				s.update(sess.id, acp.UpdateAgentMessageText(text))
			}
		},
		OnToolCall: func(call agent.ToolCall) {
			sess.mu.Lock()
			sess.pending[call.ID] = true
			sess.mu.Unlock()
			s.update(sess.id, acp.StartToolCall(acp.ToolCallId(call.ID), toolTitle(call.Name),
				acp.WithStartKind(acp.ToolKindOther),
				acp.WithStartStatus(acp.ToolCallStatusInProgress),
				acp.WithStartRawInput(rawInput(call.Arguments))))
		},
		OnToolResult: func(call agent.ToolCall, result json.RawMessage, err error) {
			sess.mu.Lock()
			known := sess.pending[call.ID]
			delete(sess.pending, call.ID)
			sess.mu.Unlock()
			if !known {
				return
			}
			s.update(sess.id, toolResultUpdate(call.ID, result, err))
		},
	}
}

// abortPending reports ASK_ABORTED for tool calls the loop left without a
// result (a cancelled turn), so the client never keeps a spinner.
func (s *server) abortPending(sess *session) {
	sess.mu.Lock()
	ids := make([]string, 0, len(sess.pending))
	for id := range sess.pending {
		ids = append(ids, id)
	}
	clear(sess.pending)
	sess.mu.Unlock()
	for _, id := range ids {
		s.update(sess.id, toolResultUpdate(id, nil, core.NewError(core.CodeAskAborted, "the question was aborted: the prompt was cancelled")))
	}
}

// maxTitleChars bounds the title of a tool card for a tool name the model
// made up (it may be megabytes long).
const maxTitleChars = 80

func toolTitle(name string) string {
	if name == agent.AskToolName {
		return askTitle
	}
	// Model text: no escape sequence, control or bidi character reaches
	// the client, and no giant title.
	title := core.SanitizeText(name)
	n := 0
	for i := range title {
		if n == maxTitleChars {
			return title[:i] + "…"
		}
		n++
	}
	return title
}

// rawInput is the model's arguments as JSON when they are JSON, else the
// text as it came.
func rawInput(args json.RawMessage) any {
	if json.Valid(args) {
		return args
	}
	return string(args)
}

// toolResultUpdate is the tool_call_update for a result: completed with the
// answer object, or failed with the error object {name, code, message}.
func toolResultUpdate(id string, result json.RawMessage, err error) acp.SessionUpdate {
	if err != nil {
		he := agent.AsHarnessError(err)
		return acp.UpdateToolCall(acp.ToolCallId(id),
			acp.WithUpdateStatus(acp.ToolCallStatusFailed),
			acp.WithUpdateRawOutput(agent.ErrorJSON(he)),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(string(he.Code) + ": " + he.Message))}))
	}
	var out any = result
	if !json.Valid(result) {
		out = string(result)
	}
	return acp.UpdateToolCall(acp.ToolCallId(id),
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(out),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(answerText(result)))}))
}

// answerText is what the tool card shows: the answer, or the result as it is.
func answerText(result json.RawMessage) string {
	var a core.Answer
	if json.Unmarshal(result, &a) == nil && a.Answer != "" {
		return "Answer: " + a.Answer
	}
	return string(result)
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
