package askcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// surfaceLog records what happened to each surface of a FirstReply.
type surfaceLog struct {
	withdrawn chan error // the cause each waiting surface saw, one per surface
}

// waitSurface waits for its ctx and reports the cause it was withdrawn with.
func (l *surfaceLog) waitSurface() askcore.ProviderFunc {
	return func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		<-ctx.Done()
		l.withdrawn <- context.Cause(ctx)
		return askcore.Reply{}, ctx.Err()
	}
}

// after answers with r once start is closed, so a test orders its surfaces
// without sleeping.
func after(start <-chan struct{}, r askcore.Reply, err error) askcore.ProviderFunc {
	return func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		select {
		case <-start:
			return r, err
		case <-ctx.Done():
			return askcore.Reply{}, ctx.Err()
		}
	}
}

func fail(f askcore.Failure) askcore.ProviderFunc {
	return func(context.Context, *askcore.Call) (askcore.Reply, error) { return askcore.Reply{}, f }
}

// notShownForm is a form surface whose client declines in 2 ms (codex
// exec): the core judges the reply not shown.
func notShownForm(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	step, err := call.JudgeForm(ctx, askcore.FormRound{
		Target: askcore.ForMCP, Response: json.RawMessage(`{"action":"decline"}`),
		Delivery: &askcore.Delivery{Elapsed: 2 * time.Millisecond, Client: "codex-mcp-client", Trigger: "exec"},
	})
	if err != nil {
		return askcore.Reply{}, err
	}
	if step.Next != askcore.FormNextSurface {
		return askcore.Reply{}, errors.New("expected next_surface, got " + string(step.Next))
	}
	return askcore.Reply{}, step.Err
}

func TestFirstReply(t *testing.T) {
	ctx := context.Background()
	answer := `{"answer":"go","selected":{"index":0,"label":"Go","value":"go"}}`
	notShownReason := "codex-mcp-client declined the form without a person: it runs this turn unattended (turn_trigger exec) and cannot show questions"
	tests := []struct {
		name string
		// surfaces builds the surfaces; start, when closed, lets the
		// "after" surfaces answer.
		surfaces  func(l *surfaceLog) []askcore.Surface
		waiting   int // surfaces that wait to be withdrawn
		want      string
		wantErr   *askcore.Error
		wantCause *askcore.Error // what the waiting surfaces were withdrawn with
	}{
		{
			name: "the first reply wins and the others are withdrawn",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{{"the terminal", l.waitSurface()}, {"the answer page", lines("1")}, {"the hub", l.waitSurface()}}
			},
			waiting:   2,
			want:      answer,
			wantCause: failure(askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the answer page"}),
		},
		{
			name: "a surface that did not show the question drops out while the others wait",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{{"the form", askcore.ProviderFunc(notShownForm)}, {"the terminal", lines("Go")}}
			},
			want: answer,
		},
		{
			name: "no form support and no terminal drop out too",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{
					{"the form", fail(askcore.Failure{Situation: askcore.SituationNoFormSupport})},
					{"the terminal", fail(askcore.Failure{Situation: askcore.SituationNoTerminal})},
					{"the answer page", lines("2")},
				}
			},
			want: `{"answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}}`,
		},
		{
			name: "when every surface dropped out, nobody saw the question: no_surface lists why",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{
					{"the form", askcore.ProviderFunc(notShownForm)},
					{"the answer page", fail(askcore.Failure{Situation: askcore.SituationNotShown, Detail: "no browser can open here and nobody sees its address"})},
				}
			},
			wantErr: failure(askcore.Failure{Situation: askcore.SituationNoSurface, Reasons: []string{
				"the form: " + notShownReason, "the answer page: no browser can open here and nobody sees its address"}}),
		},
		{
			name: "a person's decline on one surface ends the ask",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{{"the terminal", l.waitSurface()}, {"the form", askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
					return askcore.Decline(), nil
				})}}
			},
			waiting:   1,
			wantErr:   failure(askcore.Failure{Situation: askcore.SituationDeclined}),
			wantCause: failure(askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the form"}),
		},
		{
			name: "a surface's other failure ends the ask as it is",
			surfaces: func(l *surfaceLog) []askcore.Surface {
				return []askcore.Surface{{"the terminal", l.waitSurface()}, {"the form", fail(askcore.Failure{Situation: askcore.SituationClientError, Detail: "boom"})}}
			},
			waiting:   1,
			wantErr:   failure(askcore.Failure{Situation: askcore.SituationClientError, Detail: "boom"}),
			wantCause: failure(askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the form"}),
		},
		{
			name:     "no surfaces at all",
			surfaces: func(*surfaceLog) []askcore.Surface { return nil },
			wantErr:  failure(askcore.Failure{Situation: askcore.SituationNoSurface}),
		},
		{
			name: "a surface without a provider drops out, named by its position",
			surfaces: func(*surfaceLog) []askcore.Surface {
				return []askcore.Surface{{Provider: nil}, {"the terminal", fail(askcore.Failure{Situation: askcore.SituationNoTerminal})}}
			},
			wantErr: failure(askcore.Failure{Situation: askcore.SituationNoSurface, Reasons: []string{
				"surface 1: " + failure(askcore.Failure{Situation: askcore.SituationNoProvider}).Message,
				"the terminal: " + failure(askcore.Failure{Situation: askcore.SituationNoTerminal}).Message}}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			onEngines(t, func(t *testing.T, c *askcore.Core) {
				l := &surfaceLog{withdrawn: make(chan error, 8)}
				svc := askcore.NewService(c)
				register(t, svc, askcore.FirstReply(tc.surfaces(l)...))
				a, err := svc.Ask(ctx, args, askcore.AskOptions{})
				if tc.wantErr != nil {
					e := requireError(t, err)
					assert.JSONEq(t, string(tc.wantErr.JSON()), string(e.JSON()))
					assert.Equal(t, string(tc.wantErr.JSON()), string(e.JSON()), "the core's bytes")
				} else {
					require.NoError(t, err)
					assert.Equal(t, tc.want, string(a.JSON()))
				}
				for range tc.waiting {
					cause := <-l.withdrawn
					var e *askcore.Error
					require.ErrorAs(t, cause, &e)
					assert.Equal(t, string(tc.wantCause.JSON()), string(e.JSON()))
				}
			})
		})
	}
}

// A FirstReply whose ask is aborted withdraws every surface with the
// abort, and the seam reports the abort.
func TestFirstReplyAbort(t *testing.T) {
	l := &surfaceLog{withdrawn: make(chan error, 2)}
	reached := make(chan struct{})
	svc := askcore.NewService(nil)
	register(t, svc, askcore.FirstReply(askcore.Surface{"the terminal", l.waitSurface()}, askcore.Surface{"the page", waiting(reached)}))
	ctx, cancel := context.WithCancelCause(context.Background())
	wait := asyncAsk(ctx, svc, args, askcore.AskOptions{})
	<-reached
	cancel(errors.New("the run was stopped"))
	_, err := wait()
	e := requireError(t, err)
	assert.Equal(t, askcore.CodeAskAborted, e.Code)
	assert.Contains(t, e.Message, "the run was stopped")
	assert.EqualError(t, <-l.withdrawn, "the run was stopped")
}

// A surface whose question continues in a later call (ErrContinues) ends
// the ask with its error, and the others are cancelled with it as the
// cause, not withdrawn as answered elsewhere.
func TestFirstReplyContinues(t *testing.T) {
	l := &surfaceLog{withdrawn: make(chan error, 2)}
	reached := make(chan struct{})
	handedBack := fmt.Errorf("the form went back to the client: %w", askcore.ErrContinues)
	call, err := askcore.NewCore(nil).Normalize(context.Background(), args)
	require.NoError(t, err)
	p := askcore.FirstReply(
		askcore.Surface{"the page", l.waitSurface()},
		askcore.Surface{"the form", askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			<-reached
			return askcore.Reply{}, handedBack
		})},
	)
	go close(reached)
	_, err = p.Ask(context.Background(), call)
	assert.ErrorIs(t, err, askcore.ErrContinues)
	assert.ErrorIs(t, <-l.withdrawn, askcore.ErrContinues, "the page keeps the question for the next call")
}

// A late surface's reply after the winner is dropped: the model gets the
// winner's answer.
func TestFirstReplyLateReplyDropped(t *testing.T) {
	start := make(chan struct{})
	deaf := make(chan struct{})
	svc := askcore.NewService(nil)
	register(t, svc, askcore.FirstReply(
		askcore.Surface{"the page", after(start, askcore.Lines("2"), nil)},
		askcore.Surface{"the terminal", askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			<-deaf // deaf to its ctx
			return askcore.Lines("1"), nil
		})},
	))
	close(start)
	a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}}`, string(a.JSON()))
	close(deaf)
}

func TestJudgeFormLoop(t *testing.T) {
	ctx := context.Background()
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		call, err := c.Normalize(ctx, args)
		require.NoError(t, err)
		person := &askcore.Delivery{Elapsed: 4 * time.Second, Client: "claude-code"}
		empty := json.RawMessage(`{"action":"accept","content":{}}`)
		round := 0
		for i := 0; i < 3; i++ {
			step, err := call.JudgeForm(ctx, askcore.FormRound{Target: askcore.ForMCP, Response: empty, Round: round, Delivery: person})
			require.NoError(t, err)
			require.Equal(t, askcore.FormAskAgain, step.Next)
			assert.Equal(t, i+1, step.Round)
			assert.Equal(t, 2-i, step.RoundsLeft)
			assert.Contains(t, step.Form.Message, "The form was accepted without an answer.")
			assert.Contains(t, string(step.Form.RequestedSchema), `"title":"Go (recommended) — fast builds"`)
			round = step.Round
		}
		step, err := call.JudgeForm(ctx, askcore.FormRound{Response: empty, Round: round, Delivery: person})
		require.NoError(t, err)
		require.Equal(t, askcore.FormEnd, step.Next)
		assert.Equal(t, askcore.CodeInvalidAnswer, step.Err.Code)

		// The person gave up: through a provider, the model hears the
		// core's invalid_reply as it is (not quoted twice).
		svc := askcore.NewService(c)
		register(t, svc, askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
			s, err := call.JudgeForm(ctx, askcore.FormRound{Response: empty, Round: 3, Delivery: person})
			if err != nil {
				return askcore.Reply{}, err
			}
			return askcore.Reply{}, s.Err
		}))
		_, err = svc.Ask(ctx, args, askcore.AskOptions{})
		assert.Equal(t, string(step.Err.JSON()), string(requireError(t, err).JSON()))

		step, err = call.JudgeForm(ctx, askcore.FormRound{Response: json.RawMessage(`{"action":"accept","content":{"choice":"go"}}`), Round: 2, Delivery: person})
		require.NoError(t, err)
		require.Equal(t, askcore.FormAnswer, step.Next)
		got, err := call.Resolve(ctx, askcore.Answered(step.Answer))
		require.NoError(t, err, "the answer is the core's, for this very call")
		assert.Equal(t, string(step.Answer.JSON()), string(got.JSON()))

		step, err = call.JudgeForm(ctx, askcore.FormRound{Response: json.RawMessage(`{"action":"cancel"}`), Delivery: &askcore.Delivery{Elapsed: 12 * time.Millisecond, Client: "claude-code"}})
		require.NoError(t, err)
		require.Equal(t, askcore.FormNextSurface, step.Next)
		assert.Equal(t, askcore.CodeAskFailed, step.Err.Code)
		assert.Contains(t, step.Err.Message, "Nobody saw the question: claude-code cancelled the form in 12 ms")

		step, err = call.JudgeForm(ctx, askcore.FormRound{Response: json.RawMessage(`{"action":"cancel"}`), Delivery: person})
		require.NoError(t, err)
		require.Equal(t, askcore.FormEnd, step.Next)
		assert.Equal(t, askcore.CodeAskCancelled, step.Err.Code)

		_, err = call.JudgeForm(ctx, askcore.FormRound{Response: json.RawMessage(`{"action":`)})
		assert.Equal(t, askcore.CodeAskFailed, requireError(t, err).Code, "not JSON: not a reply")
		_, err = call.JudgeForm(ctx, askcore.FormRound{Response: empty, Round: 4})
		assert.Equal(t, askcore.CodeInvalidRequest, requireError(t, err).Code)
	})
}

func TestFormForAndProgress(t *testing.T) {
	ctx := context.Background()
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		call, err := c.Normalize(ctx, args)
		require.NoError(t, err)
		codex, err := call.FormFor(ctx, askcore.ForMCP, "codex-mcp-client")
		require.NoError(t, err)
		assert.NotContains(t, string(codex.RequestedSchema), `"notes"`)
		claude, err := call.FormFor(ctx, askcore.ForMCP, "claude-code")
		require.NoError(t, err)
		assert.Contains(t, string(claude.RequestedSchema), `"notes"`)

		for _, tc := range []struct {
			elapsed time.Duration
			url     string
			want    string
		}{
			{0, "", "Waiting for your answer…"},
			{65 * time.Second, "", "Waiting for your answer… (1 minute 5 seconds so far)"},
			{12 * time.Second, "http://127.0.0.1:8080/a", "Waiting for your answer… (12 seconds so far). Answer at http://127.0.0.1:8080/a"},
		} {
			got, err := c.Progress(ctx, tc.elapsed, tc.url)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		}
		_, err = c.Progress(ctx, time.Second, "file:///etc/passwd")
		assert.Equal(t, askcore.CodeInvalidRequest, requireError(t, err).Code)
	})
}

// requireError checks that err is an *askcore.Error and returns it.
func requireError(t *testing.T, err error) *askcore.Error {
	t.Helper()
	var e *askcore.Error
	require.ErrorAs(t, err, &e)
	return e
}
