package termui_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/termui"
)

// The terminal provider on a pipe: in line mode it prints the core's text
// for the question, reads a line (here the person types 2), echoes the
// core's summary of it, and the model receives the core's answer.
func ExampleOpen() {
	ctx := context.Background()
	svc := askcore.NewService(nil)
	// termui.Open(ctx, svc.Core()) reads stdin and writes stderr; here
	// neither is a terminal, so the core's terminal op chooses the line mode.
	var screen strings.Builder
	prov, err := termui.Open(ctx, svc.Core(),
		termui.WithInput(strings.NewReader("2\n")),
		termui.WithOutput(&screen))
	if err != nil {
		log.Fatal(err)
	}
	defer prov.Close()
	dispose, err := svc.Register(prov)
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	arguments := `{"question":"Which database?","options":[{"label":"PostgreSQL","description":"Managed, on port 5432.","recommended":true},{"label":"SQLite"}]}`
	answer, err := svc.Ask(ctx, arguments, askcore.AskOptions{})
	result, _ := askcore.ToolResult(answer, err)
	printScreen(screen.String())
	fmt.Println(string(result))
	// Output:
	// ? ──────────────────────────────────────────────
	// Which database?
	//
	//   1. PostgreSQL (recommended)
	//      Managed, on port 5432.
	//   2. SQLite
	//
	// Type a number (1-2) or a label. Enter picks 1 (PostgreSQL).
	// ?
	// → SQLite
	// {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}
}

// A line that fits no option gets the core's message and the question
// again; an empty line picks the recommended option.
func ExampleOpen_reprompt() {
	ctx := context.Background()
	svc := askcore.NewService(nil)
	var screen strings.Builder
	prov, err := termui.Open(ctx, svc.Core(),
		termui.WithInput(strings.NewReader("MySQL\n\n")),
		termui.WithOutput(&screen))
	if err != nil {
		log.Fatal(err)
	}
	defer prov.Close()
	dispose, err := svc.Register(prov)
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	answer, err := svc.Ask(ctx, `{"question":"Which database?","options":[{"label":"PostgreSQL","recommended":true},"SQLite"]}`, askcore.AskOptions{})
	result, _ := askcore.ToolResult(answer, err)
	printScreen(screen.String())
	fmt.Println(string(result))
	// Output:
	// ? ──────────────────────────────────────────────
	// Which database?
	//
	//   1. PostgreSQL (recommended)
	//   2. SQLite
	//
	// Type a number (1-2) or a label. Enter picks 1 (PostgreSQL).
	// ?
	// "MySQL" is not one of the options. Type the number of an option (1-2) or its label.
	// ?
	// → PostgreSQL
	// {"answer":"PostgreSQL","selected":{"index":0,"label":"PostgreSQL","value":"PostgreSQL"}}
}

// printScreen prints what the provider showed, without the space after
// each "? " prompt (an Output comment cannot hold a line's trailing space).
func printScreen(s string) {
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
}
