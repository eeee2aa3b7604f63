package hostgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
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

// The core compiled to WebAssembly, run by wazero, answers an envelope with
// the same bytes as core.Handle natively. Go programs usually hand the
// Engine to askcore.NewCore rather than call Handle themselves.
func ExampleEngine_Handle() {
	ctx := context.Background()
	// New caches the compiled module on disk (under os.UserCacheDir()),
	// so the next process starts without compiling.
	engine, err := hostgo.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)

	input := envelope(`{"question":"Which database?","options":["PostgreSQL","SQLite"]}`)
	out, err := engine.Handle(ctx, input)
	if err != nil {
		log.Fatal(err) // a fault of the engine; a refused call is an ok:false envelope
	}
	fmt.Println(string(out))
	fmt.Println("same bytes as core.Handle:", bytes.Equal(out, core.Handle(input)))
	// Output:
	// {"ok":true,"result":{"question":"Which database?","options":[{"label":"PostgreSQL","value":"PostgreSQL"},{"label":"SQLite","value":"SQLite"}],"allowCustom":false}}
	// same bytes as core.Handle: true
}

// Warmup compiles the module ahead of time, so that New returns on compiled
// code instead of starting on the interpreter. Engines with the same options
// share that work.
func ExampleWarmup() {
	ctx := context.Background()
	if err := hostgo.Warmup(ctx); err != nil {
		log.Fatal(err)
	}

	engine, err := hostgo.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)
	fmt.Println("on the interpreter:", engine.Stats().Interpreter)
	// Output:
	// on the interpreter: false
}
