// Command pagebench is the answer page's side of hostjs/bench/page.mjs:
// one answerpage.Server that keeps serving the same URL while it asks
// questions in turn, as a front door that lives across questions does
// (askcore-stdio chat --web, askcore-mcp). A second `askcore-stdio ask
// --web` would be a new process with a new URL, so a page left open could
// not be reused.
//
//	go run ./internal/bench/page [-engine wasm|native]
//
// It starts the server at once (the "askcore: answer at URL" line on
// stderr, as every front door writes it), then reads stdin: each line is a
// request (the model-style arguments) asked through the page in the
// background; when its answer comes, the line "answered N JSON" (N counts
// from 1) goes to stdout, or "failed N ERROR". It exits when stdin ends.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

func main() {
	engine := flag.String("engine", frontdoor.EngineWasm, "where the askcore rules run: wasm or native")
	flag.Parse()
	ctx := context.Background()
	e, closeEngine, err := frontdoor.OpenEngine(ctx, *engine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagebench:", err)
		os.Exit(1)
	}
	defer closeEngine(ctx)
	core := askcore.NewCore(e)
	srv := answerpage.New(core,
		answerpage.WithLog(os.Stderr),
		answerpage.WithBrowser(false),
		answerpage.WithEnv(func(string) string { return "" }),
		answerpage.WithIdleStop(0))
	defer srv.Close()
	svc := askcore.NewService(core)
	dispose, err := svc.Register(srv.Provider())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagebench:", err)
		os.Exit(1)
	}
	defer dispose()
	if _, err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "pagebench:", err)
		os.Exit(1)
	}

	var mu sync.Mutex // one line at a time on stdout
	var wg sync.WaitGroup
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; in.Scan(); n++ {
		arguments := in.Text()
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := svc.Ask(ctx, arguments, askcore.AskOptions{From: askcore.Identity{AgentID: "pagebench"}})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fmt.Printf("failed %d %v\n", n, err)
				return
			}
			fmt.Printf("answered %d %s\n", n, res.JSON())
		}()
	}
	wg.Wait()
}
