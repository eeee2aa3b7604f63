package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/model/script"
)

// openCore opens the named engine for a test (wasm: the real module under
// wazero, with the default compilation cache) and returns a core on it.
func openCore(t *testing.T, name string) *askcore.Core {
	t.Helper()
	e, closeFn, err := frontdoor.OpenEngine(context.Background(), name)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, closeFn(context.Background())) })
	return askcore.NewCore(e)
}

// askTools is the ask tool on c, its failures written by c too.
func askTools(t *testing.T, c *askcore.Core) (*askcore.Service, *agent.Registry) {
	t.Helper()
	svc := askcore.NewService(c)
	reg := agent.NewRegistry(c)
	require.NoError(t, reg.AddAsk(context.Background(), svc, 0))
	return svc, reg
}

// hostileCalls are model tool calls a broken or hostile model writes. Each
// must reach the model as a structured error {name, code, message}, and the
// loop must go on to the next call and the next reply.
var hostileCalls = []struct {
	name, tool, args string // args: the arguments text, as the model wrote it
	errName          string
	code             askcore.Code
}{
	{"invalid JSON arguments", "ask_user_question", `{"question": `, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments not JSON at all", "ask_user_question", `question: which?`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments an array", "ask_user_question", `[{"question":"q"}]`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments a number", "ask_user_question", `42`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments a JSON string", "ask_user_question", `"{\"question\":\"q\"}"`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments null", "ask_user_question", `null`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments empty object", "ask_user_question", `{}`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments trailing garbage", "ask_user_question", `{"question":"q"} {"x":1}`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments depth bomb", "ask_user_question", `{"question":"q","x":` + strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000) + `}`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"arguments invalid UTF-8 in a key", "ask_user_question", "{\"quest\xffion\":\"q\"}", askcore.ErrorName, askcore.CodeInvalidRequest},
	{"thousands of options", "ask_user_question", manyOptions(5000), askcore.ErrorName, askcore.CodeInvalidRequest},
	{"zero-width duplicate labels", "ask_user_question", `{"question":"q","options":[{"label":"Yes"},{"label":"Ye\u200bs"}]}`, askcore.ErrorName, askcore.CodeInvalidRequest},
	{"unknown tool", "delete_everything", `{}`, askcore.ToolErrorName, askcore.CodeUnknownTool},
	{"empty tool name", " ", `{}`, askcore.ToolErrorName, askcore.CodeUnknownTool},
	{"tool name with escapes", "ask_user_question\x1b[2J", `{"question":"q"}`, askcore.ToolErrorName, askcore.CodeUnknownTool},
	{"tool name of 1 MB", strings.Repeat("x", 1<<20), `{}`, askcore.ToolErrorName, askcore.CodeUnknownTool},
}

func manyOptions(n int) string {
	var b strings.Builder
	b.WriteString(`{"question":"pick","options":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"label":"option %d"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// The real agent loop with the scripted model (a script line per hostile
// call, the model's arguments text passed as a JSON string so that invalid
// JSON survives the script): every call gets a structured error, the model
// sees it ({{answer}} becomes its code) and the loop goes on to a last
// question that is answered. On both engines.
func TestHostileToolCallsThroughTheLoop(t *testing.T) {
	for _, engineName := range []string{frontdoor.EngineNative, frontdoor.EngineWasm} {
		t.Run(engineName, func(t *testing.T) {
			svc, reg := askTools(t, openCore(t, engineName))
			dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Lines("survived"), nil
			}))
			require.NoError(t, err)
			defer dispose()

			var src bytes.Buffer
			for i, hc := range hostileCalls {
				line, err := json.Marshal(map[string]any{
					"content":    fmt.Sprintf("step %d: {{answer}}", i),
					"tool_calls": []map[string]any{{"id": fmt.Sprintf("call_%d", i), "name": hc.tool, "arguments": hc.args}},
				})
				require.NoError(t, err)
				src.Write(line)
				src.WriteByte('\n')
			}
			src.WriteString(`{"content":"last: {{answer}}","tool_calls":[{"id":"call_last","name":"ask_user_question","arguments":{"question":"Still there?"}}]}` + "\n")
			src.WriteString(`{"content":"final: {{answer}}"}` + "\n")
			m, err := script.Parse(&src)
			require.NoError(t, err)

			var texts []string
			a := &agent.Agent{ID: "a", Model: m, Tools: reg, MaxSteps: len(hostileCalls) + 4,
				Hooks: agent.Hooks{OnText: func(s string) { texts = append(texts, s) }}}
			start := time.Now()
			require.NoError(t, a.Run(context.Background(), "go"))
			t.Logf("%d hostile calls in %v", len(hostileCalls), time.Since(start))

			var results []agent.Message
			for _, msg := range a.History {
				if msg.Role == agent.RoleTool {
					results = append(results, msg)
				}
			}
			require.Len(t, results, len(hostileCalls)+1, "every call got exactly one result")
			askCode := "{{answer}}" // no ask result yet
			for i, hc := range hostileCalls {
				msg := results[i]
				if hc.tool == askcore.ToolName {
					askCode = string(hc.code)
				}
				assert.Equal(t, fmt.Sprintf("call_%d", i), msg.ToolCallID, hc.name)
				requireErrorMessage(t, msg, hc.errName, hc.code)
				assert.Less(t, len(msg.Content), 2048, "%s: the error stays short: %.200s", hc.name, msg.Content)
				var obj struct{ Message string }
				require.NoError(t, json.Unmarshal([]byte(msg.Content), &obj))
				assert.NotContains(t, obj.Message, "\x1b", "%s: a control character reaches the model and the client", hc.name)
				// The model saw the result: the next reply's {{answer}} is
				// the latest ask_user_question result's code.
				if i+1 < len(hostileCalls) {
					assert.Equal(t, fmt.Sprintf("step %d: %s", i+1, askCode), texts[i+1], hc.name)
				}
			}
			last := results[len(hostileCalls)]
			assert.False(t, last.IsError)
			assert.JSONEq(t, `{"answer":"survived"}`, last.Content)
			assert.Equal(t, "final: survived", texts[len(texts)-1])
		})
	}
}

// unaskedTools is askTools on engineName with a provider that must not be
// asked; asked counts the times it was, until the test ends.
func unaskedTools(t *testing.T, engineName string) (reg *agent.Registry, asked *atomic.Int32) {
	t.Helper()
	svc, reg := askTools(t, openCore(t, engineName))
	asked = new(atomic.Int32)
	dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		asked.Add(1)
		return askcore.Reply{}, fmt.Errorf("must not be asked")
	}))
	require.NoError(t, err)
	t.Cleanup(dispose)
	return reg, asked
}

// argumentsVerdict is the core's verdict on an arguments text of n bytes
// over its limit, as the native core writes it for the length alone.
func argumentsVerdict(t *testing.T, n int) string {
	t.Helper()
	out, err := askcore.Native{}.Handle(context.Background(), fmt.Appendf(nil, `{"op":"normalize","argumentsBytes":%d}`, n))
	require.NoError(t, err)
	verdict, ok := strings.CutPrefix(string(out), `{"ok":false,"error":`)
	require.True(t, ok, "%s", out)
	return strings.TrimSuffix(verdict, "}")
}

// Arguments over the core's limit through the whole Execute path
// (Registry -> AskHandler -> askcore.Service -> askcore.Core ->
// hostgo.Engine): the verdict is the core's INVALID_REQUEST naming the
// text's length as the core counts it (UTF-8 bytes once decoded), the same
// however long the text is and however its envelope would escape it, on
// both engines; nobody is asked.
func TestOversizedArgumentsThroughExecute(t *testing.T) {
	cases := []struct {
		name string
		text string
		n    int // the length the core counts
	}{
		{"just over", `{"question":"` + strings.Repeat("Q", core.MaxArgumentsBytes) + `"}`, core.MaxArgumentsBytes + 15},
		// 1 MiB of '<' is 6 MiB where a host escapes it as \u003c: still
		// the verdict on the text.
		{"escaped past the envelope limit", `{"question":"` + strings.Repeat("<", 1<<20) + `"}`, 1<<20 + 15},
		// U+2028 is 3 bytes as text and 6 escaped (encoding/json always
		// escapes it): 6 MiB, over the envelope's own limit.
		{"line separators", `{"question":"` + strings.Repeat("\u2028", 1<<20) + `"}`, 3<<20 + 15},
		// An invalid byte is U+FFFD once decoded: three bytes.
		{"invalid UTF-8", `{"question":"` + strings.Repeat("\xff", 100_000) + `"}`, 300_015},
	}
	for _, engineName := range []string{frontdoor.EngineWasm, frontdoor.EngineNative} {
		t.Run(engineName, func(t *testing.T) {
			reg, asked := unaskedTools(t, engineName)
			for _, tc := range cases {
				_, err := reg.Execute(context.Background(), agent.ToolCall{ID: "big", Name: askcore.ToolName, Arguments: json.RawMessage(tc.text)}, askcore.Identity{})
				he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
				assert.Equal(t, argumentsVerdict(t, tc.n), string(he.JSON()), tc.name)
			}
			assert.Zero(t, asked.Load())
		})
	}
}

// 100 MB of tool arguments through the whole Execute path: the core's
// INVALID_REQUEST on the text's length comes back, the text is never
// copied into an envelope (the host sends its length, "argumentsBytes"),
// so the guest never sees the bytes and the host allocates about one copy
// of the text (the string the seam receives).
func TestHugeArgumentsThroughExecute(t *testing.T) {
	if raceEnabled {
		// 100 MB through one goroutine on each engine: no race to find,
		// 22 s of the detector's CPU in the lane that sets make test's
		// length.
		t.Skip("runs in make test-go-unraced, without -race")
	}
	for _, engineName := range []string{frontdoor.EngineWasm, frontdoor.EngineNative} {
		t.Run(engineName, func(t *testing.T) {
			reg, asked := unaskedTools(t, engineName)

			const size = 100 << 20
			args := make([]byte, 0, size+32)
			args = append(args, `{"question":"`...)
			args = append(args, bytes.Repeat([]byte("Q"), size)...)
			args = append(args, `"}`...)

			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			start := time.Now()
			_, err := reg.Execute(context.Background(), agent.ToolCall{ID: "big", Name: askcore.ToolName, Arguments: args}, askcore.Identity{})
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			he := requireHarness(t, err, askcore.ErrorName, askcore.CodeInvalidRequest)
			assert.Equal(t, argumentsVerdict(t, len(args)), string(he.JSON()), "the verdict names the arguments' length, not an envelope's")
			assert.Zero(t, asked.Load())
			alloc := m1.TotalAlloc - m0.TotalAlloc
			peak := m1.HeapInuse
			t.Logf("%d-byte arguments rejected in %v; %d MiB allocated (%.2fx the arguments), heap in use after %d MiB",
				len(args), took, alloc>>20, float64(alloc)/float64(len(args)), peak>>20)
			// The text becomes a string for the seam: one copy. Encoding
			// it into an envelope would be several more.
			assert.Less(t, alloc, uint64(len(args))*3/2, "the rejection cost more than one copy of the arguments")
		})
	}
}

// The whole loop survives 100 MB arguments too, and goes on.
func TestHugeArgumentsThroughTheLoop(t *testing.T) {
	_, reg := askTools(t, openCore(t, frontdoor.EngineWasm))
	huge := json.RawMessage(`{"question":"` + strings.Repeat("Q", 100<<20) + `"}`)
	m := replies(
		agent.Reply{ToolCalls: []agent.ToolCall{{ID: "big", Name: askcore.ToolName, Arguments: huge}}},
		agent.Reply{Content: "moving on"},
	)
	a := &agent.Agent{ID: "a", Model: m, Tools: reg}
	require.NoError(t, a.Run(context.Background(), "go"))
	require.Len(t, a.History, 4)
	requireErrorMessage(t, a.History[2], askcore.ErrorName, askcore.CodeInvalidRequest)
	assert.Less(t, len(a.History[2].Content), 512)
	assert.Equal(t, "moving on", a.History[3].Content)
}

// A provider that panics: the model receives ASK_FAILED, the loop goes on,
// and the next question (the provider recovered) is answered.
func TestProviderPanicThroughTheLoop(t *testing.T) {
	svc, reg := askTools(t, openCore(t, frontdoor.EngineNative))
	var n atomic.Int32
	dispose, err := svc.Register(askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
		switch n.Add(1) {
		case 1:
			panic("the terminal exploded")
		case 2:
			var none []string
			return askcore.Lines(none[len(call.Questions)]), nil // a runtime error panic
		}
		return askcore.Lines("fine"), nil
	}))
	require.NoError(t, err)
	defer dispose()
	ask := func(id string) agent.ToolCall {
		return agent.ToolCall{ID: id, Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"ok?"}`)}
	}
	m := replies(
		agent.Reply{ToolCalls: []agent.ToolCall{ask("p1"), ask("p2")}},
		agent.Reply{ToolCalls: []agent.ToolCall{ask("p3")}},
		agent.Reply{Content: "done"},
	)
	a := &agent.Agent{ID: "a", Model: m, Tools: reg}
	require.NoError(t, a.Run(context.Background(), "go"))
	require.Len(t, a.History, 7)
	requireErrorMessage(t, a.History[2], askcore.ErrorName, askcore.CodeAskFailed)
	assert.Contains(t, a.History[2].Content, "the terminal exploded")
	requireErrorMessage(t, a.History[3], askcore.ErrorName, askcore.CodeAskFailed)
	assert.Contains(t, a.History[3].Content, "index out of range")
	assert.JSONEq(t, `{"answer":"fine"}`, a.History[5].Content)
}

// bigRequest is a valid request under the core's arguments limit whose 64
// long options make the guest allocate.
func bigRequest() json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"question":"q","options":[`)
	for i := range core.MaxOptions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"label":"option %d %s","value":"%d %s","description":"%s"}`,
			i, strings.Repeat("l", 150), i, strings.Repeat("v", 900), strings.Repeat("d", 1900))
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// The guest reaches its memory limit (it traps) in the middle of an agent
// loop: the model receives a structured ASK_FAILED, the trapped instance is
// discarded, and the next question in the same loop is answered.
func TestGuestMemoryLimitThroughTheLoop(t *testing.T) {
	ctx := context.Background()
	probe, closeProbe, err := frontdoor.OpenEngine(ctx, frontdoor.EngineWasm, hostgo.WithPoolSize(1), hostgo.WithTieredStart(false))
	require.NoError(t, err)
	// What a small question needs: the schema (the registry reads it), a
	// normalize, a resolve and the fail op.
	for _, in := range []string{`{"op":"schema"}`, `{"op":"normalize","arguments":"{\"question\":\"q\"}"}`,
		`{"op":"resolve","request":{"question":"q"},"inputs":["ok"]}`, `{"op":"fail","situation":"engine_fault"}`} {
		_, err = probe.Handle(ctx, []byte(in))
		require.NoError(t, err)
	}
	fresh := probe.(*hostgo.Engine).Stats().MaxPages
	require.NoError(t, closeProbe(ctx))

	e, closeFn, err := frontdoor.OpenEngine(ctx, frontdoor.EngineWasm, hostgo.WithPoolSize(1), hostgo.WithTieredStart(false),
		hostgo.WithMemoryLimitPages(fresh+1))
	require.NoError(t, err)
	defer func() { require.NoError(t, closeFn(ctx)) }()
	svc, reg := askTools(t, askcore.NewCore(e))
	dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines("ok"), nil
	}))
	require.NoError(t, err)
	defer dispose()

	big := bigRequest()
	var calls []agent.ToolCall
	for i := range 8 { // the guest's heap grows with each big request until it traps
		calls = append(calls, agent.ToolCall{ID: fmt.Sprintf("big%d", i), Name: askcore.ToolName, Arguments: big})
	}
	m := replies(
		agent.Reply{ToolCalls: calls},
		agent.Reply{ToolCalls: []agent.ToolCall{{ID: "small", Name: askcore.ToolName, Arguments: json.RawMessage(`{"question":"still ok?"}`)}}},
		agent.Reply{Content: "done"},
	)
	a := &agent.Agent{ID: "a", Model: m, Tools: reg}
	require.NoError(t, a.Run(ctx, "go"))
	faults := 0
	for _, msg := range a.History {
		if msg.Role == agent.RoleTool && msg.IsError {
			requireErrorMessage(t, msg, askcore.ErrorName, askcore.CodeAskFailed)
			faults++
		}
	}
	require.NotZero(t, faults, "the guest never reached its %d-page limit", fresh+1)
	last := a.History[len(a.History)-2]
	assert.Equal(t, "small", last.ToolCallID)
	assert.JSONEq(t, `{"answer":"ok"}`, last.Content)
	s := e.(*hostgo.Engine).Stats()
	t.Logf("limit %d pages: %d of %d big questions faulted; %+v", fresh+1, faults, len(calls), s)
	assert.GreaterOrEqual(t, s.Discarded, faults, "a trapped instance was kept")
}
