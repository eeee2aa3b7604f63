package mcpserver

// Previews and notes (docs/SPEC.md, "Forms" and "Answers"): options carry a
// preview, which the core puts in the form's message as Markdown; every
// question has an optional notes field (notes, notes_i in a batch), and the
// person's notes come back in the core's answer. The front door needs no
// change for them: the form, the reply and the answer are the core's. These
// tests check that they pass through askcore-mcp untouched, in both ways a
// client speaks to it, and that go-sdk accepts the form (it checks an
// elicitation's schema before sending it).

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/interopcalls"
)

// The calls with previews and notes every suite asks: previews as fenced code blocks, an ASCII
// mockup with a tab (the core expands it) and wide characters.
var previewSingleArgs, previewMultiArgs, previewBatchArgs = interopcalls.Args()

// previewCase is one call answered with one reply.
type previewCase struct {
	name  string
	args  string
	reply interopcalls.Reply
}

var previewCases = func() []previewCase {
	single, multi, batch := interopcalls.Replies()
	return []previewCase{{"single", previewSingleArgs, single}, {"multi-select", previewMultiArgs, multi}, {"batch", previewBatchArgs, batch}}
}()

// TestPreviewsAndNotes: the client receives the core's form, whose
// message carries the previews and whose schema has a notes field per
// question; the person's notes come back as the core's answer, byte for
// byte.
func TestPreviewsAndNotes(t *testing.T) {
	for _, m := range modes {
		for _, tc := range previewCases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				e := &elicitor{respond: replyWith("accept", tc.reply.Content)}
				h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := h.mustCall(json.RawMessage(tc.args))

				forms := e.seen()
				require.Len(t, forms, 1, "one form for the call")
				want := wantForm(t, tc.args)
				assert.Equal(t, want.Message, forms[0].Message, "the message is the core's")
				got, err := json.Marshal(forms[0].RequestedSchema)
				require.NoError(t, err)
				assert.JSONEq(t, string(want.RequestedSchema), string(got), "the requestedSchema is the core's")

				// The previews, in display order, each under its bold line,
				// as the fenced blocks the model wrote.
				at := 0
				for _, p := range tc.reply.Previews {
					i := strings.Index(forms[0].Message[at:], "\n\n"+p+"\n\n")
					require.GreaterOrEqual(t, i, 0, "%q after byte %d of the message:\n%s", p, at, forms[0].Message)
					at += i + len(p)
				}
				if tc.name != "multi-select" {
					assert.Contains(t, forms[0].Message, "```")
				} else {
					assert.Contains(t, forms[0].Message, "Export  ▸ CSV | JSON", "the tab expanded to column 8, the next multiple of 4")
					assert.NotContains(t, forms[0].Message, "Preview: Sync", "an option without a preview has none")
				}

				// One optional string field for the notes of each question,
				// after that question's other fields.
				var schema struct {
					Properties map[string]struct {
						Type      string `json:"type"`
						Title     string `json:"title"`
						MaxLength int    `json:"maxLength"`
					} `json:"properties"`
					Required []string `json:"required"`
				}
				require.NoError(t, json.Unmarshal(got, &schema))
				for _, n := range tc.reply.Notes {
					f, ok := schema.Properties[n]
					require.True(t, ok, "a %s field: %s", n, got)
					assert.Equal(t, "string", f.Type, n)
					assert.NotEmpty(t, f.Title, n)
					assert.Equal(t, 2000, f.MaxLength, n)
					assert.NotContains(t, schema.Required, n, "notes are optional")
				}
				fields, err := interopcalls.FieldOrder(want.RequestedSchema)
				require.NoError(t, err)
				assert.Equal(t, tc.reply.Fields, fields, "each notes field after its question's fields")

				// The answer: the core's bytes for this reply.
				reply, err := json.Marshal(map[string]any{"action": "accept", "content": tc.reply.Content})
				require.NoError(t, err)
				core, isErr := coretest.FormAnswer(t, tc.args, string(reply))
				require.False(t, isErr, "%s", core)
				assert.Equal(t, tc.reply.Answer, string(core))
				assertBytes(t, res, core, false)
			})
		}
	}
}

// TestNotesOnlyWhenGiven: empty or blank notes are no notes, so an
// answer without them is the answer of a call without notes, byte for byte.
func TestNotesOnlyWhenGiven(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			content := map[string]any{"choice": "by-feature", "notes": "  \n "}
			e := &elicitor{respond: replyWith("accept", content)}
			h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := h.mustCall(json.RawMessage(previewSingleArgs))
			reply, err := json.Marshal(map[string]any{"action": "accept", "content": content})
			require.NoError(t, err)
			core, isErr := coretest.FormAnswer(t, previewSingleArgs, string(reply))
			require.False(t, isErr, "%s", core)
			assert.Equal(t, `{"answer":"by-feature","selected":{"index":0,"label":"By feature","value":"by-feature"}}`, string(core))
			assertBytes(t, res, core, false)
		})
	}
}
