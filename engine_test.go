package askcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
)

// Model argument texts. argsBatch asks a single-select question with a
// recommended option, a multi-select one with free text, and an open one.
const (
	argsDB    = `{"header":"DB","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","description":"embedded","recommended":true}]}`
	argsMulti = `{"question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},{"label":"Billing","value":"billing"}],"multiSelect":true,"allowCustom":true}`
	argsOpen  = `{"question":"Name?"}`
	argsBatch = `{"questions":[` + argsDB + `,` + argsMulti + `,` + argsOpen + `]}`

	batchAnswer = `{"answers":[{"question":"Which database?","answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}},` +
		`{"question":"Which features?","answers":["billing","Chat"],"selected":[{"index":1,"label":"Billing","value":"billing"}]},` +
		`{"question":"Name?","answer":"Aurora"}]}`
)

// normalize has c normalize arguments that must be valid.
func normalize(t *testing.T, c *askcore.Core, arguments string) *askcore.Call {
	t.Helper()
	call, err := c.Normalize(context.Background(), arguments)
	require.NoError(t, err)
	return call
}

// outcome is what one typed op gave, in a form that compares across
// engines: a *Call or an Answer holds its core, which differs.
type outcome struct {
	Value any
	Err   *askcore.Error // the core's verdict
	Fault error          // anything else
	Kept  string         // the bytes the value or the error kept (JSON)
}

type callView struct {
	Questions []askcore.Question
	Batch     bool
	JSON      string
}

type answerView struct {
	Batch     bool
	Questions []askcore.QuestionAnswer
	JSON      string
}

func outcomeOf(v any, err error) outcome {
	var o outcome
	if err != nil {
		if !errors.As(err, &o.Err) {
			o.Fault = err
		} else {
			o.Kept = string(o.Err.JSON())
		}
		return o
	}
	switch v := v.(type) {
	case *askcore.Call:
		o.Value = callView{v.Questions, v.Batch, string(v.JSON())}
		o.Kept = string(v.JSON())
	case askcore.Answer:
		o.Value = answerView{v.Batch, v.Questions, string(v.JSON())}
		o.Kept = string(v.JSON())
	case json.RawMessage:
		o.Value = string(v)
		o.Kept = string(v)
	default:
		o.Value = v
	}
	return o
}

// typedOp is one op of the typed API, with what it must give.
type typedOp struct {
	name  string
	op    func(ctx context.Context, c *askcore.Core) (any, error)
	check func(t *testing.T, o outcome)
}

func wantCode(code askcore.Code) func(t *testing.T, o outcome) {
	return func(t *testing.T, o outcome) {
		t.Helper()
		require.NoError(t, o.Fault)
		require.NotNil(t, o.Err, "want %s, got %v", code, o.Value)
		assert.Equal(t, code, o.Err.Code, o.Err.Message)
	}
}

func wantOK(t *testing.T, o outcome) {
	t.Helper()
	require.NoError(t, o.Fault)
	require.Nil(t, o.Err)
}

// on normalizes arguments on the op's own core and runs f on the call.
func on(arguments string, f func(ctx context.Context, call *askcore.Call) (any, error)) func(ctx context.Context, c *askcore.Core) (any, error) {
	return func(ctx context.Context, c *askcore.Core) (any, error) {
		call, err := c.Normalize(ctx, arguments)
		if err != nil {
			return nil, err
		}
		return f(ctx, call)
	}
}

func typedOps(t *testing.T) []typedOp {
	single := normalize(t, native, argsDB)
	pick := func(text string, options ...int) askcore.Pick { return askcore.Pick{Options: options, Text: text} }
	return []typedOp{
		{"Normalize single", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, argsDB)
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			call := o.Value.(callView)
			assert.False(t, call.Batch)
			require.Len(t, call.Questions, 1)
			assert.Equal(t, "SQLite", call.Questions[0].Options[1].Value, "value defaults to label")
			assert.Equal(t, `{"header":"DB","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},`+
				`{"label":"SQLite","value":"SQLite","description":"embedded","recommended":true}],"allowCustom":false}`, call.JSON)
		}},
		{"Normalize batch", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, argsBatch)
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			call := o.Value.(callView)
			assert.True(t, call.Batch)
			require.Len(t, call.Questions, 3)
			assert.True(t, call.Questions[1].MultiSelect)
			assert.True(t, call.Questions[2].AllowCustom, "an optionless question is free-form")
		}},
		{"Normalize a batch of one", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"questions":[`+argsOpen+`]}`)
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			call := o.Value.(callView)
			assert.True(t, call.Batch, "a batch of one is still a batch")
			require.Len(t, call.Questions, 1)
		}},
		{"Normalize truncated", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"question": `)
		}, func(t *testing.T, o outcome) {
			wantCode(askcore.CodeInvalidRequest)(t, o)
			assert.Contains(t, o.Err.Message, "at byte 13 of 13", "the offset is inside the arguments, not the envelope")
		}},
		{"Normalize trailing junk", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"question":"Q?","options":["a","b"]},"junk":1`)
		}, func(t *testing.T, o outcome) {
			wantCode(askcore.CodeInvalidRequest)(t, o)
			assert.Contains(t, o.Err.Message, "at byte 37 of 46", "text after the object is not pasted into the envelope")
		}},
		{"Normalize arguments that try to escape the envelope", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"question":"Q?"}","op":"schema`)
		}, wantCode(askcore.CodeInvalidRequest)},
		{"Normalize HTML", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"question":"Q?","options":["<a>","<A>"]}`)
		}, func(t *testing.T, o outcome) {
			wantCode(askcore.CodeInvalidRequest)(t, o)
			assert.Contains(t, o.Err.Message, `"<A>"`, "the message quotes the label")
			assert.Contains(t, o.Kept, `\"\u003cA\u003e\"`, "the core escapes < as encoding/json does")
		}},
		{"Normalize a normalized call", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, string(single.JSON()))
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, callView{single.Questions, single.Batch, string(single.JSON())}, o.Value,
				"normalizing a normalized call changes nothing")
		}},
		{"Normalize invalid", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Normalize(ctx, `{"question":"q","options":[{"label":"a"},{"label":"A"}]}`)
		}, wantCode(askcore.CodeInvalidRequest)},
		{"Tool", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Tool(ctx)
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			tool := o.Value.(askcore.Tool)
			assert.Equal(t, askcore.ToolName, tool.Name)
			assert.NotEmpty(t, tool.Description)
			var schema struct {
				Result struct {
					Parameters json.RawMessage `json:"parameters"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(core.Handle([]byte(`{"op":"schema"}`)), &schema))
			assert.Equal(t, string(schema.Result.Parameters), string(tool.Parameters), "the parameters are the core's bytes")
		}},
		{"Present question 0", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Present(ctx, 0)
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			p := o.Value.(askcore.Presentation)
			assert.Equal(t, []int{1, 0}, p.Order, "recommended first")
			assert.Contains(t, p.Text, "Which database?")
		}},
		{"Present question 1", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Present(ctx, 1)
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Contains(t, o.Value.(askcore.Presentation).Text, "Which features?")
		}},
		{"Present index out of range", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Present(ctx, 3)
		}), wantCode(askcore.CodeInvalidRequest)},
		{"CheckLine", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.CheckLine(ctx, 1, "2, Chat")
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, "Billing, Chat", o.Value, "the summary of what the line chose")
		}},
		{"CheckPick", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.CheckPick(ctx, 0, pick("", 0))
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, "PostgreSQL", o.Value)
		}},
		{"CheckLine empty with no default", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.CheckLine(ctx, 2, "")
		}), wantCode(askcore.CodeInvalidAnswer)},
		{"CheckLine no option", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.CheckLine(ctx, 0, "7")
		}), func(t *testing.T, o outcome) {
			wantCode(askcore.CodeInvalidAnswer)(t, o)
			assert.Equal(t, `"7" is not one of the options. Type the number of an option (1-2) or its label.`, o.Err.Message,
				"the message is for the person")
		}},
		{"Resolve a line that tries to escape the envelope", on(argsOpen, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Lines(`x","op":"schema`))
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, `{"answer":"x\",\"op\":\"schema"}`, o.Kept)
		}},
		{"Resolve lines", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Lines("2", "Billing, Chat", "Aurora"))
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, batchAnswer, o.Kept)
		}},
		{"Resolve picks", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Picks(pick("", 0), pick("Chat", 1), pick("Aurora")))
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, batchAnswer, o.Kept)
		}},
		{"Resolve one line short", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Lines("1", "1"))
		}), func(t *testing.T, o outcome) {
			wantCode(askcore.CodeAskFailed)(t, o)
			assert.Equal(t, string(failure(askcore.Failure{Situation: askcore.SituationNotAReply}).JSON()), o.Kept)
		}},
		{"Resolve a line that is no option", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Lines("1", "1", ""))
		}), func(t *testing.T, o outcome) {
			wantCode(askcore.CodeInvalidAnswer)(t, o)
			assert.Contains(t, o.Err.Message, "did not answer the question", "the message is for the model")
		}},
		{"Resolve a form", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.FormReply(json.RawMessage(`{"action":"accept","content":{"choice_1":"postgres","choices_2":["billing"],"custom_answer_2":"Chat","answer_3":"Aurora"}}`)))
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, batchAnswer, o.Kept)
		}},
		{"Resolve a declined form", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.FormReply(json.RawMessage(`{"action":"decline"}`)))
		}), wantCode(askcore.CodeAskDeclined)},
		{"Resolve a cancelled form", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.FormReply(json.RawMessage(`{"action":"cancel"}`)))
		}), wantCode(askcore.CodeAskCancelled)},
		{"Resolve a form reply that is not an object", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.FormReply(json.RawMessage(`"accept"`)))
		}), wantCode(askcore.CodeAskFailed)},
		{"Resolve a form reply that is not JSON", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.FormReply(json.RawMessage(`{"action":`)))
		}), func(t *testing.T, o outcome) {
			wantCode(askcore.CodeAskFailed)(t, o)
			assert.Equal(t, string(failure(askcore.Failure{Situation: askcore.SituationNotAReply}).JSON()), o.Kept)
		}},
		{"Resolve a decline", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Decline())
		}), wantCode(askcore.CodeAskDeclined)},
		{"Resolve no reply", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Resolve(ctx, askcore.Reply{})
		}), func(t *testing.T, o outcome) {
			wantCode(askcore.CodeAskFailed)(t, o)
			assert.Equal(t, string(failure(askcore.Failure{Situation: askcore.SituationNoAnswer}).JSON()), o.Kept)
		}},
		{"Picker", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Picker(ctx)
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.True(t, json.Valid([]byte(o.Kept)))
			assert.Contains(t, o.Kept, `"Question 2 of 3"`)
		}},
		{"Summary", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			a, err := call.Resolve(ctx, askcore.Lines("2", "Billing, Chat", "Aurora"))
			if err != nil {
				return nil, err
			}
			return call.Summary(ctx, a)
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, "DB: PostgreSQL\nWhich features?: Billing, Chat\nName?: Aurora", o.Value)
		}},
		{"Summary of no answer to the call", on(argsBatch, func(ctx context.Context, call *askcore.Call) (any, error) {
			var a askcore.Answer
			if err := json.Unmarshal([]byte(`{"answer":"x"}`), &a); err != nil {
				return nil, err
			}
			return call.Summary(ctx, a)
		}), wantCode(askcore.CodeInvalidRequest)},
		{"Form", func(ctx context.Context, c *askcore.Core) (any, error) {
			call, err := c.Normalize(ctx, argsDB)
			if err != nil {
				return nil, err
			}
			return call.Form(ctx, askcore.ForACP)
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			form := o.Value.(askcore.Form)
			assert.Equal(t, "Which database?", form.Message)
			assert.Contains(t, string(form.RequestedSchema), `"default":"SQLite"`)
			assert.Contains(t, string(form.RequestedSchema), `"title":"DB"`, "the header is the form's title")
		}},
		{"Form for MCP", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Form(ctx, askcore.ForMCP)
		}), func(t *testing.T, o outcome) {
			wantOK(t, o)
			form := o.Value.(askcore.Form)
			assert.Equal(t, "Which database?", form.Message)
			assert.NotContains(t, string(form.RequestedSchema), `"title":"DB","properties"`, "MCP forms have no schema title")
			assert.Contains(t, string(form.RequestedSchema), `"DB"`, "the header is the field's title")
		}},
		{"Form for an unknown target", on(argsDB, func(ctx context.Context, call *askcore.Call) (any, error) {
			return call.Form(ctx, "html")
		}), wantCode(askcore.CodeInvalidRequest)},
		{"Terminal", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Terminal(ctx, askcore.TerminalFacts{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "xterm", NoColor: "1"})
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, askcore.TerminalMode{Picker: true, Color: false}, o.Value)
		}},
		{"Terminal dumb", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Terminal(ctx, askcore.TerminalFacts{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "dumb"})
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, askcore.TerminalMode{}, o.Value)
		}},
		{"Terminal colour", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Terminal(ctx, askcore.TerminalFacts{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "xterm"})
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, askcore.TerminalMode{Picker: true, Color: true}, o.Value)
		}},
		{"Sanitize", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.Sanitize(ctx, "\x1b[31mred\x1b[0m\u202e line one\nline two ")
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.Equal(t, "red line one\nline two", o.Value)
		}},
		{"SanitizeTitle", func(ctx context.Context, c *askcore.Core) (any, error) {
			return c.SanitizeTitle(ctx, "line one\nline two "+strings.Repeat("x", 100))
		}, func(t *testing.T, o outcome) {
			wantOK(t, o)
			assert.NotContains(t, o.Value, "\n")
			assert.True(t, strings.HasPrefix(o.Value.(string), "line one"), o.Value)
			assert.Less(t, len([]rune(o.Value.(string))), 100, "a title is cut")
		}},
	}
}

// TestTypedOpsAgreeAcrossEngines runs every typed op on both engines: the
// same decoded result, the same error, the same bytes, and the bytes kept
// are those of the envelope the engine returned.
func TestTypedOpsAgreeAcrossEngines(t *testing.T) {
	ctx := context.Background()
	for _, tc := range typedOps(t) {
		t.Run(tc.name, func(t *testing.T) {
			var first outcome
			for i, e := range allEngines() {
				rec := &recorder{Engine: e.engine}
				o := outcomeOf(tc.op(ctx, askcore.NewCore(rec)))
				checkKept(t, e.name, rec, o)
				if i == 0 {
					first = o
					tc.check(t, o)
					continue
				}
				assert.Equal(t, first, o, "%s differs from native", e.name)
			}
		})
	}
}

// checkKept checks that the bytes an op kept (an error's or an answer's
// JSON, a call's, the picker's) are exactly those of the last envelope the
// engine returned: an error the rules gave, or a result (op "fail" writes
// its error as a result).
func checkKept(t *testing.T, name string, rec *recorder, o outcome) {
	t.Helper()
	require.NoError(t, o.Fault, name)
	if o.Kept == "" {
		return // decoded only
	}
	env := rec.lastOutput()
	if o.Err != nil && strings.HasPrefix(env, `{"ok":false,`) {
		assert.Equal(t, o.Kept, errorObject(t, env), "%s: the error is the core's bytes", name)
		return
	}
	assert.Equal(t, o.Kept, okResult(t, env), "%s: the value is the core's bytes", name)
}

// situations lists every askcore.Situation. TestFailEverySituation checks
// it against the core's own list, so a new situation cannot go untested.
var situations = []askcore.Failure{
	{Situation: askcore.SituationNoProvider},
	{Situation: askcore.SituationDuplicateProvider},
	{Situation: askcore.SituationAborted},
	{Situation: askcore.SituationAborted, Detail: "the user pressed stop"},
	{Situation: askcore.SituationWithdrawn},
	{Situation: askcore.SituationTimeout, Millis: 120000},
	{Situation: askcore.SituationTimeout, Millis: 1500},
	{Situation: askcore.SituationNoAnswer},
	{Situation: askcore.SituationNotAReply},
	{Situation: askcore.SituationStaleAnswer},
	{Situation: askcore.SituationInvalidReply, Detail: `"7" is not one of the options.`},
	{Situation: askcore.SituationProviderFailed, Detail: "\x1b[31mboom\x1b[0m <b>\nsecond line"},
	{Situation: askcore.SituationEngineFault},
	{Situation: askcore.SituationInterrupted},
	{Situation: askcore.SituationEOF},
	{Situation: askcore.SituationInputClosed},
	{Situation: askcore.SituationReadFailed, Detail: "read /dev/tty: input/output error"},
	{Situation: askcore.SituationDeclined},
	{Situation: askcore.SituationNoTerminal},
	{Situation: askcore.SituationSessionNotFound, Detail: "agent-7"},
	{Situation: askcore.SituationNoFormSupport},
	{Situation: askcore.SituationClientError, Detail: "connection reset"},
	{Situation: askcore.SituationClientNoResult},
	{Situation: askcore.SituationClientGone},
	{Situation: askcore.SituationClientReplyInvalid, Detail: "the error code is \"x\", not an integer"},
	{Situation: askcore.SituationStopped, Detail: "SIGTERM"},
	{Situation: askcore.SituationUsage, Detail: "--timeout: invalid duration"},
	{Situation: askcore.SituationRequestReadFailed, Detail: "read /dev/stdin: bad file descriptor"},
	{Situation: askcore.SituationUnknownTool, Tool: "delete_everything", Tools: []string{"ask_user_question"}},
	{Situation: askcore.SituationUnknownTool, Tool: "x"},
	{Situation: askcore.SituationToolFailed, Tool: "search", Detail: "disk full"},
	{Situation: askcore.SituationToolFailed, Detail: "disk full"},
	{Situation: askcore.SituationToolCancelled},
	{Situation: askcore.SituationNotShown, Detail: "codex-mcp-client declined the form in 2 ms"},
	{Situation: askcore.SituationNotShown},
	{Situation: askcore.SituationNoSurface, Reasons: []string{"the form: not shown", "the terminal: \x1b[2Jnone"}},
	{Situation: askcore.SituationNoSurface},
	{Situation: askcore.SituationAnsweredElsewhere, Detail: "the answer page"},
	{Situation: "no_such_situation"},
}

// failEnvelope is op "fail" for f as any host may write it.
func failEnvelope(f askcore.Failure) map[string]any {
	env := map[string]any{"op": "fail", "situation": string(f.Situation)}
	if f.Detail != "" {
		env["detail"] = f.Detail
	}
	if f.Millis != 0 {
		env["ms"] = f.Millis
	}
	if f.Tool != "" {
		env["tool"] = f.Tool
	}
	if f.Tools != nil {
		env["tools"] = f.Tools
	}
	if f.Reasons != nil {
		env["reasons"] = f.Reasons
	}
	return env
}

func TestFailEverySituation(t *testing.T) {
	ctx := context.Background()

	// The core names every situation in its answer to an unknown one.
	unknown := failure(askcore.Failure{Situation: "no_such_situation"})
	assert.Equal(t, askcore.CodeInvalidRequest, unknown.Code)
	_, list, ok := strings.Cut(unknown.Message, "use one of ")
	require.True(t, ok, unknown.Message)
	covered := map[string]bool{}
	for _, f := range situations {
		covered[string(f.Situation)] = true
	}
	names := strings.Split(list, ", ")
	for _, s := range names {
		assert.True(t, covered[s], "situation %q is not tested (no askcore.Situation constant?)", s)
	}
	assert.Len(t, covered, len(names)+1, "every askcore.Situation is the core's")

	for _, f := range situations {
		env := handle(t, failEnvelope(f))
		var want string
		if f.Situation == "no_such_situation" {
			want = errorObject(t, env) // op fail answers with ok:false
		} else {
			want = okResult(t, env)
		}
		for _, e := range allEngines() {
			rec := &recorder{Engine: e.engine}
			got := askcore.NewCore(rec).Fail(ctx, f)
			require.NotNil(t, got)
			requireCode(t, got, got.Code)
			assert.Equal(t, want, string(got.JSON()), "%s %s: the core's bytes", e.name, f.Situation)
			assert.Equal(t, env, rec.lastOutput(), "%s %s: JSON is the envelope's", e.name, f.Situation)
		}
	}
	timeout := failure(askcore.Failure{Situation: askcore.SituationTimeout, Millis: 120000})
	assert.Equal(t, "no answer within 2m; nothing was chosen", timeout.Message, "a timeout is written for people")
	assert.Equal(t, askcore.ToolErrorName, failure(askcore.Failure{Situation: askcore.SituationToolCancelled}).Name)
	assert.Equal(t, askcore.ErrorName, failure(askcore.Failure{Situation: askcore.SituationDeclined}).Name)
}

// hostFault is an engine that cannot answer, as a closed or trapped one.
type hostFault struct{ calls int }

var errTrap = errors.New("wasm error: unreachable")

func (h *hostFault) Handle(context.Context, []byte) ([]byte, error) {
	h.calls++
	return nil, errTrap
}

// closedWasm returns a WebAssembly engine already closed.
func closedWasm(t *testing.T) *hostgo.Engine {
	t.Helper()
	ctx := context.Background()
	e, err := hostgo.New(ctx, wasmOptions...)
	require.NoError(t, err)
	require.NoError(t, e.Close(ctx))
	return e
}

func TestFailFallsBackToTheNativeCore(t *testing.T) {
	ctx := context.Background()
	faulty := &hostFault{}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	for name, c := range map[string]*askcore.Core{"trap": askcore.NewCore(faulty), "closed": askcore.NewCore(closedWasm(t))} {
		for _, f := range situations {
			assert.Equal(t, string(failure(f).JSON()), string(c.Fail(ctx, f).JSON()), "%s %s", name, f.Situation)
		}
		e := c.Fail(cancelled, askcore.Failure{Situation: askcore.SituationAborted})
		assert.Equal(t, askcore.CodeAskAborted, e.Code, "%s: a done ctx still gets its situation", name)
	}
	assert.Equal(t, len(situations)+1, faulty.calls, "the engine is asked first")
}

// Host text or model text of any size: the envelope would be over the
// core's input limit, yet the situation's error comes back, cut by the
// core, the same on both engines.
func TestFailWithHugeDetail(t *testing.T) {
	ctx := context.Background()
	huge := strings.Repeat("x", 2*core.MaxInputBytes)
	for _, f := range []askcore.Failure{
		{Situation: askcore.SituationProviderFailed, Detail: huge},
		{Situation: askcore.SituationUnknownTool, Tool: huge, Tools: []string{"ask_user_question", huge}},
		{Situation: askcore.SituationUnknownTool, Tool: "x", Tools: strings.Split(strings.Repeat("t,", 100000), ",")},
	} {
		want := failure(f)
		assert.Less(t, len(want.Message), 1000)
		for _, e := range allEngines() {
			rec := &recorder{Engine: e.engine}
			got := askcore.NewCore(rec).Fail(ctx, f)
			assert.Equal(t, string(want.JSON()), string(got.JSON()), "%s %s", e.name, f.Situation)
			assert.Less(t, len(rec.lastInput()), 2*core.MaxFailTextChars*(core.MaxFailTools+2), "the envelope stays small")
			assert.Equal(t, want.JSON(), json.RawMessage(okResult(t, rec.lastOutput())), "%s: the engine wrote it", e.name)
		}
	}
}

func TestEngineFaultsAreEngineErrors(t *testing.T) {
	ctx := context.Background()
	_, err := askcore.NewCore(closedWasm(t)).Normalize(ctx, argsDB)
	var ee *askcore.EngineError
	require.ErrorAs(t, err, &ee)
	assert.ErrorIs(t, err, hostgo.ErrClosed)
	assert.Contains(t, err.Error(), "askcore engine")

	// A call whose engine faults after normalizing it.
	call := normalize(t, askcore.NewCore(&trapAfter{Engine: askcore.Native{}, n: 1}), argsOpen)
	_, err = call.Resolve(ctx, askcore.Lines("x"))
	require.ErrorAs(t, err, &ee)
	assert.ErrorIs(t, err, errTrap)
	var e *askcore.Error
	assert.False(t, errors.As(err, &e), "an engine fault is not a verdict of the rules")
	_, err = call.Present(ctx, 0)
	assert.ErrorIs(t, err, errTrap)
}

// trapAfter answers its first n calls, then traps on every call.
type trapAfter struct {
	askcore.Engine
	n, calls int
}

func (t *trapAfter) Handle(ctx context.Context, in []byte) ([]byte, error) {
	t.calls++
	if t.calls > t.n {
		return nil, errTrap
	}
	return t.Engine.Handle(ctx, in)
}

// garbage is an engine that answers with bytes that are not the core's.
type garbage []byte

func (g garbage) Handle(context.Context, []byte) ([]byte, error) { return g, nil }

func TestUnreadableEnvelopesAreEngineErrors(t *testing.T) {
	ctx := context.Background()
	for _, out := range []string{``, `not json`, `{"ok":false}`, `{"ok":true,"result":[1]}`,
		`{"ok":true,"result":}`, `{"ok":false,"error":{}}`, `{"ok":false,"error":[]}`, `{"ok":true,"result":{"name":1}}`} {
		_, err := askcore.NewCore(garbage(out)).Tool(ctx)
		var ee *askcore.EngineError
		assert.ErrorAs(t, err, &ee, "%q", out)
	}
	// An engine that does not write the core's call.
	_, err := askcore.NewCore(garbage(`{"ok":true,"result":{"questions":1}}`)).Normalize(ctx, argsOpen)
	var ee *askcore.EngineError
	assert.ErrorAs(t, err, &ee)
}

func TestPickMarshalling(t *testing.T) {
	for _, tc := range []struct {
		in   askcore.Pick
		want string
	}{
		{askcore.Pick{}, `{"options":[],"text":""}`},
		{askcore.Pick{Options: []int{2, 0}, Text: "Chat"}, `{"options":[2,0],"text":"Chat"}`},
		{askcore.Pick{Text: `"x" <b>`}, `{"options":[],"text":"\"x\" \u003cb\u003e"}`},
	} {
		b, err := json.Marshal(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(b))
		var back askcore.Pick
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tc.in.Text, back.Text)
	}
	// The core reads a line with '<' as the text it is, whatever the
	// envelope's escaping, and writes it as encoding/json does.
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		call := normalize(t, c, argsOpen)
		a, err := call.Resolve(context.Background(), askcore.Lines("<b>"))
		require.NoError(t, err)
		assert.Equal(t, `{"answer":"\u003cb\u003e"}`, string(a.JSON()))
		assert.Equal(t, "<b>", a.Questions[0].Answer)
		a, err = call.Resolve(context.Background(), askcore.Picks(askcore.Pick{Text: "<b>"}))
		require.NoError(t, err)
		assert.Equal(t, `{"answer":"\u003cb\u003e"}`, string(a.JSON()))
	})
}

func TestNewCore(t *testing.T) {
	ctx := context.Background()
	assert.Equal(t, askcore.Native{}, askcore.NewCore(nil).Engine(), "nil is the native engine")
	var nilCore *askcore.Core
	assert.Equal(t, askcore.Native{}, nilCore.Engine(), "a nil *Core runs natively")
	assert.Equal(t, askcore.CodeNoProvider, nilCore.Fail(ctx, askcore.Failure{Situation: askcore.SituationNoProvider}).Code)
	assert.Same(t, wasm, askcore.NewCore(wasm).Engine())

	in := []byte(`{"op":"schema"}`)
	for _, e := range allEngines() {
		out, err := e.engine.Handle(ctx, in)
		require.NoError(t, err)
		assert.Equal(t, string(core.Handle(in)), string(out), "%s writes the core's bytes", e.name)
	}
	call := normalize(t, askcore.NewCore(wasm), argsOpen)
	assert.Same(t, wasm, call.Core().Engine(), "a call's ops run on the core that normalized it")
}
