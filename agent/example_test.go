package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
)

// fakeModel stands in for a real model (package model/openai is one): it
// asks which database to use, then replies with the tool result it received.
type fakeModel struct{}

func (fakeModel) Complete(_ context.Context, messages []agent.Message, _ []askcore.Tool) (agent.Reply, error) {
	last := messages[len(messages)-1]
	if last.Role != agent.RoleTool {
		return agent.Reply{ToolCalls: []agent.ToolCall{{
			ID:        "call_1",
			Name:      askcore.ToolName,
			Arguments: json.RawMessage(`{"question":"Which database?","options":["PostgreSQL","SQLite"]}`),
		}}}, nil
	}
	return agent.Reply{Content: "The tool said: " + last.Content}, nil
}

// One run of the loop: the model calls ask_user_question, the service puts
// the question to a person (here a provider that types 2), and the core's
// answer goes back to the model, which replies.
func ExampleAgent_Run() {
	ctx := context.Background()
	svc := askcore.NewService(nil) // the rules, natively
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines("2"), nil
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	tools := agent.NewRegistry(svc.Core())
	if err := tools.AddAsk(ctx, svc, 0); err != nil { // 0: no timeout
		log.Fatal(err)
	}
	a := &agent.Agent{
		ID:    "main",
		Model: fakeModel{},
		Tools: tools,
		Hooks: agent.Hooks{OnText: func(text string) { fmt.Println(text) }},
	}
	if err := a.Run(ctx, "Set up a database for the app."); err != nil {
		log.Fatal(err)
	}
	// Output:
	// asked: Which database?
	// The tool said: {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}
}

// A failed tool call reaches the model as the core's error object, and
// wrapping code gets the same error as an *askcore.Error: here arguments
// that are not valid JSON, and a tool that does not exist.
func ExampleRegistry_Execute() {
	ctx := context.Background()
	svc := askcore.NewService(nil)
	tools := agent.NewRegistry(svc.Core())
	if err := tools.AddAsk(ctx, svc, 0); err != nil {
		log.Fatal(err)
	}

	for _, call := range []agent.ToolCall{
		{ID: "call_1", Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":`)},
		{ID: "call_2", Name: "read_file", Arguments: json.RawMessage(`{}`)},
	} {
		_, err := tools.Execute(ctx, call, askcore.Identity{AgentID: "main"})
		var e *askcore.Error
		if errors.As(err, &e) {
			fmt.Println(e.Code)
			fmt.Println(string(e.JSON())) // what the model receives
		}
	}
	// Output:
	// INVALID_REQUEST
	// {"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the arguments are not valid JSON (unexpected end of input at byte 12 of 12): send exactly one JSON object like {\"question\":\"...\",\"options\":[{\"label\":\"...\"}]}"}
	// UNKNOWN_TOOL
	// {"name":"ToolError","code":"UNKNOWN_TOOL","message":"there is no tool called \"read_file\"; available tools: ask_user_question"}
}
