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

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/internal/testing/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// native is the core the tests run on unless they say otherwise.
var native = askcore.NewCore(nil)

// modelFunc adapts a function to agent.Model and records what it saw.
type modelFunc func(ctx context.Context, step int, messages []agent.Message) (agent.Reply, error)

type recorder struct {
	mu    sync.Mutex
	f     modelFunc
	calls [][]agent.Message
	tools [][]askcore.Tool
}

func (r *recorder) Complete(ctx context.Context, messages []agent.Message, tools []askcore.Tool) (agent.Reply, error) {
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

// testTool is a tool with a fixed description.
func testTool(name string) askcore.Tool {
	return askcore.Tool{Name: name, Description: "test tool " + name, Parameters: json.RawMessage(`{"type":"object"}`)}
}

// echo returns the call's arguments as its result.
func echo(_ context.Context, call agent.ToolCall, _ askcore.Identity) (json.RawMessage, error) {
	return call.Arguments, nil
}

// echoRegistry is a registry on c holding an echo tool per name.
func echoRegistry(t *testing.T, c *askcore.Core, names ...string) *agent.Registry {
	t.Helper()
	reg := agent.NewRegistry(c)
	for _, name := range names {
		require.NoError(t, reg.Add(testTool(name), echo))
	}
	return reg
}

func requireHarness(t *testing.T, err error, name string, code askcore.Code) *askcore.Error {
	t.Helper()
	require.Error(t, err)
	var he *askcore.Error
	require.True(t, errors.As(err, &he), "want *askcore.Error, got %T: %v", err, err)
	assert.Equal(t, name, he.Name)
	assert.Equal(t, code, he.Code, "message: %s", he.Message)
	assert.NotEmpty(t, he.Message)
	assert.Equal(t, string(he.JSON()), string(askcore.ErrorJSON(err)), "the model receives the core's bytes")
	return he
}

// requireSituation checks that err is the core's error for f, byte for byte.
func requireSituation(t *testing.T, err error, f askcore.Failure) {
	t.Helper()
	want := native.Fail(context.Background(), f)
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
func askSetup(t *testing.T) (*askcore.Service, *agent.Registry) {
	t.Helper()
	svc := askcore.NewService(native)
	reg := agent.NewRegistry(native)
	require.NoError(t, reg.AddAsk(context.Background(), svc, 0))
	return svc, reg
}

// typing answers every question with the next line of lines, as a person
// typing them; the seam has the core resolve each.
func typing(lines ...string) askcore.ProviderFunc {
	var mu sync.Mutex
	return func(context.Context, *askcore.Call) (askcore.Reply, error) {
		mu.Lock()
		line := lines[0]
		lines = lines[1:]
		mu.Unlock()
		return askcore.Lines(line), nil
	}
}

// ---- Registry ----

func TestRegistryKeepsOrderAndRejectsDuplicates(t *testing.T) {
	reg := echoRegistry(t, native, "b", "a", "c")
	var names []string
	for _, s := range reg.Tools() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"b", "a", "c"}, names)
	assert.Equal(t, testTool("a"), reg.Tools()[1], "a tool is offered as it was added")
	reg.Tools()[0].Name = "mutated"
	assert.Equal(t, "b", reg.Tools()[0].Name, "Tools returns a copy")

	err := reg.Add(testTool("a"), echo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"a"`)
	assert.Len(t, reg.Tools(), 3, "a rejected tool is not added")

	require.Error(t, reg.Add(testTool(""), echo))
	require.Error(t, reg.Add(testTool("d"), nil))
	assert.Len(t, reg.Tools(), 3)

	var nilReg *agent.Registry
	require.Error(t, nilReg.Add(testTool("a"), echo))
}

// A registry made without a core has the native core write its failures.
func TestRegistryWithoutCoreUsesTheNativeCore(t *testing.T) {
	reg := agent.NewRegistry(nil)
	require.NotNil(t, reg.Core())
	assert.Equal(t, askcore.Native{}, reg.Core().Engine())
	_, err := reg.Execute(context.Background(), agent.ToolCall{Name: "x"}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "x", Tools: []string{}})

	c := askcore.NewCore(&countingEngine{})
	assert.Same(t, c, agent.NewRegistry(c).Core())
}

// countingEngine counts the fail envelopes sent to the native core, to
// show that the registry's failures come from its core.
type countingEngine struct{ fails atomic.Int32 }

func (c *countingEngine) Handle(ctx context.Context, in []byte) ([]byte, error) {
	if bytes.Contains(in, []byte(`"op":"fail"`)) {
		c.fails.Add(1)
	}
	return askcore.Native{}.Handle(ctx, in)
}

func TestExecuteUnknownToolIsTheCoresError(t *testing.T) {
	counter := &countingEngine{}
	reg := echoRegistry(t, askcore.NewCore(counter), "a", "b")
	_, err := reg.Execute(context.Background(), agent.ToolCall{ID: "1", Name: "nope\x1b[2J", Arguments: json.RawMessage(`{}`)}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "nope\x1b[2J", Tools: []string{"a", "b"}})
	assert.Equal(t, int32(1), counter.fails.Load(), "written by the registry's core")
	assert.Equal(t, askcore.ToolErrorName, askcore.AsError(err).Name)

	var nilReg *agent.Registry
	_, err = nilReg.Execute(context.Background(), agent.ToolCall{Name: "a"}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "a"})
	assert.Nil(t, nilReg.Tools())
	assert.NotNil(t, nilReg.Core(), "a nil registry still has a core to write its failures")
}

func TestExecuteKeepsToolErrorsStructured(t *testing.T) {
	declined := native.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationDeclined})
	reg := agent.NewRegistry(native)
	require.NoError(t, reg.Add(testTool("harness"), func(context.Context, agent.ToolCall, askcore.Identity) (json.RawMessage, error) {
		return nil, fmt.Errorf("wrapped: %w", declined)
	}))
	require.NoError(t, reg.Add(testTool("plain"), func(context.Context, agent.ToolCall, askcore.Identity) (json.RawMessage, error) {
		return nil, errors.New("disk full")
	}))
	require.NoError(t, reg.Add(testTool("panics"), func(context.Context, agent.ToolCall, askcore.Identity) (json.RawMessage, error) {
		panic("boom")
	}))
	ctx := context.Background()

	_, err := reg.Execute(ctx, agent.ToolCall{Name: "harness"}, askcore.Identity{})
	he := requireHarness(t, err, askcore.ErrorName, askcore.CodeAskDeclined)
	assert.Same(t, declined, he)

	_, err = reg.Execute(ctx, agent.ToolCall{Name: "plain"}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationToolFailed, Tool: "plain", Detail: "disk full"})

	_, err = reg.Execute(ctx, agent.ToolCall{Name: "panics"}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationToolFailed, Tool: "panics", Detail: "boom"})
}

// A handler receives the call and the identity Execute was given.
func TestExecutePassesTheCallAndTheIdentity(t *testing.T) {
	reg := agent.NewRegistry(native)
	var gotCall agent.ToolCall
	var gotFrom askcore.Identity
	require.NoError(t, reg.Add(testTool("t"), func(_ context.Context, call agent.ToolCall, from askcore.Identity) (json.RawMessage, error) {
		gotCall, gotFrom = call, from
		return json.RawMessage(`{"ok":true}`), nil
	}))
	call := agent.ToolCall{ID: "c", Name: "t", Arguments: json.RawMessage(`not json`)}
	from := askcore.Identity{AgentID: "a", SessionID: "s", ToolCallID: "c"}
	res, err := reg.Execute(context.Background(), call, from)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(res))
	assert.Equal(t, call, gotCall, "the arguments reach the tool as the model wrote them")
	assert.Equal(t, from, gotFrom)
}

// The model receives the core's bytes, from Execute and in the loop's tool
// message: an error quoting <A> is the core's verdict exactly as the core
// wrote it (the core escapes <, > and & as encoding/json does, so its
// bytes are a fixed point of json.Marshal), and its message quotes <A>.
func TestErrorJSONIsTheCoresBytes(t *testing.T) {
	_, reg := askSetup(t)
	ctx := context.Background()
	args := json.RawMessage(`{"question":"Q?","options":["<a>","<A>"]}`)
	_, err := reg.Execute(ctx, agent.ToolCall{ID: "c", Name: askcore.ToolName, Arguments: args}, askcore.Identity{})
	he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
	assert.Contains(t, he.Message, `"<A>"`)

	env, err2 := json.Marshal(map[string]string{"op": "normalize", "arguments": string(args)})
	require.NoError(t, err2)
	verdict, err2 := askcore.Native{}.Handle(ctx, env)
	require.NoError(t, err2)
	assert.Equal(t, `{"ok":false,"error":`+string(he.JSON())+`}`, string(verdict), "the core's verdict, byte for byte")
	assert.Equal(t, string(he.JSON()), string(askcore.ErrorJSON(fmt.Errorf("wrapped: %w", err))))
	marshalled, err2 := json.Marshal(he)
	require.NoError(t, err2)
	assert.Equal(t, string(he.JSON()), string(marshalled), "json.Marshal keeps the core's bytes")

	a := &agent.Agent{Tools: reg, Model: replies(agent.Reply{ToolCalls: []agent.ToolCall{{ID: "c", Name: askcore.ToolName, Arguments: args}}})}
	require.NoError(t, a.Run(ctx, "go"))
	require.Len(t, a.History, 4)
	assert.Equal(t, string(he.JSON()), a.History[2].Content)

	// An error that is not the core's becomes its tool_failed situation.
	toolFailed := native.Fail(ctx, askcore.Failure{Situation: askcore.SituationToolFailed, Detail: "x"})
	assert.Equal(t, toolFailed, askcore.AsError(errors.New("x")))
	assert.Equal(t, string(toolFailed.JSON()), string(askcore.ErrorJSON(errors.New("x"))))
	assert.Nil(t, askcore.AsError(nil))
	assert.Nil(t, askcore.ErrorJSON(nil))
}

// ---- The ask tool ----

func TestAskToolSpecComesFromTheCore(t *testing.T) {
	_, reg := askSetup(t)
	tools := reg.Tools()
	require.Len(t, tools, 1)
	want, err := native.Tool(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, tools[0], "the tool is offered as the core describes it")
	assert.Equal(t, askcore.ToolName, tools[0].Name)
	assert.NotEmpty(t, tools[0].Description)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(tools[0].Parameters, &schema))
	assert.Equal(t, "object", schema["type"])

	// A second ask tool is a duplicate.
	require.Error(t, reg.AddAsk(context.Background(), askcore.NewService(native), 0))
	assert.Len(t, reg.Tools(), 1)
}

// AddAsk reads the tool from the service's core: an engine that cannot
// answer is an error, and nothing is added.
func TestAddAskEngineFault(t *testing.T) {
	reg := agent.NewRegistry(native)
	svc := askcore.NewService(askcore.NewCore(brokenEngine{}))
	err := reg.AddAsk(context.Background(), svc, 0)
	require.Error(t, err)
	var ee *askcore.EngineError
	require.ErrorAs(t, err, &ee)
	assert.Empty(t, reg.Tools())
}

// brokenEngine fails every envelope, as a closed engine does.
type brokenEngine struct{}

func (brokenEngine) Handle(context.Context, []byte) ([]byte, error) {
	return nil, errors.New("the engine is closed")
}

func TestAskToolThroughExecute(t *testing.T) {
	svc, reg := askSetup(t)
	ctx := context.Background()
	req := json.RawMessage(`{"question":"Which?","options":[{"label":"Alpha","value":"a"},{"label":"Beta","value":"b","recommended":true}]}`)

	// Nobody registered: NO_PROVIDER, never an empty answer.
	res, err := reg.Execute(ctx, agent.ToolCall{ID: "c1", Name: askcore.ToolName, Arguments: req}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
	assert.Nil(t, res)

	var from askcore.Identity
	var asked *askcore.Call
	dispose, err := svc.Register(askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
		from, asked = call.From, call
		return askcore.Lines("alpha"), nil
	}))
	require.NoError(t, err)
	defer dispose()

	id := askcore.Identity{AgentID: "ag", SessionID: "s", ToolCallID: "c2"}
	res, err = reg.Execute(ctx, agent.ToolCall{ID: "c2", Name: askcore.ToolName, Arguments: req}, id)
	require.NoError(t, err)
	assert.Equal(t, id, from)
	require.NotNil(t, asked)
	require.Len(t, asked.Questions, 1)
	assert.Equal(t, "Which?", asked.Questions[0].Question, "the provider receives the call the core normalized")
	assert.JSONEq(t, `{"answer":"a","selected":{"index":0,"label":"Alpha","value":"a"}}`, string(res))

	// The arguments reach the core as the text the model wrote, valid
	// JSON or not: the core's verdict names offsets inside that text.
	for args, want := range map[string]string{
		`{"question": "oops`:                             "at byte 18 of 18",
		`{"question":"Q?","options":["a","b"]},"junk":1`: "at byte 37 of 46",
		"":   "the arguments are empty",
		"  ": "the arguments are empty",
	} {
		_, err = reg.Execute(ctx, agent.ToolCall{ID: "c4", Name: askcore.ToolName, Arguments: json.RawMessage(args)}, askcore.Identity{})
		he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
		assert.Contains(t, he.Message, want, "arguments %q", args)
	}
}

// A provider cannot forge the answer: an Answer it built itself is refused
// with the core's not_a_reply, and the model receives that error.
func TestAskToolRefusesAForgedAnswer(t *testing.T) {
	svc, reg := askSetup(t)
	dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		var forged askcore.Answer
		if err := json.Unmarshal([]byte(`{"answer":"x"}`), &forged); err != nil {
			return askcore.Reply{}, err
		}
		return askcore.Answered(forged), nil
	}))
	require.NoError(t, err)
	defer dispose()
	res, err := reg.Execute(context.Background(), agent.ToolCall{ID: "c", Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"q?"}`)}, askcore.Identity{})
	assert.Nil(t, res)
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNotAReply})
}

func TestAskToolTimeoutOptIn(t *testing.T) {
	svc := askcore.NewService(native)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		<-ctx.Done()
		return askcore.Reply{}, ctx.Err()
	}))
	require.NoError(t, err)
	defer dispose()
	ask := agent.AskHandler(svc, 10*time.Millisecond)
	_, err = ask(context.Background(), agent.ToolCall{Arguments: json.RawMessage(`{"question":"q?"}`)}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 10})

	// The same through AddAsk and Execute.
	reg := agent.NewRegistry(native)
	require.NoError(t, reg.AddAsk(context.Background(), svc, 10*time.Millisecond))
	_, err = reg.Execute(context.Background(), agent.ToolCall{Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"q?"}`)}, askcore.Identity{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 10})
}

// ---- The loop ----

func call(id, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: askcore.ToolName, Arguments: json.RawMessage(args)}
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
				events = append(events, "error:"+c.ID+":"+string(askcore.AsError(err).Code))
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
	want, err := native.Tool(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []askcore.Tool{want}, m.tools[0], "the model is offered the ask tool as the core describes it")

	h := a.History
	require.Len(t, h, 8)
	assert.Equal(t, agent.Message{Role: agent.RoleSystem, Content: "be brief"}, h[0])
	assert.Equal(t, agent.Message{Role: agent.RoleUser, Content: "set up the project"}, h[1])
	assert.Equal(t, agent.RoleAssistant, h[2].Role)
	// The option's label is what was shown, its value what the model receives.
	assert.Equal(t, agent.RoleTool, h[3].Role)
	assert.Equal(t, "q1", h[3].ToolCallID)
	assert.Equal(t, askcore.ToolName, h[3].ToolName)
	assert.False(t, h[3].IsError)
	assert.JSONEq(t, `{"answer":"pg","selected":{"index":1,"label":"Postgres","value":"pg"}}`, h[3].Content)
	assert.Len(t, h[4].ToolCalls, 2)
	requireErrorMessage(t, h[5], askcore.ErrorName, askcore.CodeInvalidRequest)
	assert.Equal(t, "q2", h[5].ToolCallID)
	requireErrorMessage(t, h[6], askcore.ToolErrorName, askcore.CodeUnknownTool)
	assert.Equal(t, string(native.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationUnknownTool, Tool: "no_such_tool", Tools: []string{askcore.ToolName}}).JSON()),
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
	var got askcore.Identity
	dispose, err := svc.Register(askcore.ProviderFunc(func(_ context.Context, c *askcore.Call) (askcore.Reply, error) {
		got = c.From
		return askcore.Lines("yes"), nil
	}))
	require.NoError(t, err)
	defer dispose()
	a := &agent.Agent{ID: "A", SessionID: "S", Tools: reg, Model: replies(agent.Reply{ToolCalls: []agent.ToolCall{call("tc-9", `{"question":"ok?"}`)}})}
	require.NoError(t, a.Run(context.Background(), "go"))
	assert.Equal(t, askcore.Identity{AgentID: "A", SessionID: "S", ToolCallID: "tc-9"}, got)
	assert.JSONEq(t, `{"answer":"yes"}`, a.History[2].Content)
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
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		close(started)
		<-ctx.Done()
		return askcore.Reply{}, ctx.Err()
	}))
	require.NoError(t, err)
	defer dispose()

	m := replies(agent.Reply{ToolCalls: []agent.ToolCall{call("c1", `{"question":"first?"}`), call("c2", `{"question":"second?"}`)}})
	var results []string
	a := &agent.Agent{Tools: reg, Model: m, Hooks: agent.Hooks{OnToolResult: func(c agent.ToolCall, _ json.RawMessage, err error) {
		results = append(results, c.ID+":"+string(askcore.AsError(err).Code))
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
	assert.Equal(t, string(native.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationToolCancelled}).JSON()), h[3].Content)
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

func TestNoModelIsAnError(t *testing.T) {
	a := &agent.Agent{}
	require.Error(t, a.Run(context.Background(), "hi"))
	assert.Empty(t, a.History, "nothing is recorded without a model")
}

func TestMaxSteps(t *testing.T) {
	reg := echoRegistry(t, native, "loop")
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
