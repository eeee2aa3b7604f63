package script_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/model/script"
)

// A two-line script played by an agent: the first line asks a question,
// the second uses the answer ({{answer}}) and ends the turn.
func ExampleParse() {
	model, err := script.Parse(strings.NewReader(`
{"tool_calls":[{"name":"ask_user_question","arguments":{"question":"Which database?","options":["PostgreSQL","SQLite"]}}]}
{"content":"Using {{answer}}."}
`))
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines("2"), nil // the person types 2
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	tools := agent.NewRegistry(svc.Core())
	if err := tools.AddAsk(ctx, svc, 0); err != nil {
		log.Fatal(err)
	}

	a := &agent.Agent{Model: model, Tools: tools, Hooks: agent.Hooks{OnText: func(text string) { fmt.Println(text) }}}
	if err := a.Run(ctx, "Set up a database."); err != nil {
		log.Fatal(err)
	}
	// Output:
	// asked: Which database?
	// Using SQLite.
}

// The built-in demo script, which runs offline, starts by asking two
// questions at once: its first reply, with the call as the core normalizes it.
func ExampleDemo() {
	ctx := context.Background()
	reply, err := script.Demo().Complete(ctx, []agent.Message{{Role: agent.RoleUser, Content: "Hi"}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Content)
	for _, toolCall := range reply.ToolCalls {
		call, err := askcore.NewCore(nil).Normalize(ctx, string(toolCall.Arguments))
		if err != nil {
			log.Fatal(err)
		}
		for _, q := range call.Questions {
			fmt.Printf("%s: %s (%d options)\n", q.Header, q.Question, len(q.Options))
		}
	}
	// Output:
	// Hi! I am the askcore demo agent. I run offline from a built-in script, so no model is needed. An agent that needs several answers asks for them together, so here are two questions at once.
	// Language: Which language should the new service be written in? (4 options)
	// Features: Which features should the first version have? (4 options)
}
