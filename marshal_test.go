package askcore_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// marshalled is json.Marshal(v) as a string.
func marshalled(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestMarshalIsTheCoresBytes holds every public type to the promise of
// types.go: encoding/json writes exactly the bytes the core writes for it,
// for a value the core produced (its bytes kept), for the same value built
// by hand (the fields in the core's order), and for one decoded from the
// core's bytes.
func TestMarshalIsTheCoresBytes(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{Engine: askcore.Native{}}
	c := askcore.NewCore(rec)
	// result is what the core wrote for the last op.
	result := func() string { return okResult(t, rec.lastOutput()) }

	t.Run("Answer", func(t *testing.T) {
		const odd = `Aurora <b> & "Co" \ é`
		for _, tc := range []struct {
			name, arguments string
			reply           askcore.Reply
			want            string
		}{
			{"single", argsDB, askcore.Lines("2"),
				`{"answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}}`},
			{"single, the person's own text", `{"question":"Which?","options":["a"],"allowCustom":true}`, askcore.Lines(odd),
				`{"answer":"Aurora \u003cb\u003e \u0026 \"Co\" \\ é"}`},
			{"open", argsOpen, askcore.Lines("Aurora"), `{"answer":"Aurora"}`},
			{"multi-select", argsMulti, askcore.Lines("1, 2, Chat"),
				`{"answers":["auth","billing","Chat"],"selected":[{"index":0,"label":"Auth","value":"auth"},{"index":1,"label":"Billing","value":"billing"}]}`},
			{"multi-select, own text only", argsMulti, askcore.Lines("Chat"), `{"answers":["Chat"],"selected":[]}`},
			{"batch", argsBatch, askcore.Lines("2", "Billing, Chat", "Aurora"), batchAnswer},
			{"batch of one", `{"questions":[` + argsOpen + `]}`, askcore.Lines("Aurora"), `{"answers":[{"question":"Name?","answer":"Aurora"}]}`},
			{"batch with a multi-select question answered by text only", `{"questions":[` + argsMulti + `]}`, askcore.Lines("Chat"),
				`{"answers":[{"question":"Which features?","answers":["Chat"],"selected":[]}]}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				call := normalize(t, c, tc.arguments)
				a, err := call.Resolve(ctx, tc.reply)
				require.NoError(t, err)
				assert.Equal(t, tc.want, result())
				assert.Equal(t, tc.want, string(a.JSON()))
				assert.Equal(t, tc.want, marshalled(t, a), "the core's answer")
				assert.Equal(t, tc.want, marshalled(t, &a))
				assert.Equal(t, tc.want, marshalled(t, askcore.Answer{Batch: a.Batch, Questions: a.Questions}), "built by hand")
				var decoded askcore.Answer
				require.NoError(t, json.Unmarshal([]byte(tc.want), &decoded))
				assert.Equal(t, a.Batch, decoded.Batch)
				assert.Equal(t, a.Questions, decoded.Questions)
				assert.Equal(t, tc.want, marshalled(t, decoded), "decoded")
				assert.Equal(t, tc.want, string(decoded.JSON()))
				for i, q := range a.Questions {
					if !a.Batch {
						assert.Equal(t, tc.want, marshalled(t, q), "a single question's answer is the call's")
					}
					assert.Equal(t, call.Batch, q.Question != "", "a question's text is written in a batch only (%d)", i)
				}
			})
		}
		// The fields, not the bytes, of an answer that is not the core's.
		_, err := json.Marshal(askcore.Answer{})
		assert.Error(t, err, "a single answer holds exactly one question's")
		_, err = json.Marshal(askcore.QuestionAnswer{Answer: "x", Selected: make([]askcore.Selected, 2)})
		assert.Error(t, err, "a single-select answer has at most one selected option")
		assert.Equal(t, `{"answers":[]}`, marshalled(t, askcore.Answer{Batch: true}))
		assert.Equal(t, `{"answers":[],"selected":[]}`, marshalled(t, askcore.QuestionAnswer{Multi: true}))
	})

	t.Run("Question", func(t *testing.T) {
		for _, arguments := range []string{argsDB, argsMulti, argsOpen, `{"question":"Q <&>?","options":[{"label":"<a>","description":"x & y"}]}`} {
			call := normalize(t, c, arguments)
			require.Len(t, call.Questions, 1)
			assert.Equal(t, result(), string(call.JSON()))
			assert.Equal(t, result(), marshalled(t, call.Questions[0]), arguments)
			assert.Equal(t, result(), marshalled(t, call), "a call marshals as the core wrote it")
			var decoded askcore.Question
			require.NoError(t, json.Unmarshal(call.JSON(), &decoded))
			assert.Equal(t, call.Questions[0], decoded)
		}
		call := normalize(t, c, argsBatch)
		assert.Equal(t, result(), marshalled(t, struct {
			Questions []askcore.Question `json:"questions"`
		}{call.Questions}), "a batch's questions")
		assert.Equal(t, result(), marshalled(t, call))
		// An optionless question built by hand, as the core writes it.
		normalize(t, c, `{"question":"Name?"}`)
		assert.Equal(t, result(), marshalled(t, askcore.Question{Question: "Name?", AllowCustom: true}))
	})

	t.Run("Tool", func(t *testing.T) {
		tool, err := c.Tool(ctx)
		require.NoError(t, err)
		assert.Equal(t, result(), marshalled(t, tool))
		var decoded askcore.Tool
		require.NoError(t, json.Unmarshal([]byte(result()), &decoded))
		assert.Equal(t, result(), marshalled(t, decoded))
	})

	t.Run("Form", func(t *testing.T) {
		for _, arguments := range []string{argsDB, argsBatch} {
			for _, target := range []askcore.FormTarget{askcore.ForACP, askcore.ForMCP} {
				form, err := normalize(t, c, arguments).Form(ctx, target)
				require.NoError(t, err)
				assert.Equal(t, result(), marshalled(t, form), "%s %s", target, arguments)
			}
		}
	})

	t.Run("Presentation", func(t *testing.T) {
		p, err := normalize(t, c, argsDB).Present(ctx, 0)
		require.NoError(t, err)
		assert.Equal(t, result(), marshalled(t, p))
	})

	t.Run("TerminalMode", func(t *testing.T) {
		for _, facts := range []askcore.TerminalFacts{{}, {StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "xterm"}} {
			m, err := c.Terminal(ctx, facts)
			require.NoError(t, err)
			assert.Equal(t, result(), marshalled(t, m))
		}
	})

	t.Run("Pick", func(t *testing.T) {
		// The core never writes a pick; it reads one. The bytes
		// encoding/json writes for a Pick are an input the core takes, and
		// it gives the answer Picks gives.
		call := normalize(t, c, argsMulti)
		for _, p := range []askcore.Pick{{}, {Options: []int{1}}, {Options: []int{1, 0}, Text: "<Chat>"}} {
			raw := json.RawMessage(marshalled(t, p))
			env := handle(t, map[string]any{"op": "resolve", "request": call.JSON(), "input": raw})
			a, err := call.Resolve(ctx, askcore.Picks(p))
			if err != nil {
				requireCode(t, err, askcore.CodeInvalidAnswer)
				errorObject(t, env)
				continue
			}
			assert.Equal(t, okResult(t, env), string(a.JSON()), "%s", raw)
		}
	})

	t.Run("Error", func(t *testing.T) {
		_, err := c.Normalize(ctx, `{"question":"q","options":["<a>","<A>"]}`)
		e := requireCode(t, err, askcore.CodeInvalidRequest)
		want := errorObject(t, rec.lastOutput())
		f := failure(askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "<b> & \u2028"})
		for _, tc := range []struct {
			e    *askcore.Error
			want string
		}{{e, want}, {f, okResult(t, handle(t, failEnvelope(askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "<b> & \u2028"})))}} {
			assert.Equal(t, tc.want, string(tc.e.JSON()))
			assert.Equal(t, tc.want, marshalled(t, tc.e))
			assert.Equal(t, tc.want, marshalled(t, *tc.e), "the value marshals as the pointer")
			assert.Equal(t, tc.want, marshalled(t, &askcore.Error{Name: tc.e.Name, Code: tc.e.Code, Message: tc.e.Message}), "built by hand")
			var decoded askcore.Error
			require.NoError(t, json.Unmarshal([]byte(tc.want), &decoded))
			assert.Equal(t, tc.want, marshalled(t, decoded), "decoded")
			assert.Equal(t, tc.want, string(askcore.ErrorJSON(tc.e)))
			result, isError := askcore.ToolResult(askcore.Answer{}, tc.e)
			assert.True(t, isError)
			assert.Equal(t, tc.want, string(result))
		}
	})
}

func TestAsErrorAndToolResult(t *testing.T) {
	assert.Nil(t, askcore.AsError(nil))
	assert.Nil(t, askcore.ErrorJSON(nil))

	// An error that never went through the seam is the core's TOOL_FAILED.
	e := askcore.AsError(context.DeadlineExceeded)
	assert.Equal(t, askcore.ToolErrorName, e.Name)
	assert.Equal(t, askcore.CodeToolFailed, e.Code)
	assert.Equal(t, string(failure(askcore.Failure{Situation: askcore.SituationToolFailed, Detail: "context deadline exceeded"}).JSON()), string(e.JSON()))

	var nilErr *askcore.Error
	assert.Nil(t, askcore.AsError(nilErr), "a nil *Error is no error")
	assert.Nil(t, askcore.ErrorJSON(nilErr))

	call := normalize(t, native, argsOpen)
	a, err := call.Resolve(context.Background(), askcore.Lines("Aurora"))
	require.NoError(t, err)
	result, isError := askcore.ToolResult(a, nil)
	assert.False(t, isError)
	assert.Equal(t, `{"answer":"Aurora"}`, string(result))
	result, isError = askcore.ToolResult(a, nilErr)
	assert.False(t, isError, "a nil *Error beside an answer is no error")
	assert.Equal(t, `{"answer":"Aurora"}`, string(result))
}
