// Package agent is the loop that makes a question part of a conversation:
// user prompt -> model -> tool calls -> tool results -> model, until the
// model replies without tool calls.
//
// API SKETCH: bodies marked TODO are filled in by issue 5.
package agent

import (
	"context"
	"encoding/json"

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
	ID        string
	Name      string
	Arguments json.RawMessage // as the model wrote them: may be invalid JSON
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
	ID        string
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

// Registry holds the tools a model may call, in a stable order.
type Registry struct {
	tools []Tool // TODO(issue 5)
}

// NewRegistry returns a registry of tools; duplicate names are an error.
func NewRegistry(tools ...Tool) (*Registry, error) {
	panic("TODO(issue 5)")
}

// Specs lists the tools as a model sees them.
func (r *Registry) Specs() []ToolSpec { panic("TODO(issue 5)") }

// Execute runs the tool called name. Every failure is a *core.HarnessError
// (an unknown tool, invalid arguments, a tool's own error) so that the model
// and any wrapping code receive {name, code, message}; errors.As works.
func (r *Registry) Execute(ctx context.Context, name string, call Call) (json.RawMessage, error) {
	panic("TODO(issue 5)")
}

// NewAskTool returns the ask_user_question tool: spec from the core's schema
// op, execution through svc.Ask, the core's answer object as the result.
func NewAskTool(svc *interaction.Service, spec ToolSpec) Tool { panic("TODO(issue 5)") }

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
func (a *Agent) Run(ctx context.Context, prompt string) error { panic("TODO(issue 5)") }
