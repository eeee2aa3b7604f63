package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// webFlags are the flags for answering in a browser: --web, a switch
// here, and the answer page's own flags (frontdoor.Web).
type webFlags struct {
	on   bool
	page frontdoor.Web
}

func (w *webFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&w.on, "web", false, "ask on a local web page instead of the terminal (the URL is printed on stderr as \"askcore: answer at URL\")")
	w.page.AddPageFlags(fs)
}

// check reports a web flag given without --web.
func (w *webFlags) check(fs *flag.FlagSet) string {
	if w.on {
		return ""
	}
	bad := ""
	fs.Visit(func(f *flag.Flag) {
		if bad == "" && (f.Name == "no-browser" || f.Name == "web-addr") {
			bad = "--" + f.Name + " goes with --web"
		}
	})
	return bad
}

// askWeb asks through the answer page: the request was read and found
// valid; the core's answer (or error) is written as ask writes it.
func askWeb(ctx context.Context, s sys, client *askcore.Core, arguments string, web webFlags, timeout time.Duration) int {
	srv := answerpage.New(client, append(web.page.PageOptions(s.stderr, s.getenv), answerpage.WithIdleStop(0))...)
	defer srv.Close()
	// The server starts with the question (a listen failure is the
	// provider's, quoted by the core): the URL is printed once the
	// question is on the page.
	svc := askcore.NewService(client)
	dispose, err := svc.Register(srv.Provider())
	if err != nil {
		return askFail(ctx, s, client, err)
	}
	defer dispose()
	res, err := svc.Ask(ctx, arguments, askcore.AskOptions{
		From:    askcore.Identity{AgentID: "askcore-stdio-ask"},
		Timeout: timeout,
	})
	// The page hears how the question ended (answered, timed out,
	// aborted) before the server stops.
	srv.Close()
	if err != nil {
		return askFail(ctx, s, client, err)
	}
	fmt.Fprintf(s.stdout, "%s\n", res.JSON())
	return askExitOK
}
