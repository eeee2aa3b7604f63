package acpagent

import (
	"context"
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// batchArgs is one call with two questions: a single choice, and a
// multi-select with free text.
const batchArgs = `{"questions":[` +
	`{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite","recommended":true}]},` +
	`{"header":"Features","question":"Which features do you want?","multiSelect":true,"options":[{"label":"Auth","value":"auth","recommended":true},{"label":"Billing & invoices","value":"billing"},{"label":"Search","value":"search"}],"allowCustom":true}]}`

const batchScript = `{"content":"Two questions.","tool_calls":[{"id":"call_batch","name":"ask_user_question","arguments":` + batchArgs + `}]}
{"content":"Done: {{answer}}."}
`

// batchTurn runs one prompt of batchScript answered by elicit and returns
// the session, the tool events and the forms the client was sent.
func batchTurn(t *testing.T, elicit elicitFunc) (*harness, acp.SessionId, []toolEvent, []acp.UnstableCreateElicitationForm) {
	t.Helper()
	var forms []acp.UnstableCreateElicitationForm
	h := newHarness(t, harnessOptions{script: batchScript}, func(ctx context.Context, scope wireScope, f acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		forms = append(forms, f)
		return elicit(ctx, scope, f)
	})
	h.initialize(true)
	sid := h.newSession()
	_, tools := h.endedTurn(sid, "set up the project")
	require.Len(t, tools, 2)
	assert.Equal(t, "call_batch", tools[0].id)
	assert.JSONEq(t, batchArgs, string(tools[0].rawInput))
	assert.Equal(t, "call_batch", tools[1].id)
	return h, sid, tools, forms
}

// A batch holding a multi-select question is one form, written by the core
// and put on the wire as it wrote it; the person's answers come back as the
// core's answer bytes, and the card shows the core's summary.
func TestBatchWithMultiSelectAccepted(t *testing.T) {
	content := map[string]any{"choice_1": "postgres", "choices_2": []string{"search", "auth"}, "custom_answer_2": "Export <CSV & JSON>"}
	h, sid, tools, forms := batchTurn(t, accept(content))

	// One form for the whole batch: field names carry the question's
	// position, the multi-select question is an array field.
	require.Len(t, forms, 1)
	props := forms[0].RequestedSchema.Properties
	assert.ElementsMatch(t, []string{"choice_1", "notes_1", "choices_2", "custom_answer_2", "notes_2"}, keys(props))
	multi := props["choices_2"].(map[string]any)
	assert.Equal(t, "array", multi["type"])
	assert.Equal(t, []any{"auth"}, multi["default"])
	items := multi["items"].(map[string]any)["anyOf"].([]any)
	require.Len(t, items, 3)
	assert.Equal(t, map[string]any{"const": "auth", "title": "Auth"}, items[0])
	assert.Equal(t, "string", props["choice_1"].(map[string]any)["type"])

	ctx := context.Background()
	call, err := nativeCore.Normalize(ctx, batchArgs)
	require.NoError(t, err)
	want, err := call.Form(ctx, askcore.ForACP)
	require.NoError(t, err)
	wire := h.tap.elicitations()
	require.Len(t, wire, 1)
	assert.Equal(t, string(want.RequestedSchema), string(wire[0]["requestedSchema"]), "the form is the core's bytes")
	assert.JSONEq(t, `"call_batch"`, string(wire[0]["toolCallId"]))

	assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
	response, err := json.Marshal(map[string]any{"action": "accept", "content": content})
	require.NoError(t, err)
	answer, err := call.Resolve(ctx, askcore.FormReply(response))
	require.NoError(t, err)
	assert.JSONEq(t, `{"answers":[`+
		`{"question":"Which database should I use?","answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}},`+
		`{"question":"Which features do you want?","answers":["auth","search","Export <CSV & JSON>"],"selected":[{"index":0,"label":"Auth","value":"auth"},{"index":2,"label":"Search","value":"search"}]}]}`,
		string(answer.JSON()))
	assert.Equal(t, []string{string(answer.JSON())}, h.tap.rawOutputs(sid, "call_batch"), "rawOutput is the answer as the core wrote it")
	summary, err := call.Summary(ctx, answer)
	require.NoError(t, err)
	assert.Equal(t, []string{summary}, tools[1].content)
	assert.Contains(t, summary, "Auth, Search, Export <CSV & JSON>")
}

// A declined batch fails whole with ASK_DECLINED.
func TestBatchDeclined(t *testing.T) {
	h, sid, tools, forms := batchTurn(t, func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		read(ctx)
		return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
	})
	require.Len(t, forms, 1)
	assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
	assert.Equal(t, "ASK_DECLINED", errorCode(t, tools[1].rawOutput))
	assert.Equal(t, []string{coreBatchVerdict(t, `{"action":"decline"}`)}, h.tap.rawOutputs(sid, "call_batch"))
}

// A client that sends a string for a multi-select field gets the core's
// INVALID_ANSWER, naming the question and the field.
func TestMultiSelectNonArrayIsInvalidAnswer(t *testing.T) {
	h, sid, tools, _ := batchTurn(t, accept(map[string]any{"choice_1": "postgres", "choices_2": "auth"}))
	assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
	assert.Equal(t, "INVALID_ANSWER", errorCode(t, tools[1].rawOutput))
	assert.Equal(t, []string{coreBatchVerdict(t, `{"action":"accept","content":{"choice_1":"postgres","choices_2":"auth"}}`)},
		h.tap.rawOutputs(sid, "call_batch"))
	assert.Contains(t, tools[1].content[0], "choices_2")
}

// coreBatchVerdict is the core's error object for a response to the form
// of batchArgs.
func coreBatchVerdict(t *testing.T, response string) string {
	t.Helper()
	call, err := nativeCore.Normalize(context.Background(), batchArgs)
	require.NoError(t, err)
	_, err = call.Resolve(context.Background(), askcore.FormReply(json.RawMessage(response)))
	return errorBytes(t, err)
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
