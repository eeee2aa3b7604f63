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
	"github.com/askcore/askcore/internal/leaktest"
)

var update = flag.Bool("update", false, "rewrite testdata/seam/*.case.json and *.out from the table")

const corpusDir = "../../testdata/seam"

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
