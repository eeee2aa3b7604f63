package core

import (
	"strings"
	"sync"
	"testing"

	"github.com/askcore/askcore/internal/bench/benchdata"
)

// TestHandleReusesItsParserSafely: calls that share the kept JSON parser
// (one after another, and from several goroutines at once, which -race
// checks) answer exactly as each answered alone, whatever the call before
// was: a two-parse call (arguments), a parse error, an input whose buffers
// are too large to keep.
func TestHandleReusesItsParserSafely(t *testing.T) {
	big := `{"op":"normalize","request":{"question":"Q?","options":[{"label":"A"}],"x":[` +
		strings.Repeat(`{"a":[1,"é"]},`, 2000) + `{}]}}`
	inputs := []string{
		benchdata.Request,
		env("normalize", benchdata.Request),
		env("elicitation", benchdata.Request),
		resolveEnv(benchdata.Request, "2"),
		`{"op":"normalize","arguments":"{\"question\":\"Which?\",\"options\":[{\"label\":\"x\"},{\"label\":\"y\"}]}"}`,
		`{"op":"normalize","request":{"question":"Q?","options":[{"label":"A"},`,
		big,
		`{"op":"summary","request":{"question":"Q?"},"answer":{"answer":"yes"}}`,
	}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		spare.Store(nil) // a fresh parser: the call as if alone
		want[i] = string(Handle([]byte(in)))
	}
	for round := 0; round < 2; round++ {
		for i, in := range inputs {
			if got := string(Handle([]byte(in))); got != want[i] {
				t.Fatalf("input %d after input %d: %s, alone %s", i, (i+len(inputs)-1)%len(inputs), got, want[i])
			}
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				i := (g + n) % len(inputs)
				if got := string(Handle([]byte(inputs[i]))); got != want[i] {
					t.Errorf("input %d on goroutine %d: %s, alone %s", i, g, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
