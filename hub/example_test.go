package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	hubserver "github.com/askcore/askcore/hub/server"
	hubstore "github.com/askcore/askcore/hub/store"
)

// An agent asks through a hub; the person replies in the inbox (here the
// server's Reply, which the inbox calls); the agent's core resolves it.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "hub-example-")
	defer os.RemoveAll(dir)
	store, _ := hubstore.Open(ctx, filepath.Join(dir, "hub.db"))
	defer store.Close()
	person, _ := store.AddPerson(ctx, "ada")
	token, hash := hubserver.NewToken(hubserver.AgentTokenPrefix)
	store.AddAgent(ctx, hubstore.NewAgent{PersonID: person.ID, Name: "ci", TokenHash: hash})
	srv, _ := hubserver.New(hubserver.Options{Store: store})
	web := httptest.NewServer(srv.Handler())
	defer web.Close()
	defer srv.Close()

	go func() { // the person, in the inbox
		wake, stop := store.Watch(hubstore.PersonKey(person.ID))
		defer stop()
		for asks, _ := store.Asks(ctx, hubstore.AskFilter{PersonID: person.ID}); len(asks) == 0; asks, _ = store.Asks(ctx, hubstore.AskFilter{PersonID: person.ID}) {
			<-wake
		}
		asks, _ := store.Asks(ctx, hubstore.AskFilter{PersonID: person.ID})
		srv.Reply(ctx, person.ID, asks[0].ID, json.RawMessage(`{"lines":["2"]}`), "phone")
	}()

	service := askcore.NewService(nil)
	dispose, _ := service.Register(hub.New(web.URL, token))
	defer dispose()
	answer, err := service.Ask(ctx, `{"question":"Deploy?","options":[{"label":"Staging"},{"label":"Production"}]}`,
		askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: "call_1"}})
	fmt.Println(string(answer.JSON()), err)
	// Output: {"answer":"Production","selected":{"index":1,"label":"Production","value":"Production"}} <nil>
}
