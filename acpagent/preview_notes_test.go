package acpagent

// Previews and notes (docs/SPEC.md, "Forms" and "Answers"): options carry a
// preview, which the core puts in the form's message as Markdown; every
// question has an optional notes field (notes, notes_i in a batch), and the
// person's notes come back in the core's answer. The front door needs no
// change for them: the form, the reply and the answer are the core's. These
// tests check that they pass through askcore-acp untouched, and that the
// scripted model's {{notes}} reads them.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/interopcalls"

	"github.com/askcore/askcore"
)

// The preview and notes calls every suite asks: previews as fenced code blocks, an ASCII
// mockup with a tab (the core expands it) and wide characters.
var previewSingleArgs, previewMultiArgs, previewBatchArgs = interopcalls.Args()

// previewScript asks the three calls, one per prompt, and quotes each answer and
// its notes.
var previewScript = `{"tool_calls":[{"id":"call_single","name":"ask_user_question","arguments":` + previewSingleArgs + `}]}
{"content":"single: {{answer}} / notes: {{notes}}"}
{"tool_calls":[{"id":"call_multi","name":"ask_user_question","arguments":` + previewMultiArgs + `}]}
{"content":"multi: {{answer}} / notes: {{notes}}"}
{"tool_calls":[{"id":"call_batch","name":"ask_user_question","arguments":` + previewBatchArgs + `}]}
{"content":"batch: {{answer}} / notes: {{notes}}"}
`

// previewCore is the core the expected bytes come from.
var previewCore = askcore.NewCore(askcore.Native{})

type previewTurn struct {
	id    string // the tool call
	args  string
	reply interopcalls.Reply
	text  string // what the model says next ({{answer}} / {{notes}})
}

var previewTurns = func() []previewTurn {
	single, multi, batch := interopcalls.Replies()
	return []previewTurn{
		{"call_single", previewSingleArgs, single, "single: by-layer / notes: keep shared code in common/"},
		{"call_multi", previewMultiArgs, multi, "multi: search, export / notes: CSV <first> & JSON later"},
		{"call_batch", previewBatchArgs, batch, "batch: postgres; search, Audit log; Aurora / notes: but keep v15; named after the sky"},
	}
}()

// TestPreviewsAndNotes: for a single, a multi-select and a batch call,
// the client receives the core's form (its message carries the previews,
// its schema a notes field per question), and the person's notes come back
// as the core's answer, byte for byte, which the model quotes with
// {{notes}}.
func TestPreviewsAndNotes(t *testing.T) {
	replies := map[string]map[string]any{}
	for _, turn := range previewTurns {
		replies[turn.id] = turn.reply.Content
	}
	var (
		mu    sync.Mutex
		forms []acp.UnstableCreateElicitationForm
	)
	seen := func() []acp.UnstableCreateElicitationForm {
		mu.Lock()
		defer mu.Unlock()
		return append([]acp.UnstableCreateElicitationForm(nil), forms...)
	}
	h := newHarness(t, harnessOptions{script: previewScript}, func(_ context.Context, scope wireScope, f acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		mu.Lock()
		forms = append(forms, f)
		mu.Unlock()
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: replies[scope.ToolCallID]}}, nil
	})
	h.initialize(true)
	sid := h.newSession()

	ctx := context.Background()
	for i, turn := range previewTurns {
		t.Run(turn.id, func(t *testing.T) {
			stop, updates := h.prompt(sid, "next")
			require.Equal(t, acp.StopReasonEndTurn, stop)
			texts, tools := summarize(t, updates)
			require.Len(t, tools, 2)
			assert.Equal(t, turn.id, tools[0].id)
			assert.JSONEq(t, turn.args, string(tools[0].rawInput))

			call, err := previewCore.Normalize(ctx, turn.args)
			require.NoError(t, err)
			want, err := call.Form(ctx, askcore.ForACP)
			require.NoError(t, err)

			// The form on the wire is the core's, byte for byte.
			wire := h.tap.elicitations()
			require.Len(t, wire, i+1, "one form per call")
			var message string
			require.NoError(t, json.Unmarshal(wire[i]["message"], &message))
			assert.Equal(t, want.Message, message, "the message is the core's")
			assert.Equal(t, string(want.RequestedSchema), string(wire[i]["requestedSchema"]), "the requestedSchema is the core's bytes")
			assert.JSONEq(t, `"`+turn.id+`"`, string(wire[i]["toolCallId"]))

			// What the Go client decoded: the previews in display order,
			// each under its bold line, and a notes field per question.
			decoded := seen()
			require.Len(t, decoded, i+1)
			f := decoded[i]
			assert.Equal(t, want.Message, f.Message)
			at := 0
			for _, p := range turn.reply.Previews {
				j := strings.Index(f.Message[at:], "\n\n"+p+"\n\n")
				require.GreaterOrEqual(t, j, 0, "%q after byte %d of the message:\n%s", p, at, f.Message)
				at += j + len(p)
			}
			assert.ElementsMatch(t, turn.reply.Fields, keys(f.RequestedSchema.Properties))
			fields, err := interopcalls.FieldOrder(want.RequestedSchema)
			require.NoError(t, err)
			assert.Equal(t, turn.reply.Fields, fields, "each notes field after its question's fields")
			for _, n := range turn.reply.Notes {
				field, ok := f.RequestedSchema.Properties[n].(map[string]any)
				require.True(t, ok, "a %s field", n)
				assert.Equal(t, "string", field["type"], n)
				assert.Equal(t, float64(2000), field["maxLength"], n)
				assert.NotContains(t, f.RequestedSchema.Required, n, "notes are optional")
			}

			// The answer: the core's bytes for this reply, as rawOutput.
			reply, err := json.Marshal(map[string]any{"action": "accept", "content": turn.reply.Content})
			require.NoError(t, err)
			answer, err := call.Resolve(ctx, askcore.FormReply(reply))
			require.NoError(t, err)
			assert.Equal(t, turn.reply.Answer, string(answer.JSON()))
			assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status, "%s", tools[1].rawOutput)
			assert.Equal(t, []string{turn.reply.Answer}, h.tap.rawOutputs(sid, turn.id), "rawOutput is the answer as the core wrote it")
			summary, err := call.Summary(ctx, answer)
			require.NoError(t, err)
			assert.Equal(t, []string{summary}, tools[1].content, "the card is the core's summary")
			assert.Contains(t, summary, "(notes: ")
			assert.Equal(t, []string{turn.text}, texts, "{{answer}} and {{notes}}")
		})
	}
}
