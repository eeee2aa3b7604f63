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
