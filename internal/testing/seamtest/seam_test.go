// Package seamtest runs the seam corpus (testdata/seam) through the Go
// interaction seam on every engine: the model's argument text and a scripted
// provider in, the tool result bytes out. hostjs/test/seam-corpus.test.mjs
// runs the same files through the JS seam.
package seamtest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/testing/leaktest"
)

var update = flag.Bool("update", false, "rewrite testdata/seam/*.case.json and *.out from the table")

const corpusDir = "../../../testdata/seam"

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// seamCase is one NAME.case.json (see testdata/seam/README.md).
type seamCase struct {
	Arguments   string            `json:"arguments"`
	Provider    string            `json:"provider"`
	Lines       []string          `json:"lines,omitempty"`
	Picks       []json.RawMessage `json:"picks,omitempty"`
	Response    json.RawMessage   `json:"response,omitempty"`
	Error       string            `json:"error,omitempty"`
	DelayMs     int64             `json:"delayMs,omitempty"`
	Stdin       *string           `json:"stdin,omitempty"`
	Abort       string            `json:"abort,omitempty"`
	AbortReason string            `json:"abortReason,omitempty"`
	Dispose     bool              `json:"dispose,omitempty"`
	TimeoutMs   int64             `json:"timeoutMs,omitempty"`
	Trap        string            `json:"trap,omitempty"`
	// Answer is the answer object a "forged" provider hands back as if the
	// core had written it.
	Answer json.RawMessage `json:"answer,omitempty"`
	// OtherArguments is the call a "stale" provider answers (with Lines)
	// instead of the one it was asked.
	OtherArguments string `json:"otherArguments,omitempty"`
	// Value names what a "not-a-reply" provider returns in JS ("date", "string",
	// "fail-result": the core's error returned instead of thrown); Go's
	// closed Reply type cannot hold any of them, so its provider returns
	// the nearest it can: an Answer the core did not write.
	Value string `json:"value,omitempty"`
	// Responses are the client's replies to the form, one per round, for
	// a "form-rounds" provider; Delivery the facts it judges them with.
	Responses []json.RawMessage `json:"responses,omitempty"`
	Delivery  *seamDelivery     `json:"delivery,omitempty"`
	// Situation and Detail are the failure a "fail" provider returns.
	Situation string `json:"situation,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Surfaces are what a "first-reply" provider asks through at once.
	Surfaces []seamSurface `json:"surfaces,omitempty"`
}

// seamDelivery is askcore.Delivery as a case writes it.
type seamDelivery struct {
	Ms            int64  `json:"ms"`
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"clientVersion,omitempty"`
	Mode          string `json:"mode,omitempty"`
	Trigger       string `json:"trigger,omitempty"`
	Entrypoint    string `json:"entrypoint,omitempty"`
}

// seamSurface is one surface of a "first-reply" provider: a name and what
// its provider does ("lines", "wait", "form-rounds" or "fail", with the
// fields of those providers).
type seamSurface struct {
	Name      string            `json:"name"`
	Provider  string            `json:"provider"`
	Lines     []string          `json:"lines,omitempty"`
	Responses []json.RawMessage `json:"responses,omitempty"`
	Delivery  *seamDelivery     `json:"delivery,omitempty"`
	Situation string            `json:"situation,omitempty"`
	Detail    string            `json:"detail,omitempty"`
}

// surfaceProvider is the provider of one surface.
func surfaceProvider(t *testing.T, s seamSurface) askcore.ProviderFunc {
	return func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		switch s.Provider {
		case "lines":
			return askcore.Lines(s.Lines...), nil
		case "wait":
			<-ctx.Done()
			return askcore.Reply{}, ctx.Err()
		case "form-rounds":
			return formRounds(ctx, call, s.Responses, s.Delivery)
		case "fail":
			return askcore.Reply{}, askcore.Failure{Situation: askcore.Situation(s.Situation), Detail: s.Detail}
		}
		t.Errorf("unknown surface provider %q", s.Provider)
		return askcore.Reply{}, errors.New("unknown surface provider")
	}
}

// formRounds sends the call's MCP form and judges each response in turn
// (Call.JudgeForm), as a front door's loop does: an answer is handed back,
// a form to ask again takes the next response, anything else is the
// provider's error.
func formRounds(ctx context.Context, call *askcore.Call, responses []json.RawMessage, sd *seamDelivery) (askcore.Reply, error) {
	var d *askcore.Delivery
	client := ""
	if sd != nil {
		d = &askcore.Delivery{Elapsed: time.Duration(sd.Ms) * time.Millisecond, Client: sd.Client, ClientVersion: sd.ClientVersion,
			Mode: askcore.DeliveryMode(sd.Mode), Trigger: sd.Trigger, Entrypoint: sd.Entrypoint}
		client = sd.Client
	}
	if _, err := call.FormFor(ctx, askcore.ForMCP, client); err != nil {
		return askcore.Reply{}, err
	}
	round := 0
	for _, resp := range responses {
		step, err := call.JudgeForm(ctx, askcore.FormRound{Target: askcore.ForMCP, Response: resp, Round: round, Delivery: d})
		if err != nil {
			return askcore.Reply{}, err
		}
		switch step.Next {
		case askcore.FormAnswer:
			return askcore.Answered(step.Answer), nil
		case askcore.FormAskAgain:
			round = step.Round
			continue
		}
		return askcore.Reply{}, step.Err
	}
	return askcore.Reply{}, errors.New("the case ran out of responses")
}

// errTrap stands for a trap of the engine: a host fault, not a verdict of
// the rules.
var errTrap = errors.New("wasm error: unreachable (injected by the seam corpus)")

// trapping faults on its n-th call (from 1); 0 never.
type trapping struct {
	askcore.Engine
	n     int64
	calls atomic.Int64
}

func (t *trapping) Handle(ctx context.Context, in []byte) ([]byte, error) {
	if t.calls.Add(1) == t.n {
		return nil, errTrap
	}
	return t.Engine.Handle(ctx, in)
}

// terminalProvider builds the real terminal provider for a "terminal"
// case (terminal_test.go).
var terminalProvider func(stdin string) (askcore.Provider, func())

// run runs one case on eng and returns the tool result as the .out file
// holds it.
func run(t *testing.T, eng askcore.Engine, c seamCase) string {
	t.Helper()
	tr := &trapping{Engine: eng}
	switch c.Trap {
	case "normalize":
		tr.n = 1
	case "provider":
		tr.n = 2
	case "":
	default:
		t.Fatalf("unknown trap %q", c.Trap)
	}
	core := askcore.NewCore(tr)
	svc := askcore.NewService(core)

	reached := make(chan struct{})
	var reachedOnce sync.Once
	asked := make(chan struct{}) // closed once Ask returned
	picks := func() []askcore.Pick {
		out := make([]askcore.Pick, len(c.Picks))
		for i, raw := range c.Picks {
			require.NoError(t, json.Unmarshal(raw, &out[i]))
		}
		return out
	}
	var provider askcore.Provider = askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		reachedOnce.Do(func() { close(reached) })
		switch c.Provider {
		case "lines":
			return askcore.Lines(c.Lines...), nil
		case "picks":
			return askcore.Picks(picks()...), nil
		case "form":
			if _, err := call.Form(ctx, askcore.ForACP); err != nil {
				return askcore.Reply{}, err
			}
			return askcore.FormReply(c.Response), nil
		case "resolved":
			a, err := call.Resolve(ctx, askcore.Lines(c.Lines...))
			if err != nil {
				return askcore.Reply{}, err
			}
			return askcore.Answered(a), nil
		case "forged":
			var a askcore.Answer
			require.NoError(t, json.Unmarshal(c.Answer, &a))
			return askcore.Answered(a), nil
		case "stale":
			other, err := core.Normalize(ctx, c.OtherArguments)
			require.NoError(t, err)
			a, err := other.Resolve(ctx, askcore.Lines(c.Lines...))
			require.NoError(t, err)
			return askcore.Answered(a), nil
		case "not-a-reply":
			return askcore.Answered(askcore.Answer{}), nil
		case "reprompt":
			_, err := call.CheckLine(ctx, 0, c.Lines[0])
			require.Error(t, err)
			return askcore.Reply{}, err
		case "decline":
			return askcore.Decline(), nil
		case "form-rounds":
			return formRounds(ctx, call, c.Responses, c.Delivery)
		case "fail":
			return surfaceProvider(t, seamSurface{Provider: "fail", Situation: c.Situation, Detail: c.Detail})(ctx, call)
		case "first-reply":
			surfaces := make([]askcore.Surface, len(c.Surfaces))
			for i, s := range c.Surfaces {
				surfaces[i] = askcore.Surface{Name: s.Name, Provider: surfaceProvider(t, s)}
			}
			return askcore.FirstReply(surfaces...).Ask(ctx, call)
		case "undefined":
			return askcore.Reply{}, nil
		case "throw":
			return askcore.Reply{}, errors.New(c.Error)
		case "panic":
			panic(c.Error)
		case "wait":
			<-ctx.Done()
			return askcore.Reply{}, ctx.Err()
		case "ignore":
			// Deaf to ctx: answers only once the ask is over. That late
			// reply must not reach the model.
			<-asked
			return askcore.Lines("1"), nil
		case "delay":
			timer := time.NewTimer(time.Duration(c.DelayMs) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-timer.C:
				return askcore.Lines(c.Lines...), nil
			case <-ctx.Done():
				return askcore.Reply{}, ctx.Err()
			}
		}
		t.Fatalf("unknown provider %q", c.Provider)
		return askcore.Reply{}, nil
	})
	if c.Provider == "terminal" {
		require.NotNil(t, c.Stdin, "a terminal case needs stdin")
		p, closeFn := terminalProvider(*c.Stdin)
		defer closeFn()
		inner := p
		provider = askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
			reachedOnce.Do(func() { close(reached) })
			return inner.Ask(ctx, call)
		})
	}

	dispose := func() {}
	if c.Provider != "none" {
		d, err := svc.Register(provider)
		require.NoError(t, err)
		dispose = d
	}
	defer dispose()

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var cause error
	if c.AbortReason != "" {
		cause = errors.New(c.AbortReason)
	}
	if c.Abort == "before" {
		cancel(cause)
	}
	var wg sync.WaitGroup
	if c.Abort == "during" || c.Dispose {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-reached:
			case <-asked:
				return
			}
			if c.Dispose {
				dispose()
			}
			if c.Abort == "during" {
				cancel(cause)
			}
		}()
	}
	res, err := svc.Ask(ctx, c.Arguments, askcore.AskOptions{Timeout: time.Duration(c.TimeoutMs) * time.Millisecond})
	close(asked)
	wg.Wait()
	if err != nil {
		var e *askcore.Error
		require.True(t, errors.As(err, &e), "%T: %v", err, err)
		return "error " + string(e.JSON())
	}
	return "answer " + string(res.JSON())
}

// engines are the engines every case runs on.
func engines(t *testing.T) map[string]askcore.Engine {
	t.Helper()
	out := map[string]askcore.Engine{"native": askcore.Native{}}
	for name, opts := range map[string][]hostgo.Option{
		"wazero-compiler":    {hostgo.WithMemoryCompilationCache(), hostgo.WithTieredStart(false)},
		"wazero-interpreter": {hostgo.WithInterpreter()},
	} {
		e, err := hostgo.New(context.Background(), opts...)
		require.NoError(t, err, name)
		t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
		out[name] = e
	}
	return out
}

func TestSeamCorpus(t *testing.T) {
	cases := seamCases()
	if *update {
		old, _ := filepath.Glob(filepath.Join(corpusDir, "*.case.json"))
		for _, f := range old {
			require.NoError(t, os.Remove(f))
			_ = os.Remove(strings.TrimSuffix(f, ".case.json") + ".out")
		}
		for _, nc := range cases {
			b, err := json.MarshalIndent(nc.c, "", "  ")
			require.NoError(t, err)
			base := filepath.Join(corpusDir, nc.name)
			require.NoError(t, os.WriteFile(base+".case.json", append(b, '\n'), 0o644))
			require.NoError(t, os.WriteFile(base+".out", []byte(run(t, askcore.Native{}, nc.c)), 0o644))
		}
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.case.json"))
	require.NoError(t, err)
	sort.Strings(files)
	require.Equal(t, len(cases), len(files), "the table and testdata/seam disagree: run with -update")
	for name, eng := range engines(t) {
		t.Run(name, func(t *testing.T) {
			for _, f := range files {
				caseName := strings.TrimSuffix(filepath.Base(f), ".case.json")
				t.Run(caseName, func(t *testing.T) {
					b, err := os.ReadFile(f)
					require.NoError(t, err)
					var c seamCase
					require.NoError(t, json.Unmarshal(b, &c))
					want, err := os.ReadFile(strings.TrimSuffix(f, ".case.json") + ".out")
					require.NoError(t, err)
					require.Equal(t, string(want), run(t, eng, c))
				})
			}
		})
	}
}
