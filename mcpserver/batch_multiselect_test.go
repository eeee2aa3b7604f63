package mcpserver

// Batches and multi-select questions (docs/SPEC.md, "Batches" and
// "Multi-select") pass through the server untouched: the form, the reply
// and the answer are the core's.

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/coretest"
)

func TestMultiSelect(t *testing.T) {
	const args = `{"header":"Features","question":"Which features should I enable?","multiSelect":true,"allowCustom":true,"options":[{"label":"Search","value":"search","recommended":true},{"label":"Export","value":"export"},{"label":"Sync","value":"sync","recommended":true}]}`
	content := map[string]any{"choices": []any{"sync", "search"}, "custom_answer": "audit log"}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res, schema := acceptedForm(t, m, args, content)
			var s struct {
				Properties map[string]struct {
					Type  string `json:"type"`
					Items struct {
						AnyOf []struct {
							Const string `json:"const"`
						} `json:"anyOf"`
					} `json:"items"`
					Default []string `json:"default"`
				} `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(schema, &s))
			f, ok := s.Properties["choices"]
			require.True(t, ok, "a choices field: %s", schema)
			assert.Equal(t, "array", f.Type)
			assert.Len(t, f.Items.AnyOf, 3)
			assert.ElementsMatch(t, []string{"search", "sync"}, f.Default)

			want := `{"answers":["search","sync","audit log"],"selected":[{"index":0,"label":"Search","value":"search"},{"index":2,"label":"Sync","value":"sync"}]}`
			assertBytes(t, res, []byte(want), false)
			got, isErr := coretest.FormAnswer(t, args, `{"action":"accept","content":{"choices":["sync","search"],"custom_answer":"audit log"}}`)
			assert.False(t, isErr)
			assert.JSONEq(t, want, string(got))
		})
	}
}

func TestBatch(t *testing.T) {
	const args = `{"questions":[{"header":"Database","question":"Which database?","options":[{"label":"SQLite","value":"sqlite","recommended":true},{"label":"PostgreSQL","value":"postgres"}]},{"question":"What should the project be called?"}]}`
	content := map[string]any{"choice_1": "postgres", "answer_2": "askcore"}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res, schema := acceptedForm(t, m, args, content)
			assert.Contains(t, string(schema), `"choice_1"`)
			assert.Contains(t, string(schema), `"answer_2"`)

			want := `{"answers":[{"question":"Which database?","answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"}},{"question":"What should the project be called?","answer":"askcore"}]}`
			assertBytes(t, res, []byte(want), false)
		})
	}
}

// acceptedForm calls the tool with args in mode m, the client accepting
// its one form with content, and returns the call's result and that
// form's schema.
func acceptedForm(t *testing.T, m protocolMode, args string, content map[string]any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	e := &elicitor{respond: replyWith("accept", content)}
	h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := h.mustCall(json.RawMessage(args))
	forms := e.seen()
	require.Len(t, forms, 1, "one form for the whole call")
	schema, err := json.Marshal(forms[0].RequestedSchema)
	require.NoError(t, err)
	return res, schema
}
