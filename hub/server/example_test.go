package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

// Run serves a whole hub (the agent API, /mcp, the inbox, the expiry
// clock and the notifier) until its context ends. Ready reports where it
// listens: here a free loopback port. An agent then asks over the API.
func ExampleRun() {
	ctx, stop := context.WithCancel(context.Background())
	dir, _ := os.MkdirTemp("", "hub-server-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "hub.db"))
	defer st.Close()
	person, _ := st.AddPerson(ctx, "ada")
	token, hash := server.NewToken(server.AgentTokenPrefix)
	st.AddAgent(ctx, store.NewAgent{PersonID: person.ID, Name: "ci", TokenHash: hash})

	listening := make(chan string, 1)
	stopped := make(chan error, 1)
	go func() {
		stopped <- server.Run(ctx, server.Config{
			Options: server.Options{Store: st},
			Addr:    "127.0.0.1:0",
			Ready:   func(_ *server.Server, url string) { listening <- url },
		})
	}()
	url := <-listening

	req, _ := http.NewRequest("POST", url+"/v1/asks", strings.NewReader(
		`{"arguments":"{\"question\":\"Deploy?\",\"options\":[{\"label\":\"Staging\"},{\"label\":\"Production\"}]}","toolCallId":"call_1"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, _ := http.DefaultClient.Do(req)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	asks, _ := st.Asks(ctx, store.AskFilter{PersonID: person.ID})
	fmt.Println(len(asks), asks[0].State)

	stop()
	fmt.Println(<-stopped) // a clean stop
	// Output:
	// 201 Created
	// 1 pending
	// <nil>
}
