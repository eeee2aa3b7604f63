package script_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/internal/testing/leaktest"
	"github.com/askcore/askcore/model/script"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

var ctx = context.Background()

func parse(t *testing.T, s string) *script.Model {
	t.Helper()
	m, err := script.Parse(strings.NewReader(s))
	require.NoError(t, err)
	return m
}

func assistant(n int) []agent.Message {
	var h []agent.Message
	for i := 0; i < n; i++ {
		h = append(h, agent.Message{Role: agent.RoleUser, Content: "u"}, agent.Message{Role: agent.RoleAssistant, Content: "a"})
	}
	return append(h, agent.Message{Role: agent.RoleUser, Content: "u"})
}

const threeLines = `{"content":"one"}

{"content":"two","tool_calls":[{"id":"t1","name":"ask_user_question","arguments":{"question":"q?"}}]}
{"tool_calls":[{"name":"ask_user_question","arguments":"{\"question\": \"raw\"}"},{"name":"other"}]}
`

func TestParseAndReplayByConversationPosition(t *testing.T) {
	m := parse(t, threeLines)
	assert.Equal(t, 3, m.Len())

	r, err := m.Complete(ctx, assistant(0), nil)
	require.NoError(t, err)
	assert.Equal(t, agent.Reply{Content: "one"}, r)

	r, err = m.Complete(ctx, assistant(1), nil)
	require.NoError(t, err)
	assert.Equal(t, "two", r.Content)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, "t1", r.ToolCalls[0].ID)
	assert.Equal(t, `{"question":"q?"}`, string(r.ToolCalls[0].Arguments))

	r, err = m.Complete(ctx, assistant(2), nil)
	require.NoError(t, err)
	assert.Empty(t, r.Content)
	require.Len(t, r.ToolCalls, 2)
	assert.Equal(t, `{"question": "raw"}`, string(r.ToolCalls[0].Arguments), "a string is the arguments text, as OpenAI sends it")
	assert.Equal(t, "call_4_1", r.ToolCalls[0].ID, "a missing id names the line and the call")
	assert.Equal(t, "call_4_2", r.ToolCalls[1].ID)
	assert.Empty(t, r.ToolCalls[1].Arguments, "missing arguments are no text at all")

	// Past the last line: a short notice and the turn ends.
	for _, n := range []int{3, 4, 10} {
		r, err = m.Complete(ctx, assistant(n), nil)
		require.NoError(t, err)
		assert.Equal(t, agent.Reply{Content: script.Finished}, r)
	}

	// Stateless: an earlier position replays the same line again.
	r, err = m.Complete(ctx, assistant(0), nil)
	require.NoError(t, err)
	assert.Equal(t, "one", r.Content)
}

func TestRepliesAreCopies(t *testing.T) {
	m := parse(t, threeLines)
	r, err := m.Complete(ctx, assistant(1), nil)
	require.NoError(t, err)
	r.ToolCalls[0].Arguments[0] = 'X'
	r.ToolCalls[0].ID = "changed"
	r2, err := m.Complete(ctx, assistant(1), nil)
	require.NoError(t, err)
	assert.Equal(t, "t1", r2.ToolCalls[0].ID)
	assert.JSONEq(t, `{"question":"q?"}`, string(r2.ToolCalls[0].Arguments))
}

func TestInvalidArgumentsTextIsKeptForTheCore(t *testing.T) {
	m := parse(t, `{"tool_calls":[{"id":"x","name":"ask_user_question","arguments":"{\"question\": "}]}`)
	r, err := m.Complete(ctx, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"question": `, string(r.ToolCalls[0].Arguments))
}

// Arguments reach the tool as text, unchanged: a JSON string is the text
// itself, any other value its JSON text exactly as the line spells it
// (spacing, key order, escapes), null or missing no text.
func TestArgumentsAreTheTextTheLineHolds(t *testing.T) {
	for line, want := range map[string]string{
		`{"tool_calls":[{"name":"a","arguments":{ "question" : "Q?\u003c" ,"x":1 }}]}`: `{ "question" : "Q?\u003c" ,"x":1 }`,
		`{"tool_calls":[{"name":"a","arguments":"{\"question\":\"Q?\"},\"junk\":1"}]}`: `{"question":"Q?"},"junk":1`,
		`{"tool_calls":[{"name":"a","arguments":"not json at all"}]}`:                  `not json at all`,
		`{"tool_calls":[{"name":"a","arguments":["q"]}]}`:                              `["q"]`,
		`{"tool_calls":[{"name":"a","arguments":42}]}`:                                 `42`,
		`{"tool_calls":[{"name":"a","arguments":""}]}`:                                 ``,
		`{"tool_calls":[{"name":"a","arguments":null}]}`:                               ``,
		`{"tool_calls":[{"name":"a"}]}`:                                                ``,
	} {
		r, err := parse(t, line).Complete(ctx, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, want, string(r.ToolCalls[0].Arguments), line)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"bad json":       {"{\"content\":\"ok\"}\n{\"content\":", "line 2"},
		"not an object":  {"{\"content\":\"ok\"}\n\n[1,2]", "line 3"},
		"unknown field":  {`{"contnet":"typo"}`, "line 1"},
		"empty reply":    {"{\"content\":\"a\"}\n{}", "line 2"},
		"no tool name":   {`{"tool_calls":[{"id":"x"}]}`, "line 1"},
		"trailing text":  {`{"content":"a"} {"content":"b"}`, "line 1"},
		"wrong type":     {`{"content":42}`, "line 1"},
		"bad arg string": {`{"tool_calls":[{"name":"a","arguments":"\x"}]}`, "line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := script.Parse(strings.NewReader(tc.src))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := script.Parse(strings.NewReader("\n\n"))
	require.Error(t, err, "an empty script is an error")
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(threeLines), 0o600))
	m, err := script.Load(path)
	require.NoError(t, err)
	assert.Equal(t, 3, m.Len())

	_, err = script.Load(filepath.Join(t.TempDir(), "missing.jsonl"))
	require.Error(t, err)

	require.NoError(t, os.WriteFile(path, []byte("{\"content\":\"a\"}\nnope\n"), 0o600))
	_, err = script.Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s.jsonl")
	assert.Contains(t, err.Error(), "line 2")
}

func toolMsg(content string, isErr bool) agent.Message {
	return agent.Message{Role: agent.RoleTool, ToolName: askcore.ToolName, ToolCallID: "x", Content: content, IsError: isErr}
}

func TestAnswerSubstitution(t *testing.T) {
	m := parse(t, `{"content":"You said {{answer}}; again: {{answer}}."}`)
	say := func(h ...agent.Message) string {
		t.Helper()
		r, err := m.Complete(ctx, h, nil)
		require.NoError(t, err)
		return r.Content
	}
	assert.Equal(t, "You said {{answer}}; again: {{answer}}.", say(), "no result yet: left as is")
	assert.Equal(t, "You said pg; again: pg.", say(toolMsg(`{"answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"}}`, false)))
	assert.Equal(t, "You said ASK_DECLINED; again: ASK_DECLINED.",
		say(toolMsg(`{"answer":"first"}`, false), toolMsg(`{"name":"UserInteractionError","code":"ASK_DECLINED","message":"no"}`, true)),
		"the latest result wins; an error gives its code")
	assert.Equal(t, "You said auth, Chat; again: auth, Chat.",
		say(toolMsg(`{"answers":["auth","Chat"],"selected":[{"index":0,"label":"Auth","value":"auth"}]}`, false)),
		"a multi-select answer: its answers joined by a comma")
	assert.Equal(t, "You said pg; auth, Chat; Aurora; again: pg; auth, Chat; Aurora.",
		say(toolMsg(`{"answers":[{"question":"Which database?","answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"}},`+
			`{"question":"Which features?","answers":["auth","Chat"],"selected":[{"index":0,"label":"Auth","value":"auth"}]},`+
			`{"question":"Name?","answer":"Aurora"}]}`, false)),
		"a batch: each question's answer, joined by a semicolon")
	assert.Equal(t, "You said ERROR; again: ERROR.", say(toolMsg(`not json`, true)))
	assert.Equal(t, "You said free text; again: free text.",
		say(toolMsg(`{"answer":"free text"}`, false),
			agent.Message{Role: agent.RoleTool, ToolName: "other", Content: `{"answer":"not this"}`}),
		"only ask_user_question results count")
}

// TestTwoConversationsReplayIndependently runs two agents over one model.
func TestTwoConversationsReplayIndependently(t *testing.T) {
	m := parse(t, `{"content":"first"}`+"\n"+`{"content":"second"}`)
	var a1, a2 []string
	one := &agent.Agent{Model: m, Hooks: agent.Hooks{OnText: func(s string) { a1 = append(a1, s) }}}
	two := &agent.Agent{Model: m, Hooks: agent.Hooks{OnText: func(s string) { a2 = append(a2, s) }}}
	require.NoError(t, one.Run(ctx, "hi"))
	require.NoError(t, one.Run(ctx, "again"))
	require.NoError(t, two.Run(ctx, "hi"))
	require.NoError(t, one.Run(ctx, "more"))
	assert.Equal(t, []string{"first", "second", script.Finished}, a1)
	assert.Equal(t, []string{"first"}, a2)
}

// ---- The built-in demo ----

var native = askcore.NewCore(nil)

// askRegistry is the real ask tool through svc, on the native core.
func askRegistry(t *testing.T, svc *askcore.Service) *agent.Registry {
	t.Helper()
	reg := agent.NewRegistry(native)
	require.NoError(t, reg.AddAsk(ctx, svc, 0))
	return reg
}

// TestDemoAsksAGoodBatch: the demo's first call is a batch of two
// questions the core accepts, the second one multi-select, each with a
// header, free text allowed, and 3-4 described options, some recommended.
func TestDemoAsksAGoodBatch(t *testing.T) {
	m := script.Demo()
	require.GreaterOrEqual(t, m.Len(), 3)
	r, err := m.Complete(ctx, assistant(0), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, r.Content, "it greets")
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, askcore.ToolName, r.ToolCalls[0].Name)

	call, err := native.Normalize(ctx, string(r.ToolCalls[0].Arguments))
	require.NoError(t, err, "the core accepts the demo's request")
	require.True(t, call.Batch)
	require.Len(t, call.Questions, 2)
	assert.False(t, call.Questions[0].MultiSelect)
	assert.True(t, call.Questions[1].MultiSelect, "the second question is multi-select")
	for i, q := range call.Questions {
		assert.NotEmpty(t, q.Header, "question %d", i)
		assert.True(t, q.AllowCustom, "question %d", i)
		require.GreaterOrEqual(t, len(q.Options), 3, "question %d", i)
		require.LessOrEqual(t, len(q.Options), 4, "question %d", i)
		recommended := 0
		for _, o := range q.Options {
			assert.NotEmpty(t, o.Description)
			if o.Recommended {
				recommended++
			}
		}
		assert.GreaterOrEqual(t, recommended, 1, "question %d", i)
	}
}

// TestDemoRunsOfflineEndToEnd plays the demo through the real loop, ask tool
// and core, with a provider that types a line per question.
func TestDemoRunsOfflineEndToEnd(t *testing.T) {
	svc := askcore.NewService(native)
	reg := askRegistry(t, svc)
	// Enter: the recommended language; then two features and one of mine;
	// then the second layout, with notes.
	typed := []string{"", "1, database, Tracing", "2 // keep shared code apart"}
	var shown []string
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		lines := make([]string, len(call.Questions))
		for i := range call.Questions {
			p, err := call.Present(ctx, i)
			if err != nil { // the provider runs aside: no require here
				return askcore.Reply{}, err
			}
			shown = append(shown, p.Text)
			lines[i] = typed[0]
			typed = typed[1:]
		}
		return askcore.Lines(lines...), nil
	}))
	require.NoError(t, err)
	defer dispose()

	var texts []string
	a := &agent.Agent{ID: "demo", Model: script.Demo(), Tools: reg, Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
	require.NoError(t, a.Run(ctx, "hello"))
	require.Len(t, shown, 3)
	assert.True(t, strings.HasPrefix(shown[0], "Question 1 of 2\n"), shown[0])
	assert.Contains(t, shown[0], "TypeScript")
	assert.True(t, strings.HasPrefix(shown[1], "Question 2 of 2\n"), shown[1])
	assert.Contains(t, shown[1], "HTTP API")
	require.Len(t, texts, 3)
	assert.Contains(t, texts[1], "says: go; http, database, Tracing.", "{{answer}} of a batch with a multi-select question")
	assert.Contains(t, shown[2], "By layer")
	assert.Contains(t, texts[2], `Noted: by-layer. Your notes: "keep shared code apart".`, "{{answer}} and {{notes}}")

	// What the model received for the batch: the core's answer, whole.
	var results []string
	for _, msg := range a.History {
		if msg.Role == agent.RoleTool {
			require.False(t, msg.IsError, msg.Content)
			results = append(results, msg.Content)
		}
	}
	require.Len(t, results, 2)
	assert.Equal(t, `{"answers":[{"question":"Which language should the new service be written in?","answer":"go",`+
		`"selected":{"index":0,"label":"Go","value":"go"}},{"question":"Which features should the first version have?",`+
		`"answers":["http","database","Tracing"],"selected":[{"index":0,"label":"HTTP API","value":"http"},`+
		`{"index":2,"label":"Database","value":"database"}]}]}`, results[0])
	assert.Equal(t, `{"answer":"by-layer","selected":{"index":1,"label":"By layer","value":"by-layer"},"notes":"keep shared code apart"}`, results[1])

	require.NoError(t, a.Run(ctx, "more?"))
	assert.Equal(t, script.Finished, texts[len(texts)-1])
}

func TestDemoWithoutProviderReportsTheErrorCode(t *testing.T) {
	reg := askRegistry(t, askcore.NewService(native))
	var texts []string
	a := &agent.Agent{Model: script.Demo(), Tools: reg, Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
	require.NoError(t, a.Run(ctx, "hello"))
	require.GreaterOrEqual(t, len(texts), 2)
	results := 0
	assert.Contains(t, texts[1], string(askcore.CodeNoProvider))
	for _, msg := range a.History {
		if msg.Role == agent.RoleTool {
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(msg.Content), &obj))
			assert.Equal(t, string(askcore.CodeNoProvider), obj["code"])
			results++
		}
	}
	assert.NotZero(t, results, "the demo asked")
}
