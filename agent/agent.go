// Package agent is the loop that makes a question part of a conversation:
// user prompt -> model -> tool calls -> tool results -> model, until the
// model replies without tool calls.
//
// Errors keep their structure all the way: a tool failure is a
// *core.HarnessError ({"name","code","message"}) for wrapping code
// (errors.As works) and the same object, as the core wrote it, in the
// RoleTool message the model receives. Failures that are not the
// user-interaction rules' (an unknown tool, a tool that failed without a
// structured error, a call skipped because the run was cancelled) are
// written by the core too (its fail op: name core.ToolErrorName, codes
// core.CodeUnknownTool, core.CodeToolFailed, core.CodeToolCancelled), so
// the registry runs on an engine client.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
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

// ToolSpec is a tool as a model sees it.
type ToolSpec = engine.Tool

// Model produces the next reply for a conversation.
type Model interface {
	Complete(ctx context.Context, messages []Message, tools []ToolSpec) (Reply, error)
}

// Call is one tool invocation as a tool sees it.
type Call struct {
	ID string
	// Arguments are the model's text, unchanged (see ToolCall).
	Arguments json.RawMessage
	From      interaction.Identity
}

// Tool is something the model can call.
type Tool interface {
	Spec() ToolSpec
	// Execute returns the tool result as JSON, or an error that reaches the
	// model as {"name","code","message"} (a *core.HarnessError).
	Execute(ctx context.Context, call Call) (json.RawMessage, error)
}

// Hooks let a front door report what happens as it happens. Any may be nil.
type Hooks struct {
	OnText       func(text string)
	OnToolCall   func(call ToolCall)
	OnToolResult func(call ToolCall, result json.RawMessage, err error)
}

// AskToolName is the name of the ask_user_question tool, as the core's
// schema op names it.
const AskToolName = "ask_user_question"

// DefaultMaxSteps bounds model calls per Run when Agent.MaxSteps is 0.
const DefaultMaxSteps = 32

// ErrMaxSteps is returned (wrapped) by Run when the model kept calling tools
// for more than MaxSteps replies.
var ErrMaxSteps = errors.New("agent: too many model steps without a final reply")

// AsHarnessError returns err as the *core.HarnessError it is or wraps
// (every error Registry.Execute returns is one, written by the core). Any
// other error becomes the core's tool_failed situation, written by the
// native core as no engine is at hand here. nil stays nil.
func AsHarnessError(err error) *core.HarnessError {
	if err == nil {
		return nil
	}
	var he *core.HarnessError
	if errors.As(err, &he) && he != nil {
		return he
	}
	return core.Fail(core.Failure{Situation: core.SituationToolFailed, Detail: err.Error()})
}

// ErrorJSON is err as the model (and an ACP or MCP client) receives it:
// {"name","code","message"}, the core's own bytes (see AsHarnessError).
// nil stays nil.
func ErrorJSON(err error) json.RawMessage {
	if err == nil {
		return nil
	}
	return AsHarnessError(err).JSON()
}

// Registry holds the tools a model may call, in a stable order, and the
// engine client whose core writes the loop's own failures.
type Registry struct {
	client engine.Client
	tools  []Tool
	byName map[string]Tool
}

// NewRegistry returns a registry of tools in the order given; an empty or
// duplicate name is an error. client's core writes the failures of the
// tool machinery (an unknown tool, a tool that failed without a structured
// error, calls skipped after a cancellation).
func NewRegistry(client engine.Client, tools ...Tool) (*Registry, error) {
	if client.Core == nil {
		return nil, errors.New("agent: the registry needs an engine client")
	}
	r := &Registry{client: client, byName: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if t == nil {
			return nil, errors.New("agent: nil tool")
		}
		name := t.Spec().Name
		if name == "" {
			return nil, errors.New("agent: a tool has no name")
		}
		if _, dup := r.byName[name]; dup {
			return nil, fmt.Errorf("agent: duplicate tool name %q", name)
		}
		r.byName[name] = t
		r.tools = append(r.tools, t)
	}
	return r, nil
}

// Specs lists the tools as a model sees them.
func (r *Registry) Specs() []ToolSpec {
	if r == nil {
		return nil
	}
	specs := make([]ToolSpec, len(r.tools))
	for i, t := range r.tools {
		specs[i] = t.Spec()
	}
	return specs
}

// Execute runs the tool called name. Every failure is a *core.HarnessError
// written by the core, so that the model and any wrapping code receive
// {name, code, message}; errors.As works.
//
// Arguments are passed to the tool as the model wrote them, even when they
// are not valid JSON: the ask tool lets the core say what is wrong
// (INVALID_REQUEST). An unknown tool is ToolError UNKNOWN_TOOL (naming the
// tools there are); a tool error that is not structured, or a panic, is
// ToolError TOOL_FAILED. A nil Registry has no tools.
func (r *Registry) Execute(ctx context.Context, name string, call Call) (json.RawMessage, error) {
	var t Tool
	if r != nil {
		t = r.byName[name]
	}
	if t == nil {
		return nil, r.fail(ctx, core.Failure{Situation: core.SituationUnknownTool, Tool: name, Tools: r.names()})
	}
	res, err := runTool(ctx, t, call)
	if err != nil {
		var he *core.HarnessError
		if errors.As(err, &he) && he != nil {
			return nil, he
		}
		return nil, r.fail(ctx, core.Failure{Situation: core.SituationToolFailed, Tool: name, Detail: err.Error()})
	}
	return res, nil
}

// fail is the core's error for a failure of the tool machinery. A nil
// Registry has no engine: the native core writes it.
func (r *Registry) fail(ctx context.Context, f core.Failure) *core.HarnessError {
	if r == nil {
		return core.Fail(f)
	}
	return r.client.Fail(ctx, f)
}

// panicError is a recovered tool panic.
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprint(p.value) }

// runTool turns a tool's panic into an error: one broken tool must not take
// the loop down.
func runTool(ctx context.Context, t Tool, call Call) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, panicError{p}
		}
	}()
	return t.Execute(ctx, call)
}

func (r *Registry) names() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Spec().Name
	}
	return names
}

// AskTool is the ask_user_question tool. NewAskTool builds one; a front door
// that wants an opt-in per-question timeout may build it directly.
type AskTool struct {
	// Service asks the person (required).
	Service *interaction.Service
	// ToolSpec is the core's schema op result (engine.Client.Schema).
	ToolSpec ToolSpec
	// Timeout, when positive, ends each question with ASK_TIMEOUT. Off by
	// default: nothing is ever chosen on a person's behalf.
	Timeout time.Duration
}

// NewAskTool returns the ask_user_question tool: spec from the core's schema
// op, execution through svc.Ask, the core's answer object as the result.
func NewAskTool(svc *interaction.Service, spec ToolSpec) Tool {
	return &AskTool{Service: svc, ToolSpec: spec}
}

// Spec returns the core's tool description.
func (t *AskTool) Spec() ToolSpec { return t.ToolSpec }

// Execute asks through the service, on behalf of call.From, passing the
// model's arguments to the core as the text they are. The result is the
// answer object exactly as the core wrote it; the error is the service's
// *core.HarnessError (INVALID_REQUEST, NO_PROVIDER, ASK_ABORTED,
// ASK_DECLINED, ...).
func (t *AskTool) Execute(ctx context.Context, call Call) (json.RawMessage, error) {
	res, err := t.Service.Ask(ctx, string(call.Arguments), interaction.AskOptions{From: call.From, Timeout: t.Timeout})
	if err != nil {
		return nil, err
	}
	return res.Raw, nil
}

// Agent is one conversation with a model. Run it from one goroutine at a
// time.
type Agent struct {
	// ID identifies the agent to providers (interaction.Identity.AgentID).
	ID string
	// SessionID, when known, is passed along in interaction.Identity.
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
	specs := a.Tools.Specs()
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
	res, err := a.Tools.Execute(ctx, call.Name, Call{
		ID:        call.ID,
		Arguments: call.Arguments,
		From:      interaction.Identity{AgentID: a.ID, SessionID: a.SessionID, ToolCallID: call.ID},
	})
	msg := Message{Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name}
	if err != nil {
		msg.IsError = true
		msg.Content = string(ErrorJSON(err))
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
		err := a.Tools.fail(ctx, core.Failure{Situation: core.SituationToolCancelled})
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
