package frontdoor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
)

// A front door in a few lines: Build wires the engine, the seam, the ask
// tool and the model (here the built-in demo, offline); the front door
// registers its provider (here one that types a line per question: Enter
// for the recommended choices, with notes for the layout) and runs an
// agent.
func ExampleBuild() {
	ctx := context.Background()
	rt, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: frontdoor.EngineNative}, func(string) string { return "" })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)

	dispose, err := rt.Service.Register(askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
		lines := make([]string, len(call.Questions))
		for i, q := range call.Questions {
			if q.Header == "Layout" {
				lines[i] = "// keep shared code apart"
			}
		}
		return askcore.Lines(lines...), nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()

	a := rt.NewAgent("main", "", agent.Hooks{
		OnToolResult: func(_ agent.ToolCall, result json.RawMessage, err error) {
			if err != nil {
				fmt.Println("error:", string(askcore.ErrorJSON(err)))
				return
			}
			fmt.Println("answer:", string(result))
		},
	})
	if err := a.Run(ctx, "hello"); err != nil {
		fmt.Println(err)
		return
	}
	last := a.History[len(a.History)-1]
	fmt.Println(strings.HasPrefix(last.Content, `Noted: by-feature. Your notes: "keep shared code apart".`))
	// Output:
	// answer: {"answers":[{"question":"Which language should the new service be written in?","answer":"go","selected":{"index":0,"label":"Go","value":"go"}},{"question":"Which features should the first version have?","answers":["http","metrics"],"selected":[{"index":0,"label":"HTTP API","value":"http"},{"index":1,"label":"Metrics","value":"metrics"}]}]}
	// answer: {"answer":"by-feature","selected":{"index":0,"label":"By feature","value":"by-feature"},"notes":"keep shared code apart"}
	// true
}
