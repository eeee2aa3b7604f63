package termui

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
)

// coreCall runs one envelope through the native core and returns its
// result (or fails the test on an error envelope).
func coreCall(t *testing.T, env map[string]any) json.RawMessage {
	t.Helper()
	in, err := json.Marshal(env)
	require.NoError(t, err)
	var out struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	require.NoError(t, json.Unmarshal(core.Handle(in), &out))
	require.True(t, out.OK, "%s", out.Error)
	return out.Result
}

// The picker against the real core: the core's picker op result decodes
// and draws, each Enter is checked by the core's resolve op, and the picks
// (as askcore.Pick marshals them) resolve the whole batch.
func TestPickerWithCore(t *testing.T) {
	noLeaks(t)
	request := json.RawMessage(`{"questions":[
		{"header":"DB","question":"Which database?","options":[{"label":"SQLite"},{"label":"PostgreSQL","value":"pg","recommended":true,"description":"Scales."}]},
		{"question":"Extras?","multiSelect":true,"allowCustom":true,"options":[{"label":"Auth","recommended":true},{"label":"Cache"}]},
		{"question":"Name?"}]}`)
	layout, err := DecodeLayout(coreCall(t, map[string]any{"op": "picker", "request": request}))
	require.NoError(t, err)

	f := newFakeTerm(t, 80, 24)
	rejected := make(chan string, 4)
	check := func(_ context.Context, q int, pk askcore.Pick) error {
		in, _ := json.Marshal(map[string]any{"op": "resolve", "request": request, "index": q, "input": pk})
		var out struct {
			OK    bool           `json:"ok"`
			Error *askcore.Error `json:"error"`
		}
		require.NoError(t, json.Unmarshal(core.Handle(in), &out))
		if !out.OK {
			rejected <- out.Error.Message
			return out.Error
		}
		return nil
	}
	p, err := NewPicker(f.term, layout)
	require.NoError(t, err)
	ch := make(chan runResult, 1)
	go func() {
		picks, err := p.Run(context.Background(), check)
		ch <- runResult{picks, err}
	}()
	f.screen.waitFor(t, "Question 1 of 3", "❯ 1. PostgreSQL", "recommended")
	f.keys.typ("\r")                                               // PostgreSQL
	f.keys.typ(" ")                                                // Auth off: nothing chosen
	f.keys.typ("\r")                                               // rejected by the core
	f.screen.waitFor(t, "Question 2 of 3", firstWords(<-rejected)) // the core's message, under the question
	f.keys.typ("\x1b[B \x1b[Bmine\r")                              // Cache, and own text
	f.keys.typ("\r")                                               // Name? empty: rejected
	f.screen.waitFor(t, "Question 3 of 3", firstWords(<-rejected))
	f.keys.typ("Ada\r")
	r := wait(t, ch)
	require.NoError(t, r.err)

	b, err := json.Marshal(r.picks)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"options":[1],"text":""},{"options":[1],"text":"mine"},{"options":[],"text":"Ada"}]`, string(b))
	answer := coreCall(t, map[string]any{"op": "resolve", "request": request, "inputs": r.picks})
	assert.JSONEq(t, `{"answers":[
		{"question":"Which database?","answer":"pg","selected":{"index":1,"label":"PostgreSQL","value":"pg"}},
		{"question":"Extras?","answers":["Cache","mine"],"selected":[{"index":1,"label":"Cache","value":"Cache"}]},
		{"question":"Name?","answer":"Ada"}]}`, string(answer))
	summary := coreCall(t, map[string]any{"op": "summary", "request": request, "answer": answer})
	var s struct{ Text string }
	require.NoError(t, json.Unmarshal(summary, &s))
	p.Done(s.Text)
	assert.Contains(t, f.screen.String(), s.Text)
}

// firstWords is the start of a message, which fits on the first line of
// the frame however it wraps.
func firstWords(s string) string { return s[:min(len(s), 20)] }
