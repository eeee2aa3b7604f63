// Command embedder is the smallest program that embeds askcore the way the
// README's Go quick start shows: the root package alone, the native engine, a provider of
// its own. TestEmbedderLinksNoWazero builds it to check what it links and
// how big it is.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/askcore/askcore"
)

func main() {
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines(make([]string, len(call.Questions))...), nil // Enter: the recommended option
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer dispose()
	answer, err := svc.Ask(context.Background(), `{"question":"Ship it?","options":[{"label":"Yes","recommended":true},{"label":"No"}]}`, askcore.AskOptions{})
	result, _ := askcore.ToolResult(answer, err)
	fmt.Println(string(result))
}
