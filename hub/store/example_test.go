package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/askcore/askcore/hub/store"
)

// A store holds the hub's people, agents and asks. An ask leaves pending
// once: the first reply wins, and a later one reads the winner's outcome.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "hub-store-example-")
	defer os.RemoveAll(dir)
	// A file path is SQLite; a postgres:// URL is PostgreSQL.
	st, err := store.Open(ctx, filepath.Join(dir, "hub.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	person, _ := st.AddPerson(ctx, "ada")
	agent, _ := st.AddAgent(ctx, store.NewAgent{PersonID: person.ID, Name: "ci", TokenHash: "0123abcd"})
	ask, created, _ := st.CreateAsk(ctx, store.NewAsk{AgentID: agent.ID, ToolCallID: "call_1",
		Arguments: `{"question":"Deploy?"}`, Call: json.RawMessage(`{"question":"Deploy?"}`), Who: agent.Name, At: time.Now()})
	fmt.Println(created, ask.State)

	first, won, _ := st.Reply(ctx, store.Transition{AskID: ask.ID, Who: "ada", Where: "phone", At: time.Now(), Reply: json.RawMessage(`{"lines":["yes"]}`)})
	fmt.Println(won, first.State, string(first.Reply), first.RepliedWhere)
	late, won, _ := st.Reply(ctx, store.Transition{AskID: ask.ID, Who: "ada", Where: "laptop", At: time.Now(), Reply: json.RawMessage(`{"lines":["no"]}`)})
	fmt.Println(won, late.State, string(late.Reply), late.RepliedWhere)
	// Output:
	// true pending
	// true replied {"lines":["yes"]} phone
	// false replied {"lines":["yes"]} phone
}
