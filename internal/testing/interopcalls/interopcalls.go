// Package interopcalls holds the ask_user_question calls with previews and
// notes that the ACP and MCP tests put to the front doors, and the
// person's reply to each with what the core makes of it:
// testdata/interop/preview-notes-calls.json, which the TypeScript interop
// suites read too, so that every suite asks and answers the same.
package interopcalls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// file is testdata/interop/preview-notes-calls.json.
type file struct {
	Single, Multi, Batch json.RawMessage
	Replies              struct{ Single, Multi, Batch Reply }
}

func load() file {
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "..", "testdata", "interop", "preview-notes-calls.json"))
	if err != nil {
		panic(err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		panic(err)
	}
	return f
}

// Args returns the arguments text of the single-question call, the
// multi-select call and the batch, compact JSON as a model writes it.
func Args() (single, multi, batch string) {
	f := load()
	compact := func(raw json.RawMessage) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			panic(err)
		}
		return buf.String()
	}
	return compact(f.Single), compact(f.Multi), compact(f.Batch)
}

// Reply is the person's reply to one of the calls' forms, what the form
// must show, and the core's answer to it.
type Reply struct {
	// Content is the form's content the person sends with "accept".
	Content map[string]any `json:"content"`
	// Previews are the bold lines the form's message holds, in order.
	Previews []string `json:"previews"`
	// Fields are every field of the form, in the core's order; Notes the
	// notes fields among them.
	Fields []string `json:"fields"`
	Notes  []string `json:"notes"`
	// Answer is the core's answer, byte for byte.
	Answer string `json:"answer"`
}

// Replies returns the replies to the single-question call, the
// multi-select call and the batch.
func Replies() (single, multi, batch Reply) {
	r := load().Replies
	return r.Single, r.Multi, r.Batch
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
