package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/mcpserver"
)

// A server whose questions a provider of your own answers (here: the
// person typed 2), called by an MCP client in the same process.
func Example() {
	ctx := context.Background()
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines("2"), nil
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	srv, err := mcpserver.New(svc, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverEnd)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_user_question",
		Arguments: json.RawMessage(`{"question":"Which database?","options":["PostgreSQL","SQLite"]}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, res.IsError)
	_ = cs.Close()
	_ = ss.Wait()
	// Output:
	// asked: Which database?
	// {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}} false
}

// askcore-mcp in a few lines: the MCP client's own forms reach the person
// (or the local answer page, where the client shows none), over stdio.
func ExampleServer_Serve() {
	svc := askcore.NewService(nil)
	srv, err := mcpserver.New(svc, &mcpserver.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	dispose, err := svc.Register(srv.Provider())
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	if err := srv.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
