package askcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/askcore/askcore"
)

// Two surfaces at once: a form whose client cannot show it (codex exec
// declines in 2 ms) drops out, and the terminal's reply wins.
func ExampleFirstReply() {
	form := askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		step, err := call.JudgeForm(ctx, askcore.FormRound{
			Target:   askcore.ForMCP,
			Response: json.RawMessage(`{"action":"decline"}`),
			Delivery: &askcore.Delivery{Elapsed: 2 * time.Millisecond, Client: "codex-mcp-client", Trigger: "exec"},
		})
		if err != nil {
			return askcore.Reply{}, err
		}
		return askcore.Reply{}, step.Err // next_surface: not shown, this surface drops out
	})
	terminal := askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines("2"), nil
	})
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.FirstReply(
		askcore.Surface{Name: "the form", Provider: form},
		askcore.Surface{Name: "the terminal", Provider: terminal},
	))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	a, err := svc.Ask(context.Background(), `{"question":"Which database?","options":["Postgres","SQLite"]}`, askcore.AskOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(a.JSON()))
	// Output: {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}
}

// A front door's form loop: the core says what to do with each reply.
func ExampleCall_JudgeForm() {
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, `{"question":"Which database?","options":["Postgres","SQLite"]}`)
	if err != nil {
		log.Fatal(err)
	}
	replies := []string{`{"action":"accept","content":{}}`, `{"action":"accept","content":{"choice":"SQLite"}}`}
	round := 0
	for _, reply := range replies {
		step, err := call.JudgeForm(ctx, askcore.FormRound{Response: json.RawMessage(reply), Round: round})
		if err != nil {
			log.Fatal(err)
		}
		switch step.Next {
		case askcore.FormAskAgain:
			fmt.Printf("ask again (%d left): %.60s…\n", step.RoundsLeft, step.Form.Message)
			round = step.Round
		case askcore.FormAnswer:
			fmt.Println(string(step.Answer.JSON()))
		default:
			fmt.Println(step.Err)
		}
	}
	// Output:
	// ask again (2 left): The form was accepted without a choice. Please choose an opt…
	// {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}
}
