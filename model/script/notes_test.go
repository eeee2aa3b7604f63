package script_test

// Notes (docs/SPEC.md, "Answers"): {{notes}} in content is the notes
// the person added to the latest ask_user_question result.

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/model/script"
)

func TestNotesSubstitution(t *testing.T) {
	m := parse(t, `{"content":"You chose {{answer}} ({{notes}}); notes again: [{{notes}}]."}`)
	say := func(h ...agent.Message) string {
		t.Helper()
		r, err := m.Complete(ctx, h, nil)
		require.NoError(t, err)
		return r.Content
	}
	assert.Equal(t, "You chose {{answer}} ({{notes}}); notes again: [{{notes}}].", say(),
		"no result yet: both placeholders left as is")
	assert.Equal(t, "You chose pg (keep v15); notes again: [keep v15].",
		say(toolMsg(`{"answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"},"notes":"keep v15"}`, false)))
	assert.Equal(t, "You chose pg (); notes again: [].",
		say(toolMsg(`{"answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"}}`, false)),
		"an answer without notes: empty")
	assert.Equal(t, "You chose auth, Chat (OAuth only); notes again: [OAuth only].",
		say(toolMsg(`{"answers":["auth","Chat"],"selected":[{"index":0,"label":"Auth","value":"auth"}],"notes":"OAuth only"}`, false)),
		"a multi-select answer's notes")
	assert.Equal(t, "You chose ASK_DECLINED (); notes again: [].",
		say(toolMsg(`{"answer":"first","notes":"old"}`, false), toolMsg(`{"name":"UserInteractionError","code":"ASK_DECLINED","message":"no"}`, true)),
		"the latest result wins; an error has no notes")
	assert.Equal(t, "You chose free text (mine); notes again: [mine].",
		say(toolMsg(`{"answer":"free text","notes":"mine"}`, false),
			agent.Message{Role: agent.RoleTool, ToolName: "other", Content: `{"answer":"x","notes":"not these"}`}),
		"only ask_user_question results count")
}

// A batch: the notes of the questions that have them, in question order,
// joined by "; " as {{answer}} joins a batch's answers.
func TestNotesOfABatch(t *testing.T) {
	m := parse(t, `{"content":"{{answer}} | {{notes}}"}`)
	say := func(content string) string {
		t.Helper()
		r, err := m.Complete(ctx, []agent.Message{toolMsg(content, false)}, nil)
		require.NoError(t, err)
		return r.Content
	}
	assert.Equal(t, "pg; Aurora; auth, Chat | keep v15; OAuth only",
		say(`{"answers":[{"question":"Which database?","answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"},"notes":"keep v15"},`+
			`{"question":"Name?","answer":"Aurora"},`+
			`{"question":"Which features?","answers":["auth","Chat"],"selected":[{"index":0,"label":"Auth","value":"auth"}],"notes":"OAuth only"}]}`),
		"the question without notes is left out")
	assert.Equal(t, "pg; Aurora | ", say(`{"answers":[{"question":"Which database?","answer":"pg"},{"question":"Name?","answer":"Aurora"}]}`),
		"a batch without notes: empty")
	assert.Equal(t, "pg; Aurora | named after the sky",
		say(`{"answers":[{"question":"Which database?","answer":"pg"},{"question":"Name?","answer":"Aurora","notes":"named after the sky"}]}`))
}

// An answer or notes that spell a placeholder are the person's text: they
// are not substituted again.
func TestPlaceholdersInTheirOwnTextStay(t *testing.T) {
	m := parse(t, `{"content":"a={{answer}} n={{notes}}"}`)
	r, err := m.Complete(ctx, []agent.Message{toolMsg(`{"answer":"{{notes}}","notes":"{{answer}}"}`, false)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "a={{notes}} n={{answer}}", r.Content)
}

func TestLatestNotes(t *testing.T) {
	_, ok := script.LatestNotes(nil)
	assert.False(t, ok, "no result")
	notes, ok := script.LatestNotes([]agent.Message{toolMsg(`{"answer":"x","notes":"n"}`, false)})
	assert.True(t, ok)
	assert.Equal(t, "n", notes)
	notes, ok = script.LatestNotes([]agent.Message{toolMsg(`not json`, true)})
	assert.True(t, ok)
	assert.Empty(t, notes)
	assert.Equal(t, "{{notes}}", script.NotesPlaceholder)
}

// The notes come from the core's own answer: a line typed as
// "ANSWER // NOTES" through the real ask tool.
func TestNotesFromATypedLineThroughTheCore(t *testing.T) {
	const args = `{"questions":[{"question":"Which database?","options":[{"label":"PostgreSQL","value":"pg"},{"label":"SQLite","value":"sqlite"}]},{"question":"Name?"}]}`
	m := parse(t, `{"tool_calls":[{"id":"c1","name":"ask_user_question","arguments":`+args+`}]}`+"\n"+
		`{"content":"You chose {{answer}}. Your notes: {{notes}}."}`)
	svc := askcore.NewService(native)
	reg := askRegistry(t, svc)
	dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines("1 // but keep v15", "Aurora"), nil
	}))
	require.NoError(t, err)
	defer dispose()

	var texts []string
	a := &agent.Agent{Model: m, Tools: reg, Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
	require.NoError(t, a.Run(ctx, "go"))
	require.Len(t, texts, 1)
	assert.Equal(t, "You chose pg; Aurora. Your notes: but keep v15.", texts[0])

	var result string
	for _, msg := range a.History {
		if msg.Role == agent.RoleTool {
			result = msg.Content
		}
	}
	call, err := native.Normalize(ctx, args)
	require.NoError(t, err)
	want, err := call.Resolve(ctx, askcore.Lines("1 // but keep v15", "Aurora"))
	require.NoError(t, err)
	assert.Equal(t, string(want.JSON()), result, "the model received the core's answer")
	assert.True(t, strings.Contains(result, `"notes":"but keep v15"`), result)
}

// TestDemoShowsPreviewsAndAsksForNotes: after the batch, the demo asks a
// choice between two code layouts, each shown as a fenced code block, with
// free text allowed; it tells how to add notes (in line mode: after //)
// and its last reply quotes them.
func TestDemoShowsPreviewsAndAsksForNotes(t *testing.T) {
	m := script.Demo()
	require.Equal(t, 3, m.Len(), "the demo stays short")
	r, err := m.Complete(ctx, assistant(1), nil)
	require.NoError(t, err)
	assert.Contains(t, r.Content, "after //", "it says how to add notes in line mode")
	require.Len(t, r.ToolCalls, 1)
	call, err := native.Normalize(ctx, string(r.ToolCalls[0].Arguments))
	require.NoError(t, err, "the core accepts the demo's request")
	require.False(t, call.Batch)
	q := call.Questions[0]
	assert.True(t, q.AllowCustom, "the person's own layout stays possible beside the previews")
	require.Len(t, q.Options, 2)
	for _, o := range q.Options {
		assert.NotEmpty(t, o.Description, o.Label)
		assert.True(t, strings.HasPrefix(o.Preview, "```text\n") && strings.HasSuffix(o.Preview, "\n```"),
			"%s: a fenced code block: %q", o.Label, o.Preview)
	}
	assert.NotEqual(t, q.Options[0].Preview, q.Options[1].Preview)

	last, err := m.Complete(ctx, assistant(2), nil)
	require.NoError(t, err)
	assert.Contains(t, last.Content, script.NotesPlaceholder, "no result in this history: the placeholder is left")
	assert.Empty(t, last.ToolCalls)
}

// TestNotesSection: {{#notes}}...{{/notes}} is kept only when the person
// added notes, so the demo never prints an empty quote.
func TestNotesSection(t *testing.T) {
	const args = `{"question":"Which database?","options":[{"label":"PostgreSQL","value":"pg"},{"label":"SQLite","value":"sqlite"}]}`
	for _, tc := range []struct{ line, want string }{
		{"1 // but keep v15", `Noted: pg. Your notes: "but keep v15". Done.`},
		{"1", `Noted: pg. Done.`},
	} {
		t.Run(tc.line, func(t *testing.T) {
			m := parse(t, `{"tool_calls":[{"id":"c1","name":"ask_user_question","arguments":`+args+`}]}`+"\n"+
				`{"content":"Noted: {{answer}}.{{#notes}} Your notes: \"{{notes}}\".{{/notes}} Done."}`)
			svc := askcore.NewService(native)
			reg := askRegistry(t, svc)
			dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Lines(tc.line), nil
			}))
			require.NoError(t, err)
			defer dispose()
			var texts []string
			a := &agent.Agent{Model: m, Tools: reg, Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
			require.NoError(t, a.Run(ctx, "go"))
			require.Equal(t, []string{tc.want}, texts)
		})
	}
}
