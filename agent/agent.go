// Package agent is the loop that makes a question part of a conversation:
// user prompt -> model -> tool calls -> tool results -> model, until the
// model replies without tool calls.
//
// Errors keep their structure all the way: a tool failure is an
// *askcore.Error ({"name","code","message"}) for wrapping code (errors.As
// works) and the same object, as the core wrote it, in the RoleTool
// message the model receives. Failures of the tool machinery itself (an
// unknown tool, a tool that failed without a structured error, a call
// skipped because the run was cancelled) are written by the core too (its
// fail op: name askcore.ToolErrorName, codes askcore.CodeUnknownTool,
// CodeToolFailed, CodeToolCancelled), so a Registry runs on an
// *askcore.Core.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askcore/askcore"
)

// Role of a Message, as in OpenAI-style chat APIs.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role       Role
	Content    string
	ToolCalls  []ToolCall // RoleAssistant
	ToolCallID string     // RoleTool: the call this message answers
	ToolName   string     // RoleTool: the tool that was called
	// IsError marks a RoleTool message whose Content is an error object
	// {"name","code","message"}.
	IsError bool
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID   string
	Name string
	// Arguments are the text the model wrote, unchanged: it may be invalid
	// JSON, so never embed it in JSON (the ask tool hands it to the core
	// as text).
	Arguments json.RawMessage
}

// Reply is one model turn.
type Reply struct {
	Content   string
	ToolCalls []ToolCall
}

// Model produces the next reply for a conversation, given the tools it may
// call.
type Model interface {
	Complete(ctx context.Context, messages []Message, tools []askcore.Tool) (Reply, error)
}

// ToolHandler runs one call of a tool on behalf of the agent from. It
// returns the tool result as JSON, or an error that reaches the model as
// {"name","code","message"} (an *askcore.Error keeps its code; any other
// error becomes the core's TOOL_FAILED).
type ToolHandler func(ctx context.Context, call ToolCall, from askcore.Identity) (json.RawMessage, error)

// Hooks let a front door report what happens as it happens. Any may be nil.
type Hooks struct {
	OnText       func(text string)
	OnToolCall   func(call ToolCall)
	OnToolResult func(call ToolCall, result json.RawMessage, err error)
}

// DefaultMaxSteps bounds model calls per Run when Agent.MaxSteps is 0.
const DefaultMaxSteps = 32

// ErrMaxSteps is returned (wrapped) by Run when the model kept calling tools
// for more than MaxSteps replies.
var ErrMaxSteps = errors.New("agent: too many model steps without a final reply")

// Registry holds the tools a model may call, in a stable order, and the
// core that writes the failures of the tool machinery.
type Registry struct {
	core     *askcore.Core
	tools    []askcore.Tool
	handlers map[string]ToolHandler
}

// NewRegistry returns an empty registry whose failures c's core writes
// (nil: the native core).
func NewRegistry(c *askcore.Core) *Registry {
	if c == nil {
		c = askcore.NewCore(nil)
	}
	return &Registry{core: c, handlers: map[string]ToolHandler{}}
}

// Add registers tool t, run by h. An empty or duplicate name, or a nil
// handler, is an error.
func (r *Registry) Add(t askcore.Tool, h ToolHandler) error {
	switch {
	case r == nil:
		return errors.New("agent: nil *Registry (use NewRegistry)")
	case t.Name == "":
		return errors.New("agent: a tool has no name")
	case h == nil:
		return fmt.Errorf("agent: tool %q has no handler", t.Name)
	case r.handlers[t.Name] != nil:
		return fmt.Errorf("agent: duplicate tool name %q", t.Name)
	}
	r.handlers[t.Name] = h
	r.tools = append(r.tools, t)
	return nil
}

// AddAsk registers the ask_user_question tool, as the service's core
// describes it, asking through svc (see AskHandler).
func (r *Registry) AddAsk(ctx context.Context, svc *askcore.Service, timeout time.Duration) error {
	t, err := svc.Core().Tool(ctx)
	if err != nil {
		return fmt.Errorf("agent: reading the ask_user_question tool from the core: %w", err)
	}
	return r.Add(t, AskHandler(svc, timeout))
}

// AskHandler runs ask_user_question calls through svc, on behalf of the
// calling agent, handing the model's arguments to the core as the text
// they are. The result is the answer object exactly as the core wrote it;
// the error is the service's *askcore.Error (INVALID_REQUEST,
// NO_PROVIDER, ASK_ABORTED, ASK_DECLINED, ...). A positive timeout ends
// each question with ASK_TIMEOUT; zero means never: nothing is ever
// chosen on a person's behalf.
func AskHandler(svc *askcore.Service, timeout time.Duration) ToolHandler {
	return func(ctx context.Context, call ToolCall, from askcore.Identity) (json.RawMessage, error) {
		a, err := svc.Ask(ctx, string(call.Arguments), askcore.AskOptions{From: from, Timeout: timeout})
		if err != nil {
			return nil, err
		}
		return a.JSON(), nil
	}
}

// Tools lists the tools as a model sees them, in the order added.
func (r *Registry) Tools() []askcore.Tool {
	if r == nil {
		return nil
	}
	return append([]askcore.Tool(nil), r.tools...)
}

// Core returns the core that writes the registry's failures.
func (r *Registry) Core() *askcore.Core {
	if r == nil {
		return askcore.NewCore(nil)
	}
	return r.core
}

// Execute runs call on behalf of from. Every failure is an *askcore.Error
// written by the core, so that the model and any wrapping code receive
// {name, code, message}; errors.As works.
//
// Arguments are passed to the tool as the model wrote them, even when they
// are not valid JSON: the ask tool lets the core say what is wrong
// (INVALID_REQUEST). An unknown tool is ToolError UNKNOWN_TOOL (naming the
// tools there are); a tool error that is not structured, or a panic, is
// ToolError TOOL_FAILED. A nil Registry has no tools.
func (r *Registry) Execute(ctx context.Context, call ToolCall, from askcore.Identity) (json.RawMessage, error) {
	var h ToolHandler
	if r != nil {
		h = r.handlers[call.Name]
	}
	if h == nil {
		return nil, r.Core().Fail(ctx, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: call.Name, Tools: r.names()})
	}
	res, err := runTool(ctx, h, call, from)
	if err != nil {
		var e *askcore.Error
		if errors.As(err, &e) && e != nil {
			return nil, e
		}
		return nil, r.Core().Fail(ctx, askcore.Failure{Situation: askcore.SituationToolFailed, Tool: call.Name, Detail: err.Error()})
	}
	return res, nil
}

// panicError is a recovered tool panic.
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprint(p.value) }

// runTool turns a tool's panic into an error: one broken tool must not take
// the loop down.
func runTool(ctx context.Context, h ToolHandler, call ToolCall, from askcore.Identity) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, panicError{p}
		}
	}()
	return h(ctx, call, from)
}

func (r *Registry) names() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name
	}
	return names
}

// Agent is one conversation with a model. Run it from one goroutine at a
// time.
type Agent struct {
	// ID identifies the agent to providers (askcore.Identity.AgentID).
	ID string
	// SessionID, when known, is passed along in askcore.Identity.
	SessionID string
	Model     Model
	Tools     *Registry
	Hooks     Hooks
	// System, when set, is the system prompt.
	System string
	// History is the conversation so far; Run appends to it.
	History []Message
	// MaxSteps bounds model calls per Run (0: a default of 32).
	MaxSteps int
}

// Run adds prompt as a user message and loops until the model replies
// without tool calls. Tool errors go back to the model and the loop goes on.
// When ctx is cancelled Run returns ctx's error (errors.Is(err,
// context.Canceled)); a model failure is returned as is.
//
// Details: the system prompt (System) is put first in History when History
// is empty. Each assistant reply is appended to History before its tool
// calls run, in order; each call gets exactly one RoleTool message (the
// result, or IsError and the error object), so History stays a valid
// conversation for the next Run even after a cancellation (calls that never
// ran get a ToolError TOOL_CANCELLED message). Hooks: OnText for each reply
// whose content is not blank, OnToolCall before a call runs, OnToolResult
// after. More than MaxSteps model calls end Run with ErrMaxSteps.
func (a *Agent) Run(ctx context.Context, prompt string) error {
	if a.Model == nil {
		return errors.New("agent: no model")
	}
	if err := ctx.Err(); err != nil {
		return ctxError(ctx)
	}
	if len(a.History) == 0 && a.System != "" {
		a.History = append(a.History, Message{Role: RoleSystem, Content: a.System})
	}
	a.History = append(a.History, Message{Role: RoleUser, Content: prompt})

	maxSteps := a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	specs := a.Tools.Tools()
	for step := 0; ; step++ {
		if step >= maxSteps {
			return fmt.Errorf("%w (%d)", ErrMaxSteps, maxSteps)
		}
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		reply, err := a.Model.Complete(ctx, a.History, specs)
		if err != nil {
			if ctx.Err() != nil {
				return ctxError(ctx)
			}
			return err
		}
		a.History = append(a.History, Message{Role: RoleAssistant, Content: reply.Content, ToolCalls: reply.ToolCalls})
		if strings.TrimSpace(reply.Content) != "" && a.Hooks.OnText != nil {
			a.Hooks.OnText(reply.Content)
		}
		if len(reply.ToolCalls) == 0 {
			return nil
		}
		for i, call := range reply.ToolCalls {
			if ctx.Err() != nil {
				a.skip(ctx, reply.ToolCalls[i:])
				return ctxError(ctx)
			}
			a.runCall(ctx, call)
			if ctx.Err() != nil {
				a.skip(ctx, reply.ToolCalls[i+1:])
				return ctxError(ctx)
			}
		}
	}
}

// runCall executes one call and appends its RoleTool message.
func (a *Agent) runCall(ctx context.Context, call ToolCall) {
	if a.Hooks.OnToolCall != nil {
		a.Hooks.OnToolCall(call)
	}
	res, err := a.Tools.Execute(ctx, call, askcore.Identity{AgentID: a.ID, SessionID: a.SessionID, ToolCallID: call.ID})
	msg := Message{Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name}
	if err != nil {
		msg.IsError = true
		msg.Content = string(askcore.ErrorJSON(err))
	} else {
		msg.Content = string(res)
	}
	a.History = append(a.History, msg)
	if a.Hooks.OnToolResult != nil {
		a.Hooks.OnToolResult(call, res, err)
	}
}

// skip records calls that never ran, so every tool call has its answer.
func (a *Agent) skip(ctx context.Context, calls []ToolCall) {
	for _, call := range calls {
		err := a.Tools.Core().Fail(ctx, askcore.Failure{Situation: askcore.SituationToolCancelled})
		a.History = append(a.History, Message{
			Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name,
			IsError: true, Content: string(err.JSON()),
		})
	}
}

// ctxError is ctx's error, keeping a custom cancellation cause in the chain.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
