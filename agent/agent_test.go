package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var client = engine.Client{Core: engine.Native{}}

// modelFunc adapts a function to agent.Model and records what it saw.
type modelFunc func(ctx context.Context, step int, messages []agent.Message) (agent.Reply, error)

type recorder struct {
	mu    sync.Mutex
	f     modelFunc
	calls [][]agent.Message
	tools [][]agent.ToolSpec
}

func (r *recorder) Complete(ctx context.Context, messages []agent.Message, tools []agent.ToolSpec) (agent.Reply, error) {
	r.mu.Lock()
	step := len(r.calls)
	r.calls = append(r.calls, append([]agent.Message(nil), messages...))
	r.tools = append(r.tools, tools)
	r.mu.Unlock()
	return r.f(ctx, step, messages)
}

// replies plays fixed replies, then ends the turn.
func replies(rs ...agent.Reply) *recorder {
	return &recorder{f: func(_ context.Context, step int, _ []agent.Message) (agent.Reply, error) {
		if step < len(rs) {
			return rs[step], nil
		}
		return agent.Reply{Content: "done"}, nil
	}}
}

// fakeTool is a tool with a fixed spec and behaviour.
type fakeTool struct {
	name string
	run  func(ctx context.Context, call agent.Call) (json.RawMessage, error)
}

func (f fakeTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: f.name, Description: "test tool " + f.name, Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (f fakeTool) Execute(ctx context.Context, call agent.Call) (json.RawMessage, error) {
	return f.run(ctx, call)
}

func echo(name string) fakeTool {
	return fakeTool{name: name, run: func(_ context.Context, call agent.Call) (json.RawMessage, error) {
		return call.Arguments, nil
	}}
}

func requireHarness(t *testing.T, err error, name string, code askcore.Code) *askcore.Error {
	t.Helper()
	require.Error(t, err)
	var he *askcore.Error
	require.True(t, errors.As(err, &he), "want *askcore.Error, got %T: %v", err, err)
	assert.Equal(t, name, he.Name)
	assert.Equal(t, code, he.Code, "message: %s", he.Message)
	assert.NotEmpty(t, he.Message)
	assert.Equal(t, string(he.JSON()), string(agent.ErrorJSON(err)), "the model receives the core's bytes")
	return he
}

// requireSituation checks that err is the core's error for f, byte for byte.
func requireSituation(t *testing.T, err error, f askcore.Failure) {
	t.Helper()
	want := askcore.NewCore(nil).Fail(context.Background(), f)
	he := requireHarness(t, err, want.Name, want.Code)
	assert.Equal(t, string(want.JSON()), string(he.JSON()))
}

func requireErrorMessage(t *testing.T, msg agent.Message, name string, code askcore.Code) {
	t.Helper()
	assert.Equal(t, agent.RoleTool, msg.Role)
	assert.True(t, msg.IsError)
	var obj map[string]string
	require.NoError(t, json.Unmarshal([]byte(msg.Content), &obj), msg.Content)
	assert.Equal(t, name, obj["name"])
	assert.Equal(t, string(code), obj["code"])
	assert.NotEmpty(t, obj["message"])
	assert.Len(t, obj, 3, "exactly {name, code, message}")
}

// askSetup is the real ask tool over the native core.
func askSetup(t *testing.T) (*interaction.Service, *agent.Registry) {
	t.Helper()
	spec, err := client.Schema(context.Background())
	require.NoError(t, err)
	svc := interaction.NewService(client)
	reg, err := agent.NewRegistry(client, agent.NewAskTool(svc, spec))
	require.NoError(t, err)
	return svc, reg
}

// typing answers every question by resolving the next line of lines.
func typing(lines ...string) interaction.ProviderFunc {
	var mu sync.Mutex
	return func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		mu.Lock()
		line := lines[0]
		lines = lines[1:]
		mu.Unlock()
		return client.ResolveAll(ctx, q.Raw, []engine.Input{{Line: line}})
	}
}

// ---- Registry ----

func TestRegistryKeepsOrderAndRejectsDuplicates(t *testing.T) {
	reg, err := agent.NewRegistry(client, echo("b"), echo("a"), echo("c"))
	require.NoError(t, err)
	var names []string
	for _, s := range reg.Specs() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"b", "a", "c"}, names)

	_, err = agent.NewRegistry(client, echo("a"), echo("b"), echo("a"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"a"`)

	_, err = agent.NewRegistry(client, echo(""))
	require.Error(t, err)
	_, err = agent.NewRegistry(client, nil)
	require.Error(t, err)
	_, err = agent.NewRegistry(engine.Client{}, echo("a"))
	require.Error(t, err, "the core writes the registry's failures: it needs an engine")
}

// countingCore counts the fail envelopes sent to the native core, to show
// that the registry's failures come from its engine.
type countingCore struct{ fails atomic.Int32 }

func (c *countingCore) Handle(ctx context.Context, in []byte) ([]byte, error) {
	if bytes.Contains(in, []byte(`"op":"fail"`)) {
		c.fails.Add(1)
	}
	return engine.Native{}.Handle(ctx, in)
}

func TestExecuteUnknownToolIsTheCoresError(t *testing.T) {
	counter := &countingCore{}
	reg, err := agent.NewRegistry(engine.Client{Core: counter}, echo("a"), echo("b"))
	require.NoError(t, err)
	_, err = reg.Execute(context.Background(), "nope\x1b[2J", agent.Call{ID: "1", Arguments: json.RawMessage(`{}`)})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "nope\x1b[2J", Tools: []string{"a", "b"}})
	assert.Equal(t, int32(1), counter.fails.Load(), "written by the registry's engine")
	assert.Equal(t, askcore.ToolErrorName, agent.AsHarnessError(err).Name)

	var nilReg *agent.Registry
	_, err = nilReg.Execute(context.Background(), "a", agent.Call{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "a"})
	assert.Nil(t, nilReg.Specs())
}

func TestExecuteKeepsToolErrorsStructured(t *testing.T) {
	declined := client.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationDeclined})
	reg, err := agent.NewRegistry(client,
		fakeTool{name: "harness", run: func(context.Context, agent.Call) (json.RawMessage, error) {
			return nil, fmt.Errorf("wrapped: %w", declined)
		}},
		fakeTool{name: "plain", run: func(context.Context, agent.Call) (json.RawMessage, error) {
			return nil, errors.New("disk full")
		}},
		fakeTool{name: "panics", run: func(context.Context, agent.Call) (json.RawMessage, error) {
			panic("boom")
		}},
	)
	require.NoError(t, err)
	ctx := context.Background()

	_, err = reg.Execute(ctx, "harness", agent.Call{})
	he := requireHarness(t, err, askcore.ErrorName, askcore.CodeAskDeclined)
	assert.Same(t, declined, he)

	_, err = reg.Execute(ctx, "plain", agent.Call{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationToolFailed, Tool: "plain", Detail: "disk full"})

	_, err = reg.Execute(ctx, "panics", agent.Call{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationToolFailed, Tool: "panics", Detail: "boom"})
}

// ErrorJSON returns the core's bytes: an error quoting <a> reaches the
// model as <a>, not as encoding/json's \u003ca\u003e.
func TestErrorJSONIsTheCoresBytes(t *testing.T) {
	_, err := client.NormalizeArguments(context.Background(), `{"question":"Q?","options":["<a>","<A>"]}`)
	he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
	assert.Equal(t, string(he.Raw), string(agent.ErrorJSON(err)))
	assert.Equal(t, string(he.Raw), string(agent.ErrorJSON(fmt.Errorf("wrapped: %w", err))))
	assert.Contains(t, string(agent.ErrorJSON(err)), `<A>`)
	assert.NotContains(t, string(agent.ErrorJSON(err)), `\u003c`)

	// An error that is not the core's becomes its tool_failed situation.
	assert.Equal(t, askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationToolFailed, Detail: "x"}), agent.AsHarnessError(errors.New("x")))
	assert.Equal(t, string(askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationToolFailed, Detail: "x"}).JSON()),
		string(agent.ErrorJSON(errors.New("x"))))
	assert.Nil(t, agent.AsHarnessError(nil))
	assert.Nil(t, agent.ErrorJSON(nil))
}

// ---- The ask tool ----

func TestAskToolSpecComesFromTheCore(t *testing.T) {
	_, reg := askSetup(t)
	specs := reg.Specs()
	require.Len(t, specs, 1)
	assert.Equal(t, agent.AskToolName, specs[0].Name)
	assert.NotEmpty(t, specs[0].Description)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(specs[0].Parameters, &schema))
	assert.Equal(t, "object", schema["type"])
}

func TestAskToolThroughExecute(t *testing.T) {
	svc, reg := askSetup(t)
	ctx := context.Background()
	req := json.RawMessage(`{"question":"Which?","options":[{"label":"Alpha","value":"a"},{"label":"Beta","value":"b","recommended":true}]}`)

	// Nobody registered: NO_PROVIDER, never an empty answer.
	res, err := reg.Execute(ctx, agent.AskToolName, agent.Call{ID: "c1", Arguments: req})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
	assert.Nil(t, res)

	var from interaction.Identity
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		from = q.From
		return client.ResolveAll(ctx, q.Raw, []engine.Input{{Line: "alpha"}})
	}))
	require.NoError(t, err)
	defer dispose()

	id := interaction.Identity{AgentID: "ag", SessionID: "s", ToolCallID: "c2"}
	res, err = reg.Execute(ctx, agent.AskToolName, agent.Call{ID: "c2", Arguments: req, From: id})
	require.NoError(t, err)
	assert.Equal(t, id, from)
	assert.JSONEq(t, `{"answer":"a","selected":{"index":0,"label":"Alpha","value":"a"}}`, string(res))

	// The arguments reach the core as the text the model wrote, valid
	// JSON or not: the core's verdict names offsets inside that text.
	for args, want := range map[string]string{
		`{"question": "oops`:                             "at byte 18 of 18",
		`{"question":"Q?","options":["a","b"]},"junk":1`: "at byte 37 of 46",
		"":   "the arguments are empty",
		"  ": "the arguments are empty",
	} {
		_, err = reg.Execute(ctx, agent.AskToolName, agent.Call{ID: "c4", Arguments: json.RawMessage(args)})
		he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
		assert.Contains(t, he.Message, want, "arguments %q", args)
	}
}

func TestAskToolTimeoutOptIn(t *testing.T) {
	spec, err := client.Schema(context.Background())
	require.NoError(t, err)
	svc := interaction.NewService(client)
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		<-ctx.Done()
		return engine.Result{}, ctx.Err()
	}))
	require.NoError(t, err)
	defer dispose()
	tool := &agent.AskTool{Service: svc, ToolSpec: spec, Timeout: 10 * time.Millisecond}
	_, err = tool.Execute(context.Background(), agent.Call{Arguments: json.RawMessage(`{"question":"q?"}`)})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 10})
}

// ---- The loop ----

func call(id, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: agent.AskToolName, Arguments: json.RawMessage(args)}
}

func TestLoopAnswerAndErrorReachTheModelAndTheLoopGoesOn(t *testing.T) {
	svc, reg := askSetup(t)
	dispose, err := svc.Register(typing("1", "anything")) // 1: the first displayed option (recommended first)
	require.NoError(t, err)
	defer dispose()

	m := replies(
		agent.Reply{Content: "Let me ask.", ToolCalls: []agent.ToolCall{call("q1",
			`{"question":"Which database?","options":[{"label":"SQLite","value":"sqlite"},{"label":"Postgres","value":"pg","description":"server","recommended":true}]}`)}},
		// Second step: an invalid request (duplicate labels) and an unknown tool in one reply.
		agent.Reply{ToolCalls: []agent.ToolCall{
			call("q2", `{"question":"Again?","options":[{"label":"A"},{"label":"A"}]}`),
			{ID: "q3", Name: "no_such_tool", Arguments: json.RawMessage(`{}`)},
		}},
		agent.Reply{Content: "All done."},
	)
	var events []string
	a := &agent.Agent{ID: "agent-7", SessionID: "sess-7", Model: m, Tools: reg, System: "be brief", Hooks: agent.Hooks{
		OnText:     func(text string) { events = append(events, "text:"+text) },
		OnToolCall: func(c agent.ToolCall) { events = append(events, "call:"+c.ID) },
		OnToolResult: func(c agent.ToolCall, res json.RawMessage, err error) {
			if err != nil {
				events = append(events, "error:"+c.ID+":"+string(agent.AsHarnessError(err).Code))
			} else {
				events = append(events, "result:"+c.ID)
			}
		},
	}}
	require.NoError(t, a.Run(context.Background(), "set up the project"))

	assert.Equal(t, []string{
		"text:Let me ask.", "call:q1", "result:q1",
		"call:q2", "error:q2:INVALID_REQUEST", "call:q3", "error:q3:UNKNOWN_TOOL",
		"text:All done.",
	}, events)

	require.Len(t, m.calls, 3)
	assert.Equal(t, agent.AskToolName, m.tools[0][0].Name, "the model is offered the ask tool")

	h := a.History
	require.Len(t, h, 8)
	assert.Equal(t, agent.Message{Role: agent.RoleSystem, Content: "be brief"}, h[0])
	assert.Equal(t, agent.Message{Role: agent.RoleUser, Content: "set up the project"}, h[1])
	assert.Equal(t, agent.RoleAssistant, h[2].Role)
	// The option's label is what was shown, its value what the model receives.
	assert.Equal(t, agent.RoleTool, h[3].Role)
	assert.Equal(t, "q1", h[3].ToolCallID)
	assert.Equal(t, agent.AskToolName, h[3].ToolName)
	assert.False(t, h[3].IsError)
	assert.JSONEq(t, `{"answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"}}`, h[3].Content)
	assert.Len(t, h[4].ToolCalls, 2)
	requireErrorMessage(t, h[5], askcore.ErrorName, askcore.CodeInvalidRequest)
	assert.Equal(t, "q2", h[5].ToolCallID)
	requireErrorMessage(t, h[6], askcore.ToolErrorName, askcore.CodeUnknownTool)
	assert.Equal(t, string(askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "no_such_tool", Tools: []string{agent.AskToolName}}).JSON()),
		h[6].Content, "the model receives the core's bytes")
	assert.Equal(t, "q3", h[6].ToolCallID)
	assert.Equal(t, agent.Message{Role: agent.RoleAssistant, Content: "All done."}, h[7])

	// The model saw the tool results before its next reply.
	assert.Len(t, m.calls[1], 4)
	assert.Len(t, m.calls[2], 7)

	// A second Run continues the same conversation; the system prompt is not repeated.
	require.NoError(t, a.Run(context.Background(), "thanks"))
	assert.Len(t, a.History, 10)
	assert.Equal(t, agent.RoleUser, a.History[8].Role)
}

func TestLoopPassesIdentityToTheProvider(t *testing.T) {
	svc, reg := askSetup(t)
	var got interaction.Identity
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		got = q.From
		return client.ResolveAll(ctx, q.Raw, []engine.Input{{Line: "yes"}})
	}))
	require.NoError(t, err)
	defer dispose()
	a := &agent.Agent{ID: "A", SessionID: "S", Tools: reg, Model: replies(agent.Reply{ToolCalls: []agent.ToolCall{call("tc-9", `{"question":"ok?"}`)}})}
	require.NoError(t, a.Run(context.Background(), "go"))
	assert.Equal(t, interaction.Identity{AgentID: "A", SessionID: "S", ToolCallID: "tc-9"}, got)
}

func TestLoopNoProviderIsAnErrorResultNotAnAnswer(t *testing.T) {
	_, reg := askSetup(t)
	a := &agent.Agent{Tools: reg, Model: replies(agent.Reply{ToolCalls: []agent.ToolCall{call("c", `{"question":"ok?"}`)}})}
	require.NoError(t, a.Run(context.Background(), "go"))
	require.Len(t, a.History, 4)
	requireErrorMessage(t, a.History[2], askcore.ErrorName, askcore.CodeNoProvider)
}

func TestCancelMidQuestion(t *testing.T) {
	svc, reg := askSetup(t)
	started := make(chan struct{})
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		close(started)
		<-ctx.Done()
		return engine.Result{}, ctx.Err()
	}))
	require.NoError(t, err)
	defer dispose()

	m := replies(agent.Reply{ToolCalls: []agent.ToolCall{call("c1", `{"question":"first?"}`), call("c2", `{"question":"second?"}`)}})
	var results []string
	a := &agent.Agent{Tools: reg, Model: m, Hooks: agent.Hooks{OnToolResult: func(c agent.ToolCall, _ json.RawMessage, err error) {
		results = append(results, c.ID+":"+string(agent.AsHarnessError(err).Code))
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	err = a.Run(ctx, "go")
	require.ErrorIs(t, err, context.Canceled)

	assert.Equal(t, []string{"c1:ASK_ABORTED"}, results, "the second call never ran")
	assert.Len(t, m.calls, 1, "the model is not called after cancellation")
	h := a.History
	require.Len(t, h, 4, "every tool call keeps its tool message")
	requireErrorMessage(t, h[2], askcore.ErrorName, askcore.CodeAskAborted)
	assert.Equal(t, "c1", h[2].ToolCallID)
	requireErrorMessage(t, h[3], askcore.ToolErrorName, askcore.CodeToolCancelled)
	assert.Equal(t, string(askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationToolCancelled}).JSON()), h[3].Content)
	assert.Equal(t, "c2", h[3].ToolCallID)
}

func TestCancelDuringModelCall(t *testing.T) {
	started := make(chan struct{})
	m := &recorder{f: func(ctx context.Context, _ int, _ []agent.Message) (agent.Reply, error) {
		close(started)
		<-ctx.Done()
		return agent.Reply{}, fmt.Errorf("transport: %w", ctx.Err())
	}}
	a := &agent.Agent{Model: m}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	require.ErrorIs(t, a.Run(ctx, "hi"), context.Canceled)
}

func TestDeadlineAndAlreadyCancelled(t *testing.T) {
	m := &recorder{f: func(ctx context.Context, _ int, _ []agent.Message) (agent.Reply, error) {
		<-ctx.Done()
		return agent.Reply{}, errors.New("gave up") // not even wrapping ctx's error
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, (&agent.Agent{Model: m}).Run(ctx, "hi"), context.DeadlineExceeded)

	done, cancel2 := context.WithCancelCause(context.Background())
	cancel2(errors.New("session closed"))
	err := (&agent.Agent{Model: m}).Run(done, "hi")
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "session closed")
}

func TestModelErrorIsReturnedAsIs(t *testing.T) {
	boom := errors.New("HTTP 500")
	m := &recorder{f: func(context.Context, int, []agent.Message) (agent.Reply, error) { return agent.Reply{}, boom }}
	a := &agent.Agent{Model: m}
	require.Same(t, boom, a.Run(context.Background(), "hi"))
}

func TestMaxSteps(t *testing.T) {
	reg, err := agent.NewRegistry(client, echo("loop"))
	require.NoError(t, err)
	m := &recorder{f: func(_ context.Context, step int, _ []agent.Message) (agent.Reply, error) {
		return agent.Reply{ToolCalls: []agent.ToolCall{{ID: fmt.Sprint(step), Name: "loop", Arguments: json.RawMessage(`{}`)}}}, nil
	}}
	a := &agent.Agent{Model: m, Tools: reg, MaxSteps: 3}
	require.ErrorIs(t, a.Run(context.Background(), "hi"), agent.ErrMaxSteps)
	assert.Len(t, m.calls, 3)
	last := a.History[len(a.History)-1]
	assert.Equal(t, agent.RoleTool, last.Role, "history stays valid")
}

func TestBlankTextIsNotReported(t *testing.T) {
	var texts []string
	a := &agent.Agent{Model: replies(agent.Reply{Content: "  \n"}), Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
	require.NoError(t, a.Run(context.Background(), "hi"))
	assert.Empty(t, texts)
	assert.Len(t, a.History, 2)
}
