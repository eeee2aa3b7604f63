package core_test

import (
	"errors"
	"fmt"

	"github.com/askcore/askcore/core"
)

func ExampleHandle() {
	out := core.Handle([]byte(`{"op":"resolve","request":{"question":"Deploy now?","options":[{"label":"Yes"},{"label":"No","recommended":true}]},"input":"yes"}`))
	fmt.Println(string(out))
	// Output:
	// {"ok":true,"result":{"answer":"Yes","selected":{"index":0,"label":"Yes","value":"Yes"}}}
}

func ExampleHandle_error() {
	out := core.Handle([]byte(`{"op":"normalize","request":{"question":"Pick","options":[{"label":"A"},{"label":" a "}]}}`))
	fmt.Println(string(out))
	// Output:
	// {"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"options[0] and options[1] have the same label \"a\" (labels are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct label"}}
}

func ExampleNormalize() {
	r, err := core.Normalize(core.Request{
		Header:   " Database ",
		Question: "Which database should I use?",
		Options: []core.Option{
			{Label: "PostgreSQL", Value: "postgres"},
			{Label: "SQLite", Recommended: true},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(r.JSON()))
	// Output:
	// {"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"SQLite","recommended":true}],"allowCustom":false}
}

func ExamplePresent() {
	p, _ := core.Present(core.Request{
		Question: "Which database should I use?",
		Options: []core.Option{
			{Label: "PostgreSQL", Description: "Reliable; needs a server."},
			{Label: "SQLite", Description: "A single file.", Recommended: true},
		},
		AllowCustom: true,
	})
	fmt.Println(p.Text)
	fmt.Println(p.Order)
	// Output:
	// Which database should I use?
	//
	//   1. SQLite (recommended)
	//      A single file.
	//   2. PostgreSQL
	//      Reliable; needs a server.
	//
	// Type a number (1-2) or a label, or type your own answer. Enter picks 1 (SQLite).
	// [1 0]
}

func ExampleResolve() {
	r := core.Request{Question: "Deploy now?", Options: []core.Option{{Label: "Yes"}, {Label: "No"}}}
	for _, line := range []string{"2", " YES ", "", "maybe"} {
		a, err := core.Resolve(r, line)
		var he *core.HarnessError
		if errors.As(err, &he) {
			fmt.Printf("%q -> %s: %s\n", line, he.Code, he.Message)
			continue
		}
		fmt.Printf("%q -> %s\n", line, a.JSON())
	}
	// Output:
	// "2" -> {"answer":"No","selected":{"index":1,"label":"No","value":"No"}}
	// " YES " -> {"answer":"Yes","selected":{"index":0,"label":"Yes","value":"Yes"}}
	// "" -> INVALID_ANSWER: Please choose an option. Type the number of an option (1-2) or its label.
	// "maybe" -> INVALID_ANSWER: "maybe" is not one of the options. Type the number of an option (1-2) or its label.
}

func ExampleElicitation() {
	f, _ := core.Elicitation(core.Request{
		Header:   "Database",
		Question: "Which database should I use?",
		Options:  []core.Option{{Label: "PostgreSQL", Value: "postgres"}, {Label: "SQLite", Value: "sqlite", Recommended: true}},
	})
	fmt.Println(string(f.JSON()))
	// Output:
	// {"message":"Which database should I use?","requestedSchema":{"type":"object","title":"Database","properties":{"choice":{"type":"string","title":"Choose an option","oneOf":[{"const":"sqlite","title":"SQLite"},{"const":"postgres","title":"PostgreSQL"}],"default":"sqlite"}},"required":["choice"]}}
}

func ExampleElicitationResult() {
	r := core.Request{Question: "Which database?", Options: []core.Option{{Label: "PostgreSQL", Value: "postgres"}, {Label: "SQLite", Value: "sqlite"}}}
	a, _ := core.ElicitationResult(r, core.ElicitationResponse{Action: "accept", Content: map[string]any{"choice": "sqlite"}})
	fmt.Println(string(a.JSON()))
	_, err := core.ElicitationResult(r, core.ElicitationResponse{Action: "decline"})
	fmt.Println(err.(*core.HarnessError).Code)
	// Output:
	// {"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}
	// ASK_DECLINED
}
