package frontdoor_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/frontdoor/openaimodel"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/testing/leaktest"
	"github.com/askcore/askcore/internal/testing/pgtest"
	"github.com/askcore/askcore/model/openai"
	"github.com/askcore/askcore/model/script"
)

// TestMain starts one PostgreSQL cluster for the package's tests that run
// on both stores (hubtest.EachStore).
func TestMain(m *testing.M) { leaktest.VerifyTestMain(pgtest.Run{M: m}) }

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestAddFlags(t *testing.T) {
	var s frontdoor.Settings
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	s.AddFlags(fs)
	require.NoError(t, fs.Parse(nil))
	assert.Equal(t, frontdoor.Settings{Engine: "wasm"}, s)

	var s2 frontdoor.Settings
	fs2 := flag.NewFlagSet("x", flag.ContinueOnError)
	s2.AddFlags(fs2)
	require.NoError(t, fs2.Parse([]string{"--script", "demo.jsonl", "--engine", "native"}))
	assert.Equal(t, frontdoor.Settings{Script: "demo.jsonl", Engine: "native"}, s2)

	// AddEngineFlag registers --engine alone, keeping a default set before.
	s3 := frontdoor.Settings{Engine: frontdoor.EngineNative}
	fs3 := flag.NewFlagSet("x", flag.ContinueOnError)
	s3.AddEngineFlag(fs3)
	assert.Nil(t, fs3.Lookup("script"))
	require.NotNil(t, fs3.Lookup("engine"))
	assert.Equal(t, "native", fs3.Lookup("engine").DefValue)
	require.NoError(t, fs3.Parse([]string{"--engine", "wasm"}))
	assert.Equal(t, frontdoor.Settings{Engine: frontdoor.EngineWasm}, s3)
	fs4 := flag.NewFlagSet("x", flag.ContinueOnError)
	fs4.SetOutput(io.Discard)
	s3.AddEngineFlag(fs4)
	require.Error(t, fs4.Parse([]string{"--script", "x.jsonl"}), "no --script without a model")
}

func TestVersion(t *testing.T) {
	v := frontdoor.Version()
	assert.NotEmpty(t, v)
	assert.Equal(t, v, strings.TrimSpace(v))
	assert.Equal(t, v, frontdoor.Version(), "the same on every call")
	// A test binary has no module version of its own, but its commit is
	// the checkout's when built in one.
	assert.Regexp(t, `^([0-9a-f]{12}(-dirty)?|unknown)$`, frontdoor.Commit())
	assert.Equal(t, "x "+v+" ("+frontdoor.Commit()+")", frontdoor.VersionLine("x"))
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func TestModelChoice(t *testing.T) {
	path := writeScript(t, `{"content":"scripted"}`)
	all := map[string]string{
		"DEEPSEEK_API_KEY": "ds", "OPENAI_API_KEY": "oa",
		"OPENAI_BASE_URL": "http://localhost:1/v1", "OPENAI_MODEL": "local-model",
	}

	m, src, err := frontdoor.Settings{Script: path, FromEnv: openaimodel.FromEnv}.Model(env(all))
	require.NoError(t, err)
	assert.Equal(t, frontdoor.SourceScript, src, "an explicit --script wins over keys")
	r, err := m.Complete(context.Background(), nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "scripted", r.Content)

	m, src, err = frontdoor.Settings{FromEnv: openaimodel.FromEnv}.Model(env(all))
	require.NoError(t, err)
	assert.Equal(t, frontdoor.SourceDeepSeek, src)
	om := m.(*openai.Model)
	assert.Equal(t, openai.DeepSeekBaseURL, om.BaseURL())
	assert.Equal(t, "deepseek-chat", om.Name())

	delete(all, "DEEPSEEK_API_KEY")
	m, src, err = frontdoor.Settings{FromEnv: openaimodel.FromEnv}.Model(env(all))
	require.NoError(t, err)
	assert.Equal(t, frontdoor.SourceOpenAI, src)
	om = m.(*openai.Model)
	assert.Equal(t, "http://localhost:1/v1", om.BaseURL())
	assert.Equal(t, "local-model", om.Name())

	m, src, err = frontdoor.Settings{FromEnv: openaimodel.FromEnv}.Model(env(map[string]string{"OPENAI_API_KEY": "oa"}))
	require.NoError(t, err)
	assert.Equal(t, frontdoor.SourceOpenAI, src)
	om = m.(*openai.Model)
	assert.Equal(t, openai.OpenAIBaseURL, om.BaseURL())
	assert.Equal(t, openai.OpenAIModel, om.Name())

	for _, getenv := range []func(string) string{env(nil), nil} {
		m, src, err = frontdoor.Settings{FromEnv: openaimodel.FromEnv}.Model(getenv)
		require.NoError(t, err)
		assert.Equal(t, frontdoor.SourceDemo, src)
		assert.IsType(t, &script.Model{}, m)
	}

	// Without FromEnv (a front door with no HTTP model client) the keys
	// are not read: the demo.
	m, src, err = frontdoor.Settings{}.Model(env(all))
	require.NoError(t, err)
	assert.Equal(t, frontdoor.SourceDemo, src)
	assert.IsType(t, &script.Model{}, m)
}

func TestModelScriptErrors(t *testing.T) {
	_, _, err := frontdoor.Settings{Script: filepath.Join(t.TempDir(), "missing.jsonl")}.Model(env(nil))
	require.Error(t, err)
	_, _, err = frontdoor.Settings{Script: writeScript(t, "{\"content\":\"a\"}\n{bad\n")}.Model(env(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2")
}

func TestOpen(t *testing.T) {
	c, closeFn, err := frontdoor.Settings{Engine: "native"}.Open(context.Background())
	require.NoError(t, err)
	assert.Equal(t, askcore.Native{}, c.Engine())
	require.NoError(t, closeFn(context.Background()))

	_, _, err = frontdoor.Settings{Engine: "gpu"}.Open(context.Background())
	require.Error(t, err)
}

func TestOpenEngine(t *testing.T) {
	ctx := context.Background()
	e, closeFn, err := frontdoor.OpenEngine(ctx, frontdoor.EngineNative)
	require.NoError(t, err)
	assert.Equal(t, askcore.Native{}, e)
	require.NoError(t, closeFn(ctx))

	_, _, err = frontdoor.OpenEngine(ctx, "gpu")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"gpu"`)

	// The wasm engine, by name or by default, writes the native core's
	// bytes.
	want, err := askcore.Native{}.Handle(ctx, []byte(`{"op":"schema"}`))
	require.NoError(t, err)
	for _, name := range []string{frontdoor.EngineWasm, ""} {
		e, closeFn, err := frontdoor.OpenEngine(ctx, name, hostgo.WithPoolSize(1))
		require.NoError(t, err, "engine %q", name)
		assert.IsType(t, &hostgo.Engine{}, e, "engine %q", name)
		got, err := e.Handle(ctx, []byte(`{"op":"schema"}`))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "engine %q", name)
		require.NoError(t, closeFn(ctx))
		_, err = e.Handle(ctx, []byte(`{"op":"schema"}`))
		assert.Error(t, err, "engine %q: closed", name)
	}
}

func TestBuildWiresEverything(t *testing.T) {
	ctx := context.Background()
	rt, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: "native"}, env(nil))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()

	assert.Equal(t, frontdoor.SourceDemo, rt.Source)
	assert.Contains(t, rt.ModelInfo, "demo")
	assert.IsType(t, &script.Model{}, rt.Model)
	assert.Same(t, rt.Core, rt.Service.Core(), "the seam runs on the runtime's core")
	assert.Same(t, rt.Core, rt.Tools.Core(), "the registry's failures too")
	tools := rt.Tools.Tools()
	require.Len(t, tools, 1)
	want, err := rt.Core.Tool(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, tools[0], "the ask tool, as the core describes it")
	assert.Equal(t, askcore.ToolName, tools[0].Name)

	// Build registers no provider: a question fails fast.
	_, err = rt.Tools.Execute(ctx, agent.ToolCall{Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"q?"}`)}, askcore.Identity{})
	var he *askcore.Error
	require.True(t, errors.As(err, &he))
	assert.Equal(t, askcore.CodeNoProvider, he.Code)
	// An unknown tool is written by the same engine.
	_, err = rt.Tools.Execute(ctx, agent.ToolCall{Name: "nope"}, askcore.Identity{})
	require.True(t, errors.As(err, &he))
	assert.Equal(t, askcore.CodeUnknownTool, he.Code)

	// A front door registers its provider and runs one agent per
	// conversation. The person types one line per question: the second
	// option shown, with notes for the layout.
	var from askcore.Identity
	dispose, err := rt.Service.Register(askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
		from = call.From
		lines := make([]string, len(call.Questions))
		for i, q := range call.Questions {
			lines[i] = "2"
			if q.Header == "Layout" {
				lines[i] = "2 // my notes"
			}
		}
		return askcore.Lines(lines...), nil
	}))
	require.NoError(t, err)
	defer dispose()

	var texts []string
	a := rt.NewAgent("agent-1", "session-1", agent.Hooks{OnText: func(s string) { texts = append(texts, s) }})
	assert.Equal(t, rt.System, a.System)
	assert.Same(t, rt.Tools, a.Tools)
	assert.Equal(t, rt.Model, a.Model)
	require.NoError(t, a.Run(ctx, "hello"))
	assert.Equal(t, "agent-1", from.AgentID)
	assert.Equal(t, "session-1", from.SessionID)
	assert.NotEmpty(t, from.ToolCallID)
	require.Len(t, texts, 3)
	assert.Contains(t, texts[1], "says: typescript; metrics.", "the batch's answers reached the model")
	assert.Contains(t, texts[2], `Noted: by-layer. Your notes: "my notes".`)

	require.NoError(t, rt.Close(ctx))
	require.NoError(t, rt.Close(ctx), "Close twice is fine")
}

// Settings.Timeout reaches the ask tool Build registers: a question nobody
// answers ends with ASK_TIMEOUT, as the core words it.
func TestBuildTimeout(t *testing.T) {
	ctx := context.Background()
	rt, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: "native", Timeout: 20 * time.Millisecond}, env(nil))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	dispose, err := rt.Service.Register(askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		<-ctx.Done()
		return askcore.Reply{}, ctx.Err()
	}))
	require.NoError(t, err)
	defer dispose()
	_, err = rt.Tools.Execute(ctx, agent.ToolCall{Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"q?"}`)}, askcore.Identity{})
	want := rt.Core.Fail(ctx, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 20})
	assert.Equal(t, string(want.JSON()), string(askcore.ErrorJSON(err)))
}

func TestBuildErrors(t *testing.T) {
	ctx := context.Background()
	_, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: "gpu"}, env(nil))
	require.Error(t, err)
	_, err = frontdoor.Build(ctx, frontdoor.Settings{Engine: "native", Script: "/nonexistent/x.jsonl"}, env(nil))
	require.Error(t, err)
}

// TestBuildDefaultEngineIsWasm builds with the default engine (the
// WebAssembly core under wazero) and checks that the model sees the same
// tool as with the native core.
func TestBuildDefaultEngineIsWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the WebAssembly core")
	}
	ctx := context.Background()
	var s frontdoor.Settings
	s.AddFlags(flag.NewFlagSet("x", flag.ContinueOnError))
	rt, err := frontdoor.Build(ctx, s, env(nil))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	assert.NotEqual(t, askcore.Native{}, rt.Core.Engine(), "the wasm engine (opened at its first call)")

	want, err := askcore.NewCore(nil).Tool(ctx)
	require.NoError(t, err)
	assert.Equal(t, []askcore.Tool{want}, rt.Tools.Tools())
}

// The system prompt says when to ask and leaves every rule of the tool to
// the core's own description, which it quotes whole: it cannot contradict
// the tool the model is given (it once said free text was allowed unless
// allowCustom was false, while the core's default is false).
func TestSystemPromptIsDerivedFromTheCoresDescription(t *testing.T) {
	ctx := context.Background()
	rt, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: "native"}, env(nil))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	tool, err := rt.Core.Tool(ctx)
	require.NoError(t, err)

	prompt := rt.System
	assert.Equal(t, frontdoor.SystemPrompt(tool), prompt)
	require.True(t, strings.HasSuffix(prompt, tool.Description), "the core's description, whole, ends the prompt")
	preamble := strings.TrimSuffix(prompt, tool.Description)
	assert.Contains(t, preamble, "ask_user_question")
	assert.Contains(t, preamble, "instead of guessing")
	assert.Contains(t, preamble, "Never invent an answer")
	var params struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(tool.Parameters, &params))
	require.Contains(t, params.Properties, "allowCustom")
	claims := strings.ReplaceAll(preamble, tool.Name, "") // the tool's name is not a claim about its fields
	for field := range params.Properties {
		assert.NotContains(t, claims, field, "the preamble claims something about %s: that is the core's to say", field)
	}
	for _, code := range []askcore.Code{askcore.CodeInvalidRequest, askcore.CodeAskDeclined, askcore.CodeAskCancelled, askcore.CodeNoProvider, askcore.CodeAskAborted} {
		assert.NotContains(t, preamble, string(code), "the preamble explains an error code: that is the core's to say")
	}
	assert.NotContains(t, preamble, "recommended")
	assert.NotContains(t, strings.ToLower(preamble), "free text")
}
