package askcore_test

import (
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

	"github.com/askcore/askcore"
)

const args = `{"header":" Lang ","question":"Which language?","options":[` +
	`{"label":"Go","value":"go","description":"fast builds","recommended":true},` +
	`{"label":"Rust"}],"allowCustom":true}`

const batchArgs = `{"questions":[` + args + `,{"question":"Which features?","options":["Auth","Billing"],"multiSelect":true}]}`

// lines is a provider that answers every call with the same typed lines.
func lines(ls ...string) askcore.ProviderFunc {
	return func(context.Context, *askcore.Call) (askcore.Reply, error) { return askcore.Lines(ls...), nil }
}

// waiting is a provider that reports when it was reached and waits for its
// ctx, as a well-behaved prompt does.
func waiting(reached chan<- struct{}) askcore.ProviderFunc {
	return func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		close(reached)
		<-ctx.Done()
		return askcore.Reply{}, ctx.Err()
	}
}

// register registers p on svc, disposed when the test ends.
func register(t *testing.T, svc *askcore.Service, p askcore.Provider) (dispose func()) {
	t.Helper()
	dispose, err := svc.Register(p)
	require.NoError(t, err)
	t.Cleanup(dispose)
	return dispose
}

// asyncAsk runs Ask in a goroutine; wait returns its outcome.
func asyncAsk(ctx context.Context, svc *askcore.Service, arguments string, opts askcore.AskOptions) (wait func() (askcore.Answer, error)) {
	type out struct {
		a   askcore.Answer
		err error
	}
	ch := make(chan out, 1)
	go func() {
		a, err := svc.Ask(ctx, arguments, opts)
		ch <- out{a, err}
	}()
	return func() (askcore.Answer, error) {
		o := <-ch
		return o.a, o.err
	}
}

// noAnswer checks that a is the zero Answer: never an empty answer.
func noAnswer(t *testing.T, a askcore.Answer) {
	t.Helper()
	assert.False(t, a.Batch)
	assert.Nil(t, a.Questions)
	b, err := json.Marshal(a)
	assert.Error(t, err, "the zero Answer is no answer: %s", b)
}

func TestProviderReceivesTheNormalizedCallAndIdentity(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		assert.Same(t, c, svc.Core())
		var got []*askcore.Call
		register(t, svc, askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
			got = append(got, call)
			if call.Batch {
				return askcore.Lines("rust", "1,2"), nil
			}
			return askcore.Lines("rust"), nil
		}))

		from := askcore.Identity{AgentID: "agent-1", SessionID: "sess-1", ToolCallID: "call-1"}
		a, err := svc.Ask(context.Background(), args, askcore.AskOptions{From: from})
		require.NoError(t, err)
		assert.Equal(t, `{"answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}}`, string(a.JSON()))

		a, err = svc.Ask(context.Background(), batchArgs, askcore.AskOptions{})
		require.NoError(t, err)
		assert.Equal(t, `{"answers":[{"question":"Which language?","answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}},`+
			`{"question":"Which features?","answers":["Auth","Billing"],"selected":[{"index":0,"label":"Auth","value":"Auth"},{"index":1,"label":"Billing","value":"Billing"}]}]}`,
			string(a.JSON()))
		assert.True(t, a.Batch)
		require.Len(t, a.Questions, 2)
		assert.True(t, a.Questions[1].Multi)

		require.Len(t, got, 2)
		assert.Equal(t, from, got[0].From)
		assert.Equal(t, askcore.Identity{}, got[1].From)
		want := normalize(t, c, args)
		assert.Equal(t, string(want.JSON()), string(got[0].JSON()), "the provider gets the core's normalized call")
		assert.Equal(t, want.Questions, got[0].Questions)
		assert.Same(t, c, got[0].Core(), "the call's ops run on the service's core")
		assert.Equal(t, "Lang", got[0].Questions[0].Header, "strings are trimmed")
		assert.False(t, got[0].Batch)
		assert.True(t, got[1].Batch)
		require.Len(t, got[1].Questions, 2)
		assert.True(t, got[1].Questions[1].MultiSelect)
	})
}

// The arguments reach the core as the text the model wrote: the core
// parses them, and the provider is never reached with a bad request.
func TestInvalidArgumentsNeverReachTheProvider(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		var calls atomic.Int32
		register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			calls.Add(1)
			return askcore.Lines("1"), nil
		}))

		for text, want := range map[string]string{
			`{"question": `: "unexpected end of input at byte 13 of 13",
			`{"question":"Q?","options":["a","b"]},"junk":1`: "at byte 37 of 46",
			``:      "the arguments are empty",
			` `:     "the arguments are empty",
			`["q"]`: "got an array",
			`{"question":"q","options":["<a>","<A>"]}`:        `"<A>"`,
			`{"question":"q","questions":[{"question":"r"}]}`: "both questions and question",
		} {
			_, err := svc.Ask(context.Background(), text, askcore.AskOptions{})
			e := requireCode(t, err, askcore.CodeInvalidRequest)
			assert.Contains(t, e.Message, want, "arguments %q", text)
		}
		assert.Zero(t, calls.Load())
	})
}

func TestNoProviderFailsAtOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
		noAnswer(t, a)

		// Invalid arguments are reported first: the model can fix those.
		_, err = svc.Ask(context.Background(), `{"question":`, askcore.AskOptions{})
		requireCode(t, err, askcore.CodeInvalidRequest)
	})
}

func TestDuplicateProviderRejectedUntilDisposed(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		first := lines("")
		dispose1, err := svc.Register(first)
		require.NoError(t, err)

		dispose2, err := svc.Register(first)
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationDuplicateProvider})
		assert.Nil(t, dispose2)

		dispose1()
		dispose1() // safe twice
		dispose3, err := svc.Register(lines("rust"))
		require.NoError(t, err)
		dispose1() // a stale dispose does not unregister the new provider

		a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
		require.NoError(t, err)
		assert.Equal(t, "Rust", a.Questions[0].Answer, "the second provider answered")
		dispose3()

		_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
	})
}

// The zero Service and a nil one fail cleanly: no panic.
func TestNilAndZeroService(t *testing.T) {
	ctx := context.Background()
	var nilSvc *askcore.Service
	assert.NotPanics(t, func() {
		a, err := nilSvc.Ask(ctx, args, askcore.AskOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "nil *Service")
		noAnswer(t, a)
		_, err = nilSvc.Register(lines("1"))
		require.Error(t, err)
		assert.NotNil(t, nilSvc.Core(), "a nil *Service's core is the native one")
	})

	var zero askcore.Service // runs natively
	_, err := zero.Ask(ctx, args, askcore.AskOptions{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
	register(t, &zero, lines("rust"))
	a, err := zero.Ask(ctx, args, askcore.AskOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Rust", a.Questions[0].Answer)

	_, err = askcore.NewService(nil).Register(nil)
	require.Error(t, err, "a nil provider is refused")
}

// counting counts the envelopes sent to an engine, by op.
type counting struct {
	askcore.Engine
	mu  sync.Mutex
	ops map[string]int
}

func (c *counting) Handle(ctx context.Context, in []byte) ([]byte, error) {
	var env struct{ Op string }
	_ = json.Unmarshal(in, &env)
	c.mu.Lock()
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[env.Op]++
	c.mu.Unlock()
	return c.Engine.Handle(ctx, in)
}

func (c *counting) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

func TestAbortBeforeTheAsk(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		counter := &counting{Engine: c.Engine()}
		svc := askcore.NewService(askcore.NewCore(counter))
		var calls atomic.Int32
		register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			calls.Add(1)
			return askcore.Lines("1"), nil
		}))

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		// A done ctx wins over everything, even invalid arguments: the
		// asking side gave up.
		for _, text := range []string{args, `{`} {
			_, err := svc.Ask(ctx, text, askcore.AskOptions{})
			requireSituation(t, err, askcore.Failure{Situation: askcore.SituationAborted})
		}
		reason, cancelReason := context.WithCancelCause(context.Background())
		cancelReason(errors.New("the user pressed stop"))
		_, err := svc.Ask(reason, args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationAborted, Detail: "the user pressed stop"})

		assert.Zero(t, calls.Load())
		assert.Zero(t, counter.count("normalize"), "nothing is normalized for an ask already aborted")
	})
}

// stalling blocks its first call (normalize) until ctx is done, then
// either gives up as hostgo does (an engine error) or, when finish is set,
// answers anyway, as an engine that completed the call regardless.
type stalling struct {
	askcore.Engine
	finish  bool
	entered chan struct{}
	once    sync.Once
}

func (s *stalling) Handle(ctx context.Context, in []byte) ([]byte, error) {
	first := false
	s.once.Do(func() { first = true })
	if !first {
		return s.Engine.Handle(ctx, in)
	}
	close(s.entered)
	<-ctx.Done()
	if s.finish {
		return s.Engine.Handle(context.Background(), in)
	}
	return nil, fmt.Errorf("call abandoned: %w", ctx.Err())
}

func TestAbortWhileTheCoreNormalizes(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		for _, finish := range []bool{false, true} {
			for _, text := range []string{args, `{"question":`} {
				stall := &stalling{Engine: c.Engine(), finish: finish, entered: make(chan struct{})}
				svc := askcore.NewService(askcore.NewCore(stall))
				var calls atomic.Int32
				dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
					calls.Add(1)
					return askcore.Reply{}, errors.New("must not be asked")
				}))
				require.NoError(t, err)

				ctx, cancel := context.WithCancelCause(context.Background())
				wait := asyncAsk(ctx, svc, text, askcore.AskOptions{})
				<-stall.entered
				cancel(errors.New("stop"))
				a, err := wait()
				requireSituation(t, err, askcore.Failure{Situation: askcore.SituationAborted, Detail: "stop"})
				noAnswer(t, a)
				assert.Zero(t, calls.Load(), "finish=%v %q", finish, text)
				dispose()
			}
		}
	})
}

func TestAbortWhileTheProviderAsks(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		reached := make(chan struct{})
		register(t, svc, waiting(reached))

		ctx, cancel := context.WithCancel(context.Background())
		wait := asyncAsk(ctx, svc, args, askcore.AskOptions{})
		<-reached
		cancel()
		_, err := wait()
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationAborted})
	})
}

// stubborn is a provider that ignores its ctx: it answers only once
// released, and reports when it has returned.
type stubborn struct {
	reached  chan struct{}
	release  chan struct{}
	returned chan struct{}
}

func newStubborn() *stubborn {
	return &stubborn{make(chan struct{}), make(chan struct{}), make(chan struct{})}
}

func (s *stubborn) Ask(context.Context, *askcore.Call) (askcore.Reply, error) {
	defer close(s.returned)
	close(s.reached)
	<-s.release
	return askcore.Lines("1"), nil
}

// An abort and a disposal end the ask at once, even when the provider
// ignores its ctx; its late reply is dropped, and its goroutine ends once
// it returns.
func TestAbortAndDisposeDoNotWaitForTheProvider(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		for _, how := range []string{"abort", "dispose"} {
			t.Run(how, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				svc := askcore.NewService(c)
				p := newStubborn()
				dispose, err := svc.Register(p)
				require.NoError(t, err)
				defer dispose()

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				wait := asyncAsk(ctx, svc, args, askcore.AskOptions{})
				<-p.reached
				want := askcore.Failure{Situation: askcore.SituationAborted}
				if how == "dispose" {
					dispose()
					want = askcore.Failure{Situation: askcore.SituationWithdrawn}
				} else {
					cancel()
				}
				a, err := wait() // returns while the provider still blocks
				requireSituation(t, err, want)
				noAnswer(t, a)
				close(p.release)
				<-p.returned
			})
		}
	})
}

func TestDisposedProviderGetsNoNewQuestions(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		reached := make(chan struct{})
		dispose, err := svc.Register(waiting(reached))
		require.NoError(t, err)
		wait := asyncAsk(context.Background(), svc, args, askcore.AskOptions{})
		<-reached
		dispose()
		_, err = wait()
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationWithdrawn})

		_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationNoProvider})
	})
}

func TestTimeoutIsOptInAndWrittenByTheCore(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		causes := make(chan error, 1)
		dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return askcore.Reply{}, ctx.Err()
		}))
		require.NoError(t, err)
		a, err := svc.Ask(context.Background(), args, askcore.AskOptions{Timeout: 30 * time.Millisecond})
		e := requireSituation(t, err, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 30})
		// The provider is told why, and the timeout the agent gave.
		assert.Equal(t, &askcore.TimeoutError{Timeout: 30 * time.Millisecond}, <-causes)
		dispose()
		assert.Equal(t, "no answer within 30ms; nothing was chosen", e.Message)
		noAnswer(t, a) // a timeout never picks the recommended option

		// A long timeout does not fire early, and none by default: the
		// provider's reply comes back.
		for _, timeout := range []time.Duration{0, 30 * 24 * time.Hour} {
			svc := askcore.NewService(c)
			dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
				_, hasDeadline := ctx.Deadline()
				assert.Equal(t, timeout > 0, hasDeadline)
				return askcore.Lines(""), nil
			}))
			require.NoError(t, err)
			a, err := svc.Ask(context.Background(), args, askcore.AskOptions{Timeout: timeout})
			require.NoError(t, err)
			assert.Equal(t, "go", a.Questions[0].Answer, "Enter chose the recommended option")
			dispose()
		}
	})
}

func TestBrokenProvidersAreAskFailed(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		for _, tc := range []struct {
			name     string
			provider askcore.ProviderFunc
			want     askcore.Failure
		}{
			{"panic", func(context.Context, *askcore.Call) (askcore.Reply, error) { panic("terminal gone") },
				askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "terminal gone"}},
			{"panic with an error", func(context.Context, *askcore.Call) (askcore.Reply, error) { panic(errors.New("nil map")) },
				askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "nil map"}},
			{"plain error", func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Reply{}, errors.New("broken pipe\x1b[2J <b>")
			}, askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "broken pipe\x1b[2J <b>"}},
			{"plain error beside a reply", func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Lines("1"), errors.New("half done")
			}, askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "half done"}},
			{"no reply", func(context.Context, *askcore.Call) (askcore.Reply, error) { return askcore.Reply{}, nil },
				askcore.Failure{Situation: askcore.SituationNoAnswer}},
			{"typed nil error and no reply", func(context.Context, *askcore.Call) (askcore.Reply, error) {
				var e *askcore.Error
				return askcore.Reply{}, e
			}, askcore.Failure{Situation: askcore.SituationNoAnswer}},
			{"engine fault", func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
				_, err := askcore.NewCore(&hostFault{}).Normalize(ctx, args)
				return askcore.Reply{}, fmt.Errorf("resolving: %w", err)
			}, askcore.Failure{Situation: askcore.SituationEngineFault}},
			{"a failure it names", func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Reply{}, fmt.Errorf("reading: %w", askcore.Failure{Situation: askcore.SituationEOF})
			}, askcore.Failure{Situation: askcore.SituationEOF}},
			{"a failure with detail", func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationClientError, Detail: "connection reset"}
			}, askcore.Failure{Situation: askcore.SituationClientError, Detail: "connection reset"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				svc := askcore.NewService(c)
				register(t, svc, tc.provider)
				a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
				requireSituation(t, err, tc.want)
				noAnswer(t, a)
				// The service survives a broken provider.
				_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
				requireSituation(t, err, tc.want)
			})
		}

		// A typed nil error beside a reply is no error.
		svc := askcore.NewService(c)
		register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			var e *askcore.Error
			return askcore.Lines("go"), e
		}))
		a, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
		require.NoError(t, err)
		assert.Equal(t, "go", a.Questions[0].Answer)
	})
}

// The core's verdicts a provider meets (a declined or cancelled form, a
// decline, an error of the core it returns) reach the caller as the core
// wrote them; a re-prompt meant for the person does not.
func TestProviderVerdictsPassThrough(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		var reply askcore.Reply
		var verdict error
		register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			return reply, verdict
		}))
		ask := func() error {
			_, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
			return err
		}

		reply = askcore.FormReply(json.RawMessage(`{"action":"cancel"}`))
		requireCode(t, ask(), askcore.CodeAskCancelled)
		reply = askcore.FormReply(json.RawMessage(`{"action":"decline"}`))
		requireCode(t, ask(), askcore.CodeAskDeclined)
		reply = askcore.Decline()
		requireSituation(t, ask(), askcore.Failure{Situation: askcore.SituationDeclined})

		reply = askcore.Reply{}
		declined := c.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationDeclined})
		verdict = fmt.Errorf("picker: %w", declined)
		assert.Same(t, declined, requireCode(t, ask(), askcore.CodeAskDeclined), "the core's error as it is")

		// CheckLine's INVALID_ANSWER is the person's re-prompt: the model
		// gets the invalid_reply situation, quoting it.
		call := normalize(t, c, `{"question":"Which?","options":["a","b"]}`)
		_, reprompt := call.CheckLine(context.Background(), 0, "7")
		requireCode(t, reprompt, askcore.CodeInvalidAnswer)
		verdict = reprompt
		e := requireSituation(t, ask(), askcore.Failure{Situation: askcore.SituationInvalidReply, Detail: askcore.AsError(reprompt).Message})
		assert.NotEqual(t, askcore.AsError(reprompt).Message, e.Message)
	})
}

// trapOnce traps on its first call only (normalize), then works.
type trapOnce struct {
	askcore.Engine
	once sync.Once
}

func (t *trapOnce) Handle(ctx context.Context, in []byte) ([]byte, error) {
	trap := false
	t.once.Do(func() { trap = true })
	if trap {
		return nil, errTrap
	}
	return t.Engine.Handle(ctx, in)
}

func TestEngineFaultsAreTheEngineFaultSituation(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(askcore.NewCore(&trapOnce{Engine: c.Engine()}))
		_, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationEngineFault})

		// An engine that faults while resolving the reply.
		svc = askcore.NewService(askcore.NewCore(&trapAfter{Engine: c.Engine(), n: 1}))
		register(t, svc, lines("1"))
		_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
		requireSituation(t, err, askcore.Failure{Situation: askcore.SituationEngineFault})
	})
	// An engine that cannot even write the situation: the native core
	// writes it, with the same bytes.
	svc := askcore.NewService(askcore.NewCore(&hostFault{}))
	_, err := svc.Ask(context.Background(), args, askcore.AskOptions{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationEngineFault})
	register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		return askcore.Reply{}, nil
	}))
	_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
	requireSituation(t, err, askcore.Failure{Situation: askcore.SituationEngineFault})
}

// Many asks at once through one service and engine, some aborted: each
// gets its own outcome.
func TestConcurrentAsks(t *testing.T) {
	onEngines(t, func(t *testing.T, c *askcore.Core) {
		svc := askcore.NewService(c)
		register(t, svc, askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
			if call.From.AgentID == "abort" {
				<-ctx.Done()
				return askcore.Reply{}, ctx.Err()
			}
			return askcore.Lines(call.From.AgentID), nil
		}))

		// Outcomes are checked once every ask returned: require must not
		// run outside the test's goroutine.
		errs := make([]error, 16)
		answers := make([]askcore.Answer, 16)
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%4 == 0 {
					ctx, cancel := context.WithCancel(context.Background())
					wait := asyncAsk(ctx, svc, args, askcore.AskOptions{From: askcore.Identity{AgentID: "abort"}})
					cancel()
					answers[i], errs[i] = wait()
					return
				}
				answers[i], errs[i] = svc.Ask(context.Background(), args, askcore.AskOptions{From: askcore.Identity{AgentID: fmt.Sprintf("text %d", i)}})
			}()
		}
		wg.Wait()
		for i := range 16 {
			if i%4 == 0 {
				requireSituation(t, errs[i], askcore.Failure{Situation: askcore.SituationAborted})
				continue
			}
			require.NoError(t, errs[i])
			assert.Equal(t, fmt.Sprintf(`{"answer":"text %d"}`, i), string(answers[i].JSON()))
		}
	})
}
