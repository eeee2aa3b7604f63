package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/hostgo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Model argument texts. argsBatch asks a single-select question with a
// recommended option, a multi-select one with free text, and an open one.
const (
	argsDB    = `{"header":"DB","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","description":"embedded","recommended":true}]}`
	argsMulti = `{"question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},{"label":"Billing","value":"billing"}],"multiSelect":true,"allowCustom":true}`
	argsOpen  = `{"question":"Name?"}`
	argsBatch = `{"questions":[` + argsDB + `,` + argsMulti + `,` + argsOpen + `]}`
)

// recorder keeps the last envelope a Core returned, so that a test can
// check that Raw holds exactly the bytes the core wrote.
type recorder struct {
	engine.Core
	mu   sync.Mutex
	last []byte
}

func (r *recorder) Handle(ctx context.Context, in []byte) ([]byte, error) {
	out, err := r.Core.Handle(ctx, in)
	r.mu.Lock()
	r.last = out
	r.mu.Unlock()
	return out, err
}

func (r *recorder) lastEnvelope() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.last)
}

type eng struct {
	name   string
	client engine.Client
	rec    *recorder
}

// engines opens the native core and the WebAssembly one (with the default
// on-disk compilation cache, so a warm machine does not compile again).
func engines(t *testing.T) []eng {
	t.Helper()
	var out []eng
	for _, name := range []string{engine.NameNative, engine.NameWasm} {
		c, closeFn, err := engine.Open(context.Background(), name)
		require.NoError(t, err, name)
		t.Cleanup(func() { require.NoError(t, closeFn(context.Background())) })
		rec := &recorder{Core: c}
		out = append(out, eng{name, engine.Client{Core: rec}, rec})
	}
	return out
}

// outcome is what one typed call gave: its decoded result and its error,
// compared whole across engines.
type outcome struct {
	Value any
	Err   error
}

// typedCall is one call of the typed client, with what it must give.
type typedCall struct {
	name  string
	call  func(ctx context.Context, c engine.Client) (any, error)
	check func(t *testing.T, o outcome)
}

func normalized(t *testing.T, args string) engine.Call {
	t.Helper()
	call, err := engine.Client{Core: engine.Native{}}.NormalizeArguments(context.Background(), args)
	require.NoError(t, err)
	return call
}

func wantCode(code core.Code) func(t *testing.T, o outcome) {
	return func(t *testing.T, o outcome) {
		t.Helper()
		var he *core.HarnessError
		require.ErrorAs(t, o.Err, &he)
		assert.Equal(t, code, he.Code, he.Message)
	}
}

func typedCalls(t *testing.T) []typedCall {
	batch := normalized(t, argsBatch)
	single := normalized(t, argsDB)
	pick := func(text string, options ...int) engine.Input {
		return engine.Input{Pick: &core.Pick{Options: options, Text: text}}
	}
	batchAnswer := `{"answers":[{"question":"Which database?","answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}},` +
		`{"question":"Which features?","answers":["billing","Chat"],"selected":[{"index":1,"label":"Billing","value":"billing"}]},` +
		`{"question":"Name?","answer":"Aurora"}]}`
	return []typedCall{
		{"NormalizeArguments single", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, argsDB)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			call := o.Value.(engine.Call)
			assert.False(t, call.Batch)
			require.Len(t, call.Questions, 1)
			assert.Equal(t, "SQLite", call.Questions[0].Options[1].Value, "value defaults to label")
			assert.Equal(t, `{"header":"DB","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},`+
				`{"label":"SQLite","value":"SQLite","description":"embedded","recommended":true}],"allowCustom":false}`, string(call.Raw))
		}},
		{"NormalizeArguments batch", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, argsBatch)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			call := o.Value.(engine.Call)
			assert.True(t, call.Batch)
			require.Len(t, call.Questions, 3)
			assert.True(t, call.Questions[1].MultiSelect)
			assert.True(t, call.Questions[2].AllowCustom, "an optionless question is free-form")
		}},
		{"NormalizeArguments truncated", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, `{"question": `)
		}, func(t *testing.T, o outcome) {
			wantCode(core.CodeInvalidRequest)(t, o)
			assert.Contains(t, o.Err.Error(), "at byte 13 of 13", "the offset is inside the arguments, not the envelope")
		}},
		{"NormalizeArguments trailing junk", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, `{"question":"Q?","options":["a","b"]},"junk":1`)
		}, func(t *testing.T, o outcome) {
			wantCode(core.CodeInvalidRequest)(t, o)
			assert.Contains(t, o.Err.Error(), "at byte 37 of 46", "text after the object is not pasted into the envelope")
		}},
		{"NormalizeArguments that try to escape the envelope", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, `{"question":"Q?"}","op":"schema`)
		}, wantCode(core.CodeInvalidRequest)},
		{"NormalizeArguments HTML", func(ctx context.Context, c engine.Client) (any, error) {
			return c.NormalizeArguments(ctx, `{"question":"Q?","options":["<a>","<A>"]}`)
		}, func(t *testing.T, o outcome) {
			wantCode(core.CodeInvalidRequest)(t, o)
			assert.Contains(t, string(o.Err.(*core.HarnessError).Raw), `\"<A>\"`, "the core writes < as is")
		}},
		{"Normalize", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Normalize(ctx, single.Raw)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, single, o.Value, "normalizing a normalized call changes nothing")
		}},
		{"Normalize invalid", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Normalize(ctx, json.RawMessage(`{"question":"q","options":[{"label":"a"},{"label":"A"}]}`))
		}, wantCode(core.CodeInvalidRequest)},
		{"Schema", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Schema(ctx)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			tool := o.Value.(engine.Tool)
			assert.Equal(t, "ask_user_question", tool.Name)
			assert.Equal(t, string(core.Schema().Parameters), string(tool.Parameters), "the parameters are the core's bytes")
		}},
		{"Present question 0", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Present(ctx, batch.Raw, 0)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			p := o.Value.(engine.Presentation)
			assert.Equal(t, []int{1, 0}, p.Order, "recommended first")
			assert.Contains(t, p.Text, "Which database?")
		}},
		{"Present question 1", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Present(ctx, batch.Raw, 1)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Contains(t, o.Value.(engine.Presentation).Text, "Which features?")
		}},
		{"Present index out of range", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Present(ctx, batch.Raw, 3)
		}, wantCode(core.CodeInvalidRequest)},
		{"Resolve a line", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Resolve(ctx, batch.Raw, 1, engine.Input{Line: "2, Chat"})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, `{"answers":["billing","Chat"],"selected":[{"index":1,"label":"Billing","value":"billing"}]}`, string(o.Value.(engine.Result).Raw))
		}},
		{"Resolve a pick", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Resolve(ctx, batch.Raw, 0, pick("", 0))
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, `{"answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}}`, string(o.Value.(engine.Result).Raw))
		}},
		{"Resolve an empty line with no default", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Resolve(ctx, batch.Raw, 2, engine.Input{Line: ""})
		}, wantCode(core.CodeInvalidAnswer)},
		{"Resolve a line that tries to escape the envelope", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Resolve(ctx, batch.Raw, 2, engine.Input{Line: `x","op":"schema`})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, `{"answer":"x\",\"op\":\"schema"}`, string(o.Value.(engine.Result).Raw))
		}},
		{"ResolveAll lines", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ResolveAll(ctx, batch.Raw, []engine.Input{{Line: "2"}, {Line: "Billing, Chat"}, {Line: "Aurora"}})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, batchAnswer, string(o.Value.(engine.Result).Raw))
		}},
		{"ResolveAll picks", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ResolveAll(ctx, batch.Raw, []engine.Input{pick("", 0), pick("Chat", 1), pick("Aurora")})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, batchAnswer, string(o.Value.(engine.Result).Raw))
		}},
		{"ResolveAll one input short", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ResolveAll(ctx, batch.Raw, []engine.Input{{Line: "1"}, {Line: "1"}})
		}, wantCode(core.CodeInvalidRequest)},
		{"Picker", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Picker(ctx, batch.Raw)
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			raw := o.Value.(json.RawMessage)
			assert.True(t, json.Valid(raw))
			assert.Contains(t, string(raw), `"Question 2 of 3"`)
		}},
		{"Summary", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Summary(ctx, batch.Raw, json.RawMessage(batchAnswer))
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, "DB: PostgreSQL\nWhich features?: Billing, Chat\nName?: Aurora", o.Value)
		}},
		{"SummaryOf", func(ctx context.Context, c engine.Client) (any, error) {
			return c.SummaryOf(ctx, batch.Raw, 1, json.RawMessage(`{"answers":["billing","Chat"],"selected":[{"index":1,"label":"Billing","value":"billing"}]}`))
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, "Billing, Chat", o.Value)
		}},
		{"Summary of no answer", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Summary(ctx, batch.Raw, json.RawMessage(`{"answer":"x"}`))
		}, wantCode(core.CodeInvalidRequest)},
		{"Elicitation", func(ctx context.Context, c engine.Client) (any, error) {
			form, raw, err := c.Elicitation(ctx, single.Raw)
			return []any{form, raw}, err
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			form, raw := o.Value.([]any)[0].(engine.Form), o.Value.([]any)[1].(json.RawMessage)
			assert.Equal(t, "Which database?", form.Message)
			assert.Contains(t, string(form.RequestedSchema), `"default":"SQLite"`)
			assert.Contains(t, string(form.RequestedSchema), `"title":"DB"`, "the header is the form's title")
			assert.Equal(t, `{"message":"Which database?","requestedSchema":`+string(form.RequestedSchema)+`}`, string(raw))
		}},
		{"ElicitationFor MCP", func(ctx context.Context, c engine.Client) (any, error) {
			form, raw, err := c.ElicitationFor(ctx, single.Raw, core.ForMCP)
			return []any{form, raw}, err
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			form := o.Value.([]any)[0].(engine.Form)
			assert.Equal(t, "Which database?", form.Message)
			assert.NotContains(t, string(form.RequestedSchema), `"title":"DB","properties"`, "MCP forms have no schema title")
			assert.Contains(t, string(form.RequestedSchema), `"DB"`, "the header is the field's title")
		}},
		{"ElicitationResult accept", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ElicitationResult(ctx, batch.Raw, json.RawMessage(`{"action":"accept","content":{"choice_1":"postgres","choices_2":["billing"],"custom_answer_2":"Chat","answer_3":"Aurora"}}`))
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, batchAnswer, string(o.Value.(engine.Result).Raw))
		}},
		{"ElicitationResult decline", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ElicitationResult(ctx, single.Raw, json.RawMessage(`{"action":"decline"}`))
		}, wantCode(core.CodeAskDeclined)},
		{"ElicitationResult not an object", func(ctx context.Context, c engine.Client) (any, error) {
			return c.ElicitationResult(ctx, single.Raw, json.RawMessage(`"accept"`))
		}, wantCode(core.CodeAskFailed)},
		{"Terminal", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Terminal(ctx, core.Terminal{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "xterm", NoColor: "1"})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, core.TerminalMode{Picker: true, Color: false}, o.Value)
		}},
		{"Terminal dumb", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Terminal(ctx, core.Terminal{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "dumb"})
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, core.TerminalMode{}, o.Value)
		}},
		{"Sanitize", func(ctx context.Context, c engine.Client) (any, error) {
			return c.Sanitize(ctx, "\x1b[31mred\x1b[0m\u202e line one\nline two ")
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, "red line one\nline two", o.Value)
		}},
		{"SanitizeTitle", func(ctx context.Context, c engine.Client) (any, error) {
			return c.SanitizeTitle(ctx, "line one\nline two "+strings.Repeat("x", 100))
		}, func(t *testing.T, o outcome) {
			require.NoError(t, o.Err)
			assert.Equal(t, core.SanitizeTitle("line one\nline two "+strings.Repeat("x", 100)), o.Value)
			assert.NotContains(t, o.Value, "\n")
			assert.Less(t, len([]rune(o.Value.(string))), 100, "a title is cut")
		}},
	}
}

// TestTypedCallsAgreeAcrossEngines runs every typed call on both engines:
// the same decoded result, the same error, the same bytes.
func TestTypedCallsAgreeAcrossEngines(t *testing.T) {
	ctx := context.Background()
	engs := engines(t)
	for _, tc := range typedCalls(t) {
		t.Run(tc.name, func(t *testing.T) {
			var native outcome
			for i, e := range engs {
				v, err := tc.call(ctx, e.client)
				o := outcome{v, err}
				checkRaw(t, e, o)
				if i == 0 {
					native = o
					tc.check(t, o)
					continue
				}
				assert.Equal(t, native, o, "%s differs from native", e.name)
			}
		})
	}
}

// checkRaw checks that the bytes a typed call kept (an error's Raw, a
// result's Raw) are exactly those of the envelope the engine returned.
func checkRaw(t *testing.T, e eng, o outcome) {
	t.Helper()
	env := e.rec.lastEnvelope()
	var he *core.HarnessError
	if errors.As(o.Err, &he) {
		assert.Equal(t, env, `{"ok":false,"error":`+string(he.Raw)+`}`, "%s: Raw is the error object as the core wrote it", e.name)
		assert.Equal(t, he.Raw, he.JSON())
		return
	}
	require.NoError(t, o.Err, e.name)
	var raw []byte
	switch v := o.Value.(type) {
	case engine.Result:
		raw = v.Raw
	case engine.Call:
		raw = v.Raw
	case json.RawMessage:
		raw = v
	case []any:
		raw = v[1].(json.RawMessage)
	default:
		return // decoded only
	}
	assert.Equal(t, env, `{"ok":true,"result":`+string(raw)+`}`, "%s: Raw is the result as the core wrote it", e.name)
}

// situations lists every core.Situation. TestFailEverySituation checks it
// against the core's own list, so a new situation cannot go untested.
var situations = []core.Failure{
	{Situation: core.SituationNoProvider},
	{Situation: core.SituationDuplicateProvider},
	{Situation: core.SituationAborted},
	{Situation: core.SituationAborted, Detail: "the user pressed stop"},
	{Situation: core.SituationWithdrawn},
	{Situation: core.SituationTimeout, Millis: 120000},
	{Situation: core.SituationTimeout, Millis: 1500},
	{Situation: core.SituationNoAnswer},
	{Situation: core.SituationProviderFailed, Detail: "\x1b[31mboom\x1b[0m <b>\nsecond line"},
	{Situation: core.SituationEngineFault},
	{Situation: core.SituationInterrupted},
	{Situation: core.SituationEOF},
	{Situation: core.SituationInputClosed},
	{Situation: core.SituationReadFailed, Detail: "read /dev/tty: input/output error"},
	{Situation: core.SituationDeclined},
	{Situation: core.SituationNoTerminal},
	{Situation: core.SituationSessionNotFound, Detail: "agent-7"},
	{Situation: core.SituationNoFormSupport},
	{Situation: core.SituationClientError, Detail: "connection reset"},
	{Situation: core.SituationClientNoResult},
	{Situation: core.SituationClientGone},
	{Situation: core.SituationUsage, Detail: "--timeout: invalid duration"},
	{Situation: core.SituationRequestReadFailed, Detail: "read /dev/stdin: bad file descriptor"},
	{Situation: core.SituationUnknownTool, Tool: "delete_everything", Tools: []string{"ask_user_question"}},
	{Situation: core.SituationUnknownTool, Tool: "x"},
	{Situation: core.SituationToolFailed, Tool: "search", Detail: "disk full"},
	{Situation: core.SituationToolFailed, Detail: "disk full"},
	{Situation: core.SituationToolCancelled},
	{Situation: "no_such_situation"},
}

func TestFailEverySituation(t *testing.T) {
	ctx := context.Background()
	engs := engines(t)

	// The core names every situation in its answer to an unknown one.
	unknown := core.Fail(core.Failure{Situation: "no_such_situation"}).Message
	_, list, ok := strings.Cut(unknown, "use one of ")
	require.True(t, ok, unknown)
	covered := map[string]bool{}
	for _, f := range situations {
		covered[string(f.Situation)] = true
	}
	for _, s := range strings.Split(list, ", ") {
		assert.True(t, covered[s], "situation %q is not tested", s)
	}

	for _, f := range situations {
		want := core.Fail(f)
		for _, e := range engs {
			he := e.client.Fail(ctx, f)
			require.NotNil(t, he)
			assert.Equal(t, string(want.JSON()), string(he.Raw), "%s %s: the same bytes as the native core", e.name, f.Situation)
			assert.Equal(t, want.Code, he.Code)
			assert.Equal(t, want.Name, he.Name)
			assert.Equal(t, want.Message, he.Message)
			if f.Situation == "no_such_situation" {
				continue // op fail answers with ok:false
			}
			assert.Equal(t, `{"ok":true,"result":`+string(he.Raw)+`}`, e.rec.lastEnvelope(), "%s: Raw is the core's bytes", e.name)
		}
	}
	timeout := core.Fail(core.Failure{Situation: core.SituationTimeout, Millis: 120000})
	assert.Equal(t, "no answer within 2m; nothing was chosen", timeout.Message, "a timeout is written for people")
	assert.Equal(t, core.ToolErrorName, core.Fail(core.Failure{Situation: core.SituationToolCancelled}).Name)
}

// hostFault is an engine that cannot answer, as a closed or trapped one.
type hostFault struct{ calls int }

var errTrap = errors.New("wasm error: unreachable")

func (h *hostFault) Handle(context.Context, []byte) ([]byte, error) {
	h.calls++
	return nil, errTrap
}

func TestFailFallsBackToTheNativeCore(t *testing.T) {
	ctx := context.Background()
	faulty := &hostFault{}
	closed, closeFn, err := engine.Open(ctx, engine.NameWasm)
	require.NoError(t, err)
	require.NoError(t, closeFn(ctx))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	for name, c := range map[string]engine.Client{"trap": {Core: faulty}, "closed": {Core: closed}} {
		for _, f := range situations {
			he := c.Fail(ctx, f)
			assert.Equal(t, string(core.Fail(f).JSON()), string(he.Raw), "%s %s", name, f.Situation)
		}
		he := c.Fail(cancelled, core.Failure{Situation: core.SituationAborted})
		assert.Equal(t, core.CodeAskAborted, he.Code, "%s: a done ctx still gets its situation", name)
	}
	assert.Equal(t, len(situations)+1, faulty.calls, "the engine is asked first")
}

// Host text or model text of any size: the envelope would be over the
// core's input limit, yet the situation's error comes back, cut by the
// core, the same on both engines.
func TestFailWithHugeDetail(t *testing.T) {
	ctx := context.Background()
	huge := strings.Repeat("x", 2*core.MaxInputBytes)
	engs := engines(t)
	for _, f := range []core.Failure{
		{Situation: core.SituationProviderFailed, Detail: huge},
		{Situation: core.SituationUnknownTool, Tool: huge, Tools: []string{"ask_user_question"}},
	} {
		want := core.Fail(f)
		assert.Less(t, len(want.Message), 1000)
		for _, e := range engs {
			he := e.client.Fail(ctx, f)
			assert.Equal(t, string(want.JSON()), string(he.Raw), "%s %s", e.name, f.Situation)
		}
	}
}

func TestHostFaultsAreHostErrors(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := engine.Open(ctx, engine.NameWasm)
	require.NoError(t, err)
	require.NoError(t, closeFn(ctx))
	_, err = engine.Client{Core: c}.NormalizeArguments(ctx, argsDB)
	var hostErr *engine.HostError
	require.ErrorAs(t, err, &hostErr)
	assert.ErrorIs(t, err, hostgo.ErrClosed)
	assert.Contains(t, err.Error(), "askcore engine")

	_, err = engine.Client{Core: &hostFault{}}.Resolve(ctx, json.RawMessage(argsOpen), 0, engine.Input{Line: "x"})
	require.ErrorAs(t, err, &hostErr)
	assert.ErrorIs(t, err, errTrap)
	var he *core.HarnessError
	assert.False(t, errors.As(err, &he), "a host fault is not a verdict of the rules")
}

// garbage is a Core that answers with bytes that are not the core's.
type garbage []byte

func (g garbage) Handle(context.Context, []byte) ([]byte, error) { return g, nil }

func TestUnreadableEnvelopesAreHostErrors(t *testing.T) {
	ctx := context.Background()
	for _, out := range []string{``, `not json`, `{"ok":false}`, `{"ok":true,"result":[1]}`} {
		_, err := engine.Client{Core: garbage(out)}.Schema(ctx)
		var hostErr *engine.HostError
		assert.ErrorAs(t, err, &hostErr, "%q", out)
	}
}

func TestInputMarshalling(t *testing.T) {
	for _, tc := range []struct {
		in   engine.Input
		want string
	}{
		{engine.Input{Line: ""}, `""`},
		{engine.Input{Line: `2, "Chat" <b>`}, `"2, \"Chat\" \u003cb\u003e"`},
		{engine.Input{Pick: &core.Pick{}}, `{"options":[],"text":""}`},
		{engine.Input{Pick: &core.Pick{Options: []int{2, 0}, Text: "Chat"}}, `{"options":[2,0],"text":"Chat"}`},
		{engine.Input{Line: "ignored", Pick: &core.Pick{Options: []int{1}}}, `{"options":[1],"text":""}`},
	} {
		b, err := json.Marshal(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(b))
	}
	// encoding/json escapes < in the envelope; the core reads it back as <.
	res, err := engine.Client{Core: engine.Native{}}.Resolve(context.Background(), json.RawMessage(argsOpen), 0, engine.Input{Line: "<b>"})
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"<b>"}`, string(res.Raw))
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := engine.Open(ctx, engine.NameNative)
	require.NoError(t, err)
	assert.Equal(t, engine.Native{}, c)
	require.NoError(t, closeFn(ctx))

	c, closeFn, err = engine.Open(ctx, "", hostgo.WithInterpreter())
	require.NoError(t, err, "the default engine is wasm")
	assert.IsType(t, &hostgo.Engine{}, c)
	out, err := c.Handle(ctx, []byte(`{"op":"schema"}`))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(core.Handle([]byte(`{"op":"schema"}`)), out))
	require.NoError(t, closeFn(ctx))

	_, _, err = engine.Open(ctx, "jvm")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"wasm"`)
}

// Arguments over the core's input limit are refused on the envelope's
// length, which the message names. The envelope escapes no '<', '>' or
// '&', like JSON.stringify in the JS host, so the verdict is the same for
// the same text on every host.
func TestOversizedArgumentsNameTheEnvelopeLength(t *testing.T) {
	ctx := context.Background()
	text := `{"question":"` + strings.Repeat("<a> & <b> ", core.MaxInputBytes/10) + `"}`
	// What the JS host sends: {"op":"normalize","arguments":JSON.stringify(text)};
	// text has no character either encoder escapes but '"'.
	n := len(`{"op":"normalize","arguments":""}`) + len(text) + strings.Count(text, `"`)
	want := core.Handle(make([]byte, n))
	for _, e := range engines(t) {
		_, err := e.client.NormalizeArguments(ctx, text)
		var he *core.HarnessError
		require.ErrorAs(t, err, &he, e.name)
		assert.Equal(t, `{"ok":false,"error":`+string(he.Raw)+`}`, string(want), e.name)
	}
}
