// Package interopcalls holds the ask_user_question calls with previews and
// notes that the ACP and MCP tests put to the front doors:
// testdata/interop/preview-notes-calls.json, which the TypeScript interop
// suites read too, so that every suite asks the same calls.
package interopcalls

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
)

// Args returns the arguments text of the single-question call, the
// multi-select call and the batch, compact JSON as a model writes it.
func Args() (single, multi, batch string) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "interop", "preview-notes-calls.json"))
	if err != nil {
		panic(err)
	}
	var calls struct{ Single, Multi, Batch json.RawMessage }
	if err := json.Unmarshal(b, &calls); err != nil {
		panic(err)
	}
	compact := func(raw json.RawMessage) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			panic(err)
		}
		return buf.String()
	}
	return compact(calls.Single), compact(calls.Multi), compact(calls.Batch)
}
