package askcore_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// askWith asks args through a service on c whose provider returns what
// reply returns for the call it is asked.
func askWith(t *testing.T, c *askcore.Core, arguments string, reply func(ctx context.Context, call *askcore.Call) askcore.Reply) (askcore.Answer, error) {
	t.Helper()
	svc := askcore.NewService(c)
	register(t, svc, askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return reply(ctx, call), nil
	}))
	return svc.Ask(context.Background(), arguments, askcore.AskOptions{})
}

// Only the core makes answers: a provider hands back what the person gave,
// or an answer the core resolved for that very call. Anything else is
// refused, so that no provider can put words in the person's mouth.
func TestProvenance(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		notAReply := askcore.Failure{Situation: askcore.SituationNotAReply}
		stale := askcore.Failure{Situation: askcore.SituationStaleAnswer}

		t.Run("an answer built by hand", func(t *testing.T) {
			a, err := askWith(t, c, args, func(context.Context, *askcore.Call) askcore.Reply {
				return askcore.Answered(askcore.Answer{Questions: []askcore.QuestionAnswer{{Answer: "go"}}})
			})
			requireSituation(t, err, notAReply)
			noAnswer(t, a)
		})

		t.Run("an answer decoded from JSON", func(t *testing.T) {
			// The very bytes the core would write for this reply.
			want := `{"answer":"go","selected":{"index":0,"label":"Go","value":"go"}}`
			a, err := normalize(t, c, args).Resolve(context.Background(), askcore.Lines("1"))
			require.NoError(t, err)
			require.Equal(t, want, string(a.JSON()))
			_, err = askWith(t, c, args, func(context.Context, *askcore.Call) askcore.Reply {
				var decoded askcore.Answer
				require.NoError(t, json.Unmarshal([]byte(want), &decoded))
				return askcore.Answered(decoded)
			})
			requireSituation(t, err, notAReply)
		})

		t.Run("the zero answer", func(t *testing.T) {
			_, err := askWith(t, c, args, func(context.Context, *askcore.Call) askcore.Reply {
				return askcore.Answered(askcore.Answer{})
			})
			requireSituation(t, err, notAReply)
		})

		t.Run("the answer of another call", func(t *testing.T) {
			for name, other := range map[string]string{"the same arguments": args, "another question": argsOpen} {
				t.Run(name, func(t *testing.T) {
					_, err := askWith(t, c, args, func(ctx context.Context, _ *askcore.Call) askcore.Reply {
						a, err := normalize(t, c, other).Resolve(ctx, askcore.Lines("go"))
						require.NoError(t, err)
						return askcore.Answered(a)
					})
					requireSituation(t, err, stale)
				})
			}
		})

		t.Run("the answer of the call asked before", func(t *testing.T) {
			var previous *askcore.Answer
			svc := askcore.NewService(c)
			register(t, svc, askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
				if previous != nil {
					return askcore.Answered(*previous), nil
				}
				a, err := call.Resolve(ctx, askcore.Lines("rust"))
				previous = &a
				return askcore.Answered(a), err
			}))
			a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
			require.NoError(t, err)
			assert.Equal(t, "Rust", a.Questions[0].Answer)
			_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
			requireSituation(t, err, stale)
		})

		t.Run("the answer resolved for this call", func(t *testing.T) {
			var resolved askcore.Answer
			a, err := askWith(t, c, batchArgs, func(ctx context.Context, call *askcore.Call) askcore.Reply {
				var err error
				resolved, err = call.Resolve(ctx, askcore.Lines("rust", "2"))
				require.NoError(t, err)
				// A provider that changes the fields cannot change what the
				// model receives, nor what the caller reads.
				resolved.Questions[0].Answer = "forged"
				resolved.Batch = false
				return askcore.Answered(resolved)
			})
			require.NoError(t, err)
			want := `{"answers":[{"question":"Which language?","answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}},` +
				`{"question":"Which features?","answers":["Billing"],"selected":[{"index":1,"label":"Billing","value":"Billing"}]}]}`
			assert.Equal(t, want, string(a.JSON()))
			assert.Equal(t, want, marshalled(t, a))
			var decoded askcore.Answer
			require.NoError(t, json.Unmarshal([]byte(want), &decoded))
			assert.Equal(t, decoded.Questions, a.Questions, "the fields are the core's bytes")
			assert.True(t, a.Batch)
		})

		t.Run("lines that are no option", func(t *testing.T) {
			const closed = `{"question":"Which?","options":["a","b"]}`
			_, reprompt := normalize(t, c, closed).CheckLine(context.Background(), 0, "7")
			person := requireCode(t, reprompt, askcore.CodeInvalidAnswer)
			_, err := askWith(t, c, closed, func(context.Context, *askcore.Call) askcore.Reply { return askcore.Lines("7") })
			e := requireSituation(t, err, askcore.Failure{Situation: askcore.SituationInvalidReply, Detail: person.Message})
			assert.Equal(t, askcore.CodeInvalidAnswer, e.Code)
			assert.Contains(t, e.Message, person.Message, "the model reads what the person was told")
			assert.NotEqual(t, person.Message, e.Message, "the person's re-prompt is not the model's message")

			// A pick of an option that is not there, and an empty one.
			for _, p := range []askcore.Pick{{Options: []int{5}}, {}} {
				_, err = askWith(t, c, closed, func(context.Context, *askcore.Call) askcore.Reply { return askcore.Picks(p) })
				requireCode(t, err, askcore.CodeInvalidAnswer)
			}
		})

		t.Run("as many lines as questions", func(t *testing.T) {
			for _, tc := range []struct {
				arguments string
				reply     askcore.Reply
			}{
				{args, askcore.Lines()},
				{args, askcore.Lines("1", "1")},
				{batchArgs, askcore.Lines("1")},
				{batchArgs, askcore.Lines("1", "1", "1")},
				{batchArgs, askcore.Picks(askcore.Pick{Options: []int{0}})},
				{args, askcore.Picks()},
			} {
				a, err := askWith(t, c, tc.arguments, func(context.Context, *askcore.Call) askcore.Reply { return tc.reply })
				requireSituation(t, err, notAReply)
				noAnswer(t, a)
			}
		})

		t.Run("a form reply that is not JSON", func(t *testing.T) {
			_, err := askWith(t, c, args, func(context.Context, *askcore.Call) askcore.Reply {
				return askcore.FormReply(json.RawMessage(`{"action":"accept"`))
			})
			requireSituation(t, err, notAReply)
		})
	})

	// An answer the other engine's core resolved for a call of its own.
	otherCore := askcore.NewCore(wasm)
	_, err := askWith(t, native, args, func(ctx context.Context, _ *askcore.Call) askcore.Reply {
		a, err := normalize(t, otherCore, args).Resolve(ctx, askcore.Lines("1"))
		require.NoError(t, err)
		return askcore.Answered(a)
	})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationStaleAnswer})
}
