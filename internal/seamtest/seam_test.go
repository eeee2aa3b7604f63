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
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/interaction"
)

var update = flag.Bool("update", false, "rewrite testdata/seam/*.case.json and *.out from the table")

const corpusDir = "../../testdata/seam"

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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
}

// errTrap stands for a trap of the engine: a host fault, not a verdict of
// the rules.
var errTrap = errors.New("wasm error: unreachable (injected by the seam corpus)")

// trapping faults on its n-th call (from 1); 0 never.
type trapping struct {
	engine.Core
	n     int64
	calls atomic.Int64
}

func (t *trapping) Handle(ctx context.Context, in []byte) ([]byte, error) {
	if t.calls.Add(1) == t.n {
		return nil, errTrap
	}
	return t.Core.Handle(ctx, in)
}

// terminalProvider builds the real terminal provider for a "terminal"
// case; it is set by the terminal front door's tests' helper below.
var terminalProvider func(client engine.Client, stdin string) (interaction.Provider, func())

// run runs one case on eng and returns the tool result as the .out file
// holds it.
func run(t *testing.T, eng engine.Core, c seamCase) string {
	t.Helper()
	tr := &trapping{Core: eng}
	switch c.Trap {
	case "normalize":
		tr.n = 1
	case "provider":
		tr.n = 2
	case "":
	default:
		t.Fatalf("unknown trap %q", c.Trap)
	}
	client := engine.Client{Core: tr}
	svc := interaction.NewService(client)

	reached := make(chan struct{})
	var reachedOnce sync.Once
	asked := make(chan struct{}) // closed once Ask returned
	answer := func(ctx context.Context, q interaction.Question, lines []string) (engine.Result, error) {
		inputs := make([]engine.Input, len(lines))
		for i, l := range lines {
			inputs[i] = engine.Input{Line: l}
		}
		return client.ResolveAll(ctx, q.Raw, inputs)
	}
	var provider interaction.Provider = interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		reachedOnce.Do(func() { close(reached) })
		switch c.Provider {
		case "lines":
			return answer(ctx, q, c.Lines)
		case "picks":
			inputs := make([]engine.Input, len(c.Picks))
			for i, raw := range c.Picks {
				var p struct {
					Options []int  `json:"options"`
					Text    string `json:"text"`
				}
				require.NoError(t, json.Unmarshal(raw, &p))
				inputs[i] = engine.Input{Pick: &core.Pick{Options: p.Options, Text: p.Text}}
			}
			return client.ResolveAll(ctx, q.Raw, inputs)
		case "form":
			if _, _, err := client.Elicitation(ctx, q.Raw); err != nil {
				return engine.Result{}, err
			}
			return client.ElicitationResult(ctx, q.Raw, c.Response)
		case "decline":
			return engine.Result{}, client.Fail(ctx, core.Failure{Situation: core.SituationDeclined})
		case "undefined":
			return engine.Result{}, nil
		case "throw":
			return engine.Result{}, errors.New(c.Error)
		case "panic":
			panic(c.Error)
		case "wait":
			<-ctx.Done()
			return engine.Result{}, ctx.Err()
		case "ignore":
			// Deaf to ctx: answers only once the ask is over. The answer
			// is never the core's: it must not reach the model.
			<-asked
			return engine.Result{Raw: json.RawMessage(`{"answer":"too late"}`)}, nil
		case "delay":
			timer := time.NewTimer(time.Duration(c.DelayMs) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-timer.C:
				return answer(ctx, q, c.Lines)
			case <-ctx.Done():
				return engine.Result{}, ctx.Err()
			}
		}
		t.Fatalf("unknown provider %q", c.Provider)
		return engine.Result{}, nil
	})
	if c.Provider == "terminal" {
		require.NotNil(t, c.Stdin, "a terminal case needs stdin")
		if terminalProvider == nil {
			t.Skip("SKIP: the terminal provider is not wired into the seam corpus yet")
		}
		p, closeFn := terminalProvider(client, *c.Stdin)
		defer closeFn()
		inner := p
		provider = interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
			reachedOnce.Do(func() { close(reached) })
			return inner.Ask(ctx, q)
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
	res, err := svc.Ask(ctx, c.Arguments, interaction.AskOptions{Timeout: time.Duration(c.TimeoutMs) * time.Millisecond})
	close(asked)
	wg.Wait()
	if err != nil {
		var he *core.HarnessError
		require.True(t, errors.As(err, &he), "%T: %v", err, err)
		return "error " + string(he.JSON())
	}
	return "answer " + string(res.Raw)
}

// engines are the engines every case runs on.
func engines(t *testing.T) map[string]engine.Core {
	t.Helper()
	out := map[string]engine.Core{"native": engine.Native{}}
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
			require.NoError(t, os.WriteFile(base+".out", []byte(run(t, engine.Native{}, nc.c)), 0o644))
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
