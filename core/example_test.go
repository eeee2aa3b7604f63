package core_test

import (
	"encoding/json"
	"fmt"

	"github.com/askcore/askcore/core"
)

// envelope is op "normalize" on a model's tool arguments, as the text
// the model wrote.
func envelope(arguments string) []byte {
	b, err := json.Marshal(struct {
		Op        string `json:"op"`
		Arguments string `json:"arguments"`
	}{"normalize", arguments})
	if err != nil {
		panic(err)
	}
	return b
}

// One JSON envelope in, one out. Op "normalize" parses the model's
// arguments and returns the call as every host puts it to a person: here
// each option's value defaults to its label.
func ExampleHandle() {
	out := core.Handle(envelope(`{"question":"Which database?","options":["PostgreSQL","SQLite"]}`))
	fmt.Println(string(out))
	// Output:
	// {"ok":true,"result":{"question":"Which database?","options":[{"label":"PostgreSQL","value":"PostgreSQL"},{"label":"SQLite","value":"SQLite"}],"allowCustom":false}}
}

// A call the rules refuse is an ok:false envelope, never a panic or a Go
// error: the core's INVALID_REQUEST, whose message tells the model what to
// change.
func ExampleHandle_invalidRequest() {
	out := core.Handle(envelope(`{"question":"Which database?","options":["SQLite","sqlite"]}`))
	fmt.Println(string(out))
	// Output:
	// {"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"options[0] and options[1] have the same label \"sqlite\" (labels are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct label"}}
}

// Arguments that are not valid JSON are refused with the offset inside
// them, the same on every host.
func ExampleHandle_invalidJSON() {
	out := core.Handle(envelope(`{"question":"Which database?"`))
	fmt.Println(string(out))
	// Output:
	// {"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the arguments are not valid JSON (unexpected end of input in an object at byte 29 of 29): send exactly one JSON object like {\"question\":\"...\",\"options\":[{\"label\":\"...\"}]}"}}
}
