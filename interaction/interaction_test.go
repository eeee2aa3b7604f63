package interaction_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

// wasm is the WebAssembly engine every test runs on besides the native
// one, opened once for the package (with the default on-disk compilation
// cache, so a warm machine does not compile again).
var wasm engine.Core

func TestMain(m *testing.M) {
	c, closeFn, err := engine.Open(context.Background(), engine.NameWasm)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wasm = c
	code := m.Run()
	if err := closeFn(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// onEngines runs f once per engine, with a client over it.
func onEngines(t *testing.T, f func(t *testing.T, client engine.Client)) {
	for name, c := range map[string]engine.Core{engine.NameNative: engine.Native{}, engine.NameWasm: wasm} {
		t.Run(name, func(t *testing.T) { f(t, engine.Client{Core: c}) })
	}
}

const args = `{"header":" Lang ","question":"Which language?","options":[` +
	`{"label":"Go","value":"go","description":"fast builds","recommended":true},` +
	`{"label":"Rust"}],"allowCustom":true}`

const batchArgs = `{"questions":[` + args + `,{"question":"Which features?","options":["Auth","Billing"],"multiSelect":true}]}`

// requireCode checks that err is the core's error with code: a
// *core.HarnessError whose Raw are the core's bytes, which JSON returns.
func requireCode(t *testing.T, err error, code core.Code) *core.HarnessError {
	t.Helper()
	require.Error(t, err)
	var he *core.HarnessError
	require.True(t, errors.As(err, &he), "want a *core.HarnessError, got %T: %v", err, err)
	assert.Equal(t, core.ErrorName, he.Name)
	assert.Equal(t, code, he.Code, "message: %s", he.Message)
	require.NotEmpty(t, he.Raw, "every error carries the core's bytes")
	assert.Equal(t, he.Raw, he.JSON())
	var decoded core.HarnessError
	require.NoError(t, json.Unmarshal(he.Raw, &decoded))
	assert.Equal(t, core.HarnessError{Name: he.Name, Code: he.Code, Message: he.Message}, decoded)
	return he
}

// requireSituation checks that err is exactly the core's error for f.
func requireSituation(t *testing.T, err error, f core.Failure) {
	t.Helper()
	want := core.Fail(f)
	he := requireCode(t, err, want.Code)
	assert.Equal(t, string(want.JSON()), string(he.Raw))
}

// answer resolves every question of q with lines, as a terminal would.
func answer(ctx context.Context, client engine.Client, q interaction.Question, lines ...string) (engine.Result, error) {
	inputs := make([]engine.Input, len(lines))
	for i, l := range lines {
		inputs[i] = engine.Input{Line: l}
	}
	return client.ResolveAll(ctx, q.Raw, inputs)
}

// waiting is a provider that reports when it was reached and waits for its
// ctx, as a well-behaved prompt does.
func waiting(reached chan<- struct{}) interaction.ProviderFunc {
	return func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		close(reached)
		<-ctx.Done()
		return engine.Result{}, ctx.Err()
	}
}

// asyncAsk runs Ask in a goroutine; wait returns its outcome.
func asyncAsk(ctx context.Context, svc *interaction.Service, arguments string, opts interaction.AskOptions) (wait func() (engine.Result, error)) {
	type out struct {
		res engine.Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := svc.Ask(ctx, arguments, opts)
		ch <- out{res, err}
	}()
	return func() (engine.Result, error) {
		o := <-ch
		return o.res, o.err
	}
}

func TestProviderReceivesTheNormalizedCallAndIdentity(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		assert.Equal(t, client, svc.Client())
		var got []interaction.Question
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			got = append(got, q)
			if q.Batch {
				return answer(ctx, client, q, "rust", "1,2")
			}
			return answer(ctx, client, q, "rust")
		}))
		require.NoError(t, err)
		defer dispose()

		from := interaction.Identity{AgentID: "agent-1", SessionID: "sess-1", ToolCallID: "call-1"}
		res, err := svc.Ask(context.Background(), args, interaction.AskOptions{From: from})
		require.NoError(t, err)
		assert.Equal(t, `{"answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}}`, string(res.Raw))

		res, err = svc.Ask(context.Background(), batchArgs, interaction.AskOptions{})
		require.NoError(t, err)
		assert.Equal(t, `{"answers":[{"question":"Which language?","answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}},`+
			`{"question":"Which features?","answers":["Auth","Billing"],"selected":[{"index":0,"label":"Auth","value":"Auth"},{"index":1,"label":"Billing","value":"Billing"}]}]}`,
			string(res.Raw))

		require.Len(t, got, 2)
		assert.Equal(t, from, got[0].From)
		want, err := client.NormalizeArguments(context.Background(), args)
		require.NoError(t, err)
		assert.Equal(t, want, got[0].Call, "the provider gets the core's normalized call")
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
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		var calls atomic.Int32
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			calls.Add(1)
			return answer(ctx, client, q, "1")
		}))
		require.NoError(t, err)
		defer dispose()

		for text, want := range map[string]string{
			`{"question": `: "unexpected end of input at byte 13 of 13",
			`{"question":"Q?","options":["a","b"]},"junk":1`: "at byte 37 of 46",
			``:      "the arguments are empty",
			` `:     "the arguments are empty",
			`["q"]`: "got an array",
			`{"question":"q","options":["<a>","<A>"]}`:        `"<A>"`,
			`{"question":"q","questions":[{"question":"r"}]}`: "both questions and question",
		} {
			_, err := svc.Ask(context.Background(), text, interaction.AskOptions{})
			he := requireCode(t, err, core.CodeInvalidRequest)
			assert.Contains(t, he.Message, want, "arguments %q", text)
		}
		assert.Zero(t, calls.Load())
	})
}

func TestNoProviderFailsAtOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		res, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
		requireSituation(t, err, core.Failure{Situation: core.SituationNoProvider})
		assert.Nil(t, res.Raw, "never an empty answer")

		// Invalid arguments are reported first: the model can fix those.
		_, err = svc.Ask(context.Background(), `{"question":`, interaction.AskOptions{})
		requireCode(t, err, core.CodeInvalidRequest)
	})
}

func TestDuplicateProviderRejectedUntilDisposed(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		first := interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			return answer(ctx, client, q, "")
		})
		dispose1, err := svc.Register(first)
		require.NoError(t, err)

		dispose2, err := svc.Register(first)
		requireSituation(t, err, core.Failure{Situation: core.SituationDuplicateProvider})
		assert.Nil(t, dispose2)

		dispose1()
		dispose1() // safe twice
		dispose3, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			return answer(ctx, client, q, "rust")
		}))
		require.NoError(t, err)
		dispose1() // a stale dispose does not unregister the new provider

		res, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
		require.NoError(t, err)
		assert.Contains(t, string(res.Raw), `"answer":"Rust"`, "the second provider answered")
		dispose3()

		_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
		requireSituation(t, err, core.Failure{Situation: core.SituationNoProvider})
	})
}

// counting counts the envelopes sent to a core, by op.
type counting struct {
	engine.Core
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
	return c.Core.Handle(ctx, in)
}

func (c *counting) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

func TestAbortBeforeTheAsk(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		counter := &counting{Core: client.Core}
		client = engine.Client{Core: counter}
		svc := interaction.NewService(client)
		var calls atomic.Int32
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			calls.Add(1)
			return answer(ctx, client, q, "1")
		}))
		require.NoError(t, err)
		defer dispose()

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		// A done ctx wins over everything, even invalid arguments: the
		// asking side gave up.
		for _, text := range []string{args, `{`} {
			_, err = svc.Ask(ctx, text, interaction.AskOptions{})
			requireSituation(t, err, core.Failure{Situation: core.SituationAborted})
		}
		reason, cancelReason := context.WithCancelCause(context.Background())
		cancelReason(errors.New("the user pressed stop"))
		_, err = svc.Ask(reason, args, interaction.AskOptions{})
		requireSituation(t, err, core.Failure{Situation: core.SituationAborted, Detail: "the user pressed stop"})

		assert.Zero(t, calls.Load())
		assert.Zero(t, counter.count("normalize"), "nothing is normalized for an ask already aborted")
	})
}

// stalling blocks its first call (normalize) until ctx is done, then
// either gives up as hostgo does (a host error) or, when finish is set,
// answers anyway, as an engine that completed the call regardless.
type stalling struct {
	engine.Core
	finish  bool
	entered chan struct{}
	once    sync.Once
}

func (s *stalling) Handle(ctx context.Context, in []byte) ([]byte, error) {
	first := false
	s.once.Do(func() { first = true })
	if !first {
		return s.Core.Handle(ctx, in)
	}
	close(s.entered)
	<-ctx.Done()
	if s.finish {
		return s.Core.Handle(context.Background(), in)
	}
	return nil, fmt.Errorf("call abandoned: %w", ctx.Err())
}

func TestAbortWhileTheCoreNormalizes(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		for _, finish := range []bool{false, true} {
			for _, text := range []string{args, `{"question":`} {
				stall := &stalling{Core: client.Core, finish: finish, entered: make(chan struct{})}
				svc := interaction.NewService(engine.Client{Core: stall})
				var calls atomic.Int32
				dispose, err := svc.Register(interaction.ProviderFunc(func(context.Context, interaction.Question) (engine.Result, error) {
					calls.Add(1)
					return engine.Result{}, errors.New("must not be asked")
				}))
				require.NoError(t, err)

				ctx, cancel := context.WithCancelCause(context.Background())
				wait := asyncAsk(ctx, svc, text, interaction.AskOptions{})
				<-stall.entered
				cancel(errors.New("stop"))
				res, err := wait()
				requireSituation(t, err, core.Failure{Situation: core.SituationAborted, Detail: "stop"})
				assert.Nil(t, res.Raw)
				assert.Zero(t, calls.Load(), "finish=%v %q", finish, text)
				dispose()
			}
		}
	})
}

func TestAbortWhileTheProviderAsks(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		reached := make(chan struct{})
		dispose, err := svc.Register(waiting(reached))
		require.NoError(t, err)
		defer dispose()

		ctx, cancel := context.WithCancel(context.Background())
		wait := asyncAsk(ctx, svc, args, interaction.AskOptions{})
		<-reached
		cancel()
		_, err = wait()
		requireSituation(t, err, core.Failure{Situation: core.SituationAborted})
	})
}

// stubborn is a provider that ignores its ctx: it answers only once
// released, and reports when it has returned.
type stubborn struct {
	client   engine.Client
	reached  chan struct{}
	release  chan struct{}
	returned chan struct{}
}

func newStubborn(client engine.Client) *stubborn {
	return &stubborn{client, make(chan struct{}), make(chan struct{}), make(chan struct{})}
}

func (s *stubborn) Ask(_ context.Context, q interaction.Question) (engine.Result, error) {
	defer close(s.returned)
	close(s.reached)
	<-s.release
	return answer(context.Background(), s.client, q, "1")
}

// An abort and a disposal end the ask at once, even when the provider
// ignores its ctx; its late answer is dropped, and its goroutine ends once
// it returns.
func TestAbortAndDisposeDoNotWaitForTheProvider(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		for _, how := range []string{"abort", "dispose"} {
			t.Run(how, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				svc := interaction.NewService(client)
				p := newStubborn(client)
				dispose, err := svc.Register(p)
				require.NoError(t, err)
				defer dispose()

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				wait := asyncAsk(ctx, svc, args, interaction.AskOptions{})
				<-p.reached
				want := core.Failure{Situation: core.SituationAborted}
				if how == "dispose" {
					dispose()
					want = core.Failure{Situation: core.SituationWithdrawn}
				} else {
					cancel()
				}
				res, err := wait() // returns while the provider still blocks
				requireSituation(t, err, want)
				assert.Nil(t, res.Raw, "no answer")
				close(p.release)
				<-p.returned
			})
		}
	})
}

func TestDisposedProviderGetsNoNewQuestions(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		reached := make(chan struct{})
		dispose, err := svc.Register(waiting(reached))
		require.NoError(t, err)
		wait := asyncAsk(context.Background(), svc, args, interaction.AskOptions{})
		<-reached
		dispose()
		_, err = wait()
		requireSituation(t, err, core.Failure{Situation: core.SituationWithdrawn})

		_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
		requireSituation(t, err, core.Failure{Situation: core.SituationNoProvider})
	})
}

func TestTimeoutIsOptInAndWrittenByTheCore(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		reached := make(chan struct{})
		dispose, err := svc.Register(waiting(reached))
		require.NoError(t, err)
		res, err := svc.Ask(context.Background(), args, interaction.AskOptions{Timeout: 30 * time.Millisecond})
		requireSituation(t, err, core.Failure{Situation: core.SituationTimeout, Millis: 30})
		assert.Equal(t, "no answer within 30ms; nothing was chosen", err.(*core.HarnessError).Message)
		assert.Nil(t, res.Raw, "a timeout never picks the recommended option")
		dispose()

		// A long timeout does not fire early, and none by default: the
		// provider's answer comes back.
		for _, timeout := range []time.Duration{0, 30 * 24 * time.Hour} {
			svc := interaction.NewService(client)
			dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
				_, hasDeadline := ctx.Deadline()
				assert.Equal(t, timeout > 0, hasDeadline)
				return answer(ctx, client, q, "")
			}))
			require.NoError(t, err)
			res, err := svc.Ask(context.Background(), args, interaction.AskOptions{Timeout: timeout})
			require.NoError(t, err)
			assert.Contains(t, string(res.Raw), `"answer":"go"`)
			dispose()
		}
	})
}

func TestBrokenProvidersAreAskFailed(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		for _, tc := range []struct {
			name     string
			provider interaction.ProviderFunc
			want     core.Failure
		}{
			{"panic", func(context.Context, interaction.Question) (engine.Result, error) { panic("terminal gone") },
				core.Failure{Situation: core.SituationProviderFailed, Detail: "terminal gone"}},
			{"panic with an error", func(context.Context, interaction.Question) (engine.Result, error) { panic(errors.New("nil map")) },
				core.Failure{Situation: core.SituationProviderFailed, Detail: "nil map"}},
			{"plain error", func(context.Context, interaction.Question) (engine.Result, error) {
				return engine.Result{}, errors.New("broken pipe\x1b[2J <b>")
			}, core.Failure{Situation: core.SituationProviderFailed, Detail: "broken pipe\x1b[2J <b>"}},
			{"no answer", func(context.Context, interaction.Question) (engine.Result, error) { return engine.Result{}, nil },
				core.Failure{Situation: core.SituationNoAnswer}},
			{"typed nil error and no answer", func(context.Context, interaction.Question) (engine.Result, error) {
				var he *core.HarnessError
				return engine.Result{}, he
			}, core.Failure{Situation: core.SituationNoAnswer}},
			{"engine fault", func(ctx context.Context, q interaction.Question) (engine.Result, error) {
				_, err := engine.Client{Core: faulty{}}.ResolveAll(ctx, q.Raw, []engine.Input{{Line: "1"}})
				return engine.Result{}, fmt.Errorf("resolving: %w", err)
			}, core.Failure{Situation: core.SituationEngineFault}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				svc := interaction.NewService(client)
				dispose, err := svc.Register(tc.provider)
				require.NoError(t, err)
				defer dispose()
				res, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
				requireSituation(t, err, tc.want)
				assert.Nil(t, res.Raw)
				// The service survives a broken provider.
				_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
				requireSituation(t, err, tc.want)
			})
		}

		// A typed nil error beside an answer is no error.
		svc := interaction.NewService(client)
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			res, _ := answer(ctx, client, q, "go")
			var he *core.HarnessError
			return res, he
		}))
		require.NoError(t, err)
		defer dispose()
		res, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
		require.NoError(t, err)
		assert.Contains(t, string(res.Raw), `"answer":"go"`)
	})
}

// The core's verdicts a provider returns (a decline, a cancelled form, an
// invalid answer) reach the caller as they are, bytes included.
func TestProviderVerdictsPassThrough(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		var verdict error
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			if verdict != nil {
				return engine.Result{}, verdict
			}
			return client.ElicitationResult(ctx, q.Raw, json.RawMessage(`{"action":"cancel"}`))
		}))
		require.NoError(t, err)
		defer dispose()

		_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
		requireCode(t, err, core.CodeAskCancelled)

		declined := client.Fail(context.Background(), core.Failure{Situation: core.SituationDeclined})
		verdict = fmt.Errorf("picker: %w", declined)
		_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
		he := requireCode(t, err, core.CodeAskDeclined)
		assert.Same(t, declined, he)
	})
}

// faulty is an engine that traps on every call.
type faulty struct{}

func (faulty) Handle(context.Context, []byte) ([]byte, error) {
	return nil, errors.New("wasm error: unreachable")
}

// trapOnce traps on its first call only (normalize), then works.
type trapOnce struct {
	engine.Core
	once sync.Once
}

func (t *trapOnce) Handle(ctx context.Context, in []byte) ([]byte, error) {
	trap := false
	t.once.Do(func() { trap = true })
	if trap {
		return nil, errors.New("wasm error: unreachable")
	}
	return t.Core.Handle(ctx, in)
}

func TestEngineFaultsAreTheEngineFaultSituation(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(engine.Client{Core: &trapOnce{Core: client.Core}})
		_, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
		requireSituation(t, err, core.Failure{Situation: core.SituationEngineFault})
	})
	// An engine that cannot even write the situation: the native core
	// writes it, with the same bytes.
	svc := interaction.NewService(engine.Client{Core: faulty{}})
	_, err := svc.Ask(context.Background(), args, interaction.AskOptions{})
	requireSituation(t, err, core.Failure{Situation: core.SituationEngineFault})
	_, err = svc.Register(interaction.ProviderFunc(func(context.Context, interaction.Question) (engine.Result, error) {
		return engine.Result{}, nil
	}))
	require.NoError(t, err)
	_, err = svc.Ask(context.Background(), args, interaction.AskOptions{})
	requireSituation(t, err, core.Failure{Situation: core.SituationEngineFault})
}

// Many asks at once through one service and engine, some aborted: each
// gets its own outcome.
func TestConcurrentAsks(t *testing.T) {
	onEngines(t, func(t *testing.T, client engine.Client) {
		svc := interaction.NewService(client)
		dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			if q.From.AgentID == "abort" {
				<-ctx.Done()
				return engine.Result{}, ctx.Err()
			}
			return answer(ctx, client, q, q.From.AgentID)
		}))
		require.NoError(t, err)
		defer dispose()

		// Outcomes are checked once every ask returned: require must not
		// run outside the test's goroutine.
		errs := make([]error, 16)
		results := make([]engine.Result, 16)
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%4 == 0 {
					ctx, cancel := context.WithCancel(context.Background())
					wait := asyncAsk(ctx, svc, args, interaction.AskOptions{From: interaction.Identity{AgentID: "abort"}})
					cancel()
					results[i], errs[i] = wait()
					return
				}
				results[i], errs[i] = svc.Ask(context.Background(), args, interaction.AskOptions{From: interaction.Identity{AgentID: fmt.Sprintf("text %d", i)}})
			}()
		}
		wg.Wait()
		for i := range 16 {
			if i%4 == 0 {
				requireSituation(t, errs[i], core.Failure{Situation: core.SituationAborted})
				continue
			}
			require.NoError(t, errs[i])
			assert.Equal(t, fmt.Sprintf(`{"answer":"text %d"}`, i), string(results[i].Raw))
		}
	})
}
