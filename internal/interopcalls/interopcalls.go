// Package interopcalls holds the ask_user_question calls with previews and
// notes that the ACP and MCP tests put to the front doors:
// testdata/interop/preview-notes-calls.json, which the TypeScript interop
// suites read too, so that every suite asks the same calls.
package interopcalls

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// FieldOrder is the order of the properties of a form's requestedSchema
// as the core wrote them (each notes field after its question's fields):
// the order a client shows them in, which decoding into a map loses.
func FieldOrder(schema json.RawMessage) ([]string, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("properties is not an object: %v %v", tok, err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return names, nil
}
