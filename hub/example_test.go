package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

// An agent asks through a hub; the person replies in the inbox (here the
// server's Reply, which the inbox calls); the agent's core resolves it.
// The hub is served by server.Run, as askcore-hub serve serves it, on a
// free loopback port.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	dir, _ := os.MkdirTemp("", "hub-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "hub.db"))
	defer st.Close()
	person, _ := st.AddPerson(ctx, "ada")
	token, hash := server.NewToken(server.AgentTokenPrefix)
	st.AddAgent(ctx, store.NewAgent{PersonID: person.ID, Name: "ci", TokenHash: hash})

	type serving struct {
		srv *server.Server
		url string
	}
	ready := make(chan serving, 1)
	stopped := make(chan error, 1)
	go func() {
		stopped <- server.Run(ctx, server.Config{
			Options: server.Options{Store: st},
			Addr:    "127.0.0.1:0",
			Ready:   func(srv *server.Server, url string) { ready <- serving{srv, url} },
		})
	}()
	hubAt := <-ready
	defer func() { stop(); <-stopped }() // the hub stops before the store closes

	go func() { // the person, in the inbox
		wake, unwatch := st.Watch(store.PersonKey(person.ID))
		defer unwatch()
		asks, _ := st.Asks(ctx, store.AskFilter{PersonID: person.ID})
		for ; len(asks) == 0; asks, _ = st.Asks(ctx, store.AskFilter{PersonID: person.ID}) {
			<-wake
		}
		hubAt.srv.Reply(ctx, person.ID, asks[0].ID, json.RawMessage(`{"lines":["2"]}`), "phone")
	}()

	service := askcore.NewService(nil)
	dispose, _ := service.Register(hub.New(hubAt.url, token))
	defer dispose()
	answer, err := service.Ask(ctx, `{"question":"Deploy?","options":[{"label":"Staging"},{"label":"Production"}]}`,
		askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: "call_1"}})
	fmt.Println(string(answer.JSON()), err)
	// Output: {"answer":"Production","selected":{"index":1,"label":"Production","value":"Production"}} <nil>
}
