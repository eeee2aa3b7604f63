package hostgo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/bench/benchdata"
)

// TestConformance runs the corpus through both wazero engines and compares
// every output with native core.Handle, byte for byte.
func TestConformance(t *testing.T) {
	names, inputs := corpus(t)
	t.Logf("%d inputs", len(names))
	for _, kind := range []string{"compiler", "interpreter"} {
		t.Run(kind, func(t *testing.T) {
			skipInterpreterUnderRace(t, kind)
			e := sharedEngine(t, kind)
			if got := e.Stats().Interpreter; got != (kind == "interpreter") {
				t.Fatalf("Stats().Interpreter = %v on the %s engine", got, kind)
			}
			for _, name := range names {
				in := inputs[name]
				out, err := e.Handle(context.Background(), in)
				same(t, kind+" "+name, in, core.Handle(in), out, err)
			}
		})
	}
}

// TestInputCap checks both sides of the input cap on both engines: an
// input at the cap runs in the guest, a longer one is answered by the guest
// from its length alone (askcore_oversized), and both are the bytes
// core.Handle returns.
func TestInputCap(t *testing.T) {
	for _, kind := range []string{"compiler", "interpreter"} {
		t.Run(kind, func(t *testing.T) {
			skipInterpreterUnderRace(t, kind)
			e := sharedEngine(t, kind)
			for _, n := range []int{MaxInputBytes, MaxInputBytes + 1, 8 * MaxInputBytes} {
				in := oversized(n)
				out, err := e.Handle(context.Background(), in)
				same(t, fmt.Sprintf("%s: %d-byte input", kind, n), in, core.Handle(in), out, err)
			}
		})
	}
}

// skipInterpreterUnderRace skips the corpus-sized runs on wazero's
// interpreter in a race-detector build: race instrumentation of the
// interpreter's loop makes them about ten times slower (over two minutes
// of CPU, most of make test's Go lane), and they check bytes, not
// concurrency: one call runs on one goroutine in one instance, and the
// pool's concurrency is raced by TestConcurrent. make test-go runs them
// without -race (the Makefile's second go test of ./hostgo).
func skipInterpreterUnderRace(t *testing.T, kind string) {
	t.Helper()
	if raceEnabled && kind == "interpreter" {
		t.Skip("the interpreter's corpus runs in make test-go's run without -race")
	}
}

// The oversized answer takes the length as an i64: lengths past what an
// i32 holds stay exact. (No such input is built: the export reads none.)
func TestOversizedLengthsPastFourGiB(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithCompilationCacheDir(testCacheDir), WithTieredStart(false), WithPoolSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	in, err := e.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	for _, n := range []int{MaxInputBytes + 1, 1<<31 + 5, 5 << 32} {
		out, err := in.callOversized(n)
		want := core.OversizedEnvelope(n)
		same(t, fmt.Sprintf("askcore_oversized(%d)", n), nil, want, out, err)
		if !strings.Contains(string(out), fmt.Sprintf("the input is %d bytes", n)) {
			t.Errorf("%d: %s", n, out)
		}
	}
}

// oversized returns a syntactically plausible envelope of exactly n bytes.
func oversized(n int) []byte {
	prefix := `{"op":"normalize","request":{"question":"`
	suffix := `"}}`
	b := make([]byte, 0, n)
	b = append(b, prefix...)
	b = append(b, bytes.Repeat([]byte("a"), n-len(prefix)-len(suffix))...)
	return append(b, suffix...)
}

// TestConcurrent hammers one Engine from many goroutines (run with -race):
// every answer must be native's, and the pool must never hold more
// instances than its size.
func TestConcurrent(t *testing.T) {
	e, err := New(context.Background(), WithCompilationCacheDir(testCacheDir), WithTieredStart(false), WithPoolSize(3))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	names, inputs := corpus(t)
	want := map[string][]byte{}
	for _, n := range names {
		want[n] = core.Handle(inputs[n])
	}
	const workers, rounds = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				n := names[(w*7+r)%len(names)]
				out, err := e.Handle(context.Background(), inputs[n])
				if err != nil {
					errs <- fmt.Errorf("%s: %v", n, err)
					return
				}
				if !bytes.Equal(out, want[n]) {
					errs <- fmt.Errorf("%s: got %.200s, want %.200s", n, out, want[n])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := e.Stats()
	if s.Instantiated-s.Discarded > 3 {
		t.Errorf("%d live instances in a pool of 3", s.Instantiated-s.Discarded)
	}
	t.Logf("%+v", s)
}

// TestMemoryBounded makes 500,000 calls on one instance and checks that its
// linear memory stays flat (wasm-notes.md trap 1: with wazero's fake clock
// it grew to 575 MiB). It runs without -race (make test-go-unraced): memory
// is no race, and the detector made the same calls cost twice the CPU
// (25 s) in the lane that sets make test's length.
func TestMemoryBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("runs in make test-go-unraced, without -race")
	}
	e, err := New(context.Background(), WithCompilationCacheDir(testCacheDir), WithTieredStart(false), WithPoolSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	const calls = 500_000
	const bound = 160 // pages of 64 KiB: 10 MiB
	ctx := context.Background()
	// One call in ten asks for the tool schema (a few KB of garbage per
	// call: with wazero's fake clock this alone reaches the 1024-page limit
	// within 30,000 calls), one in ten resolves the typical request, and the
	// rest are malformed envelopes the core answers in a few microseconds,
	// so that 500,000 calls take seconds, not minutes.
	inputs := make([][]byte, 10)
	for i := range inputs {
		inputs[i] = []byte(`{}`)
	}
	inputs[0] = []byte(`{"op":"schema"}`)
	inputs[5] = benchdata.Ops[1].Input
	start := time.Now()
	for i := range calls {
		if _, err := e.Handle(ctx, inputs[i%len(inputs)]); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i == 1000 {
			t.Logf("after %d calls: %d pages", i, e.Stats().MaxPages)
		}
	}
	s := e.Stats()
	t.Logf("after %d calls in %v: %d pages (%.1f MiB), %d instances created, %d discarded",
		calls, time.Since(start).Round(time.Millisecond), s.MaxPages, float64(s.MaxPages)/16, s.Instantiated, s.Discarded)
	if s.MaxPages > bound {
		t.Errorf("linear memory reached %d pages, bound %d", s.MaxPages, bound)
	}
	if s.Instantiated != 1 || s.Discarded != 0 {
		t.Errorf("the one instance was replaced (%d created, %d discarded): memory grew past the recycle threshold", s.Instantiated, s.Discarded)
	}
}

// TestTrapDiscardsInstance runs an instance out of memory (a trap inside
// the guest) and checks the error, then that the next call is served by a
// fresh instance with the right answer.
func TestTrapDiscardsInstance(t *testing.T) {
	ctx := context.Background()
	// The limit: what a fresh instance needs, plus a little.
	fresh, err := sharedEngine(t, "compiler").current.instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	limit := fresh.pages() + 1
	fresh.close()
	e, err := New(ctx, WithCompilationCacheDir(testCacheDir), WithTieredStart(false),
		WithPoolSize(1), WithMemoryLimitPages(limit))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	var faulted bool
	for i := 0; i < 20 && !faulted; i++ { // the guest's heap grows with each big input
		_, err = e.Handle(ctx, bigRequest(MaxInputBytes-i))
		faulted = err != nil
	}
	if !faulted {
		t.Fatalf("no fault with %d pages and %d-byte inputs", limit, MaxInputBytes)
	}
	t.Logf("fault with %d pages: %.300v", limit, err)
	in := benchdata.Ops[0].Input
	out, err := e.Handle(ctx, in)
	same(t, "after a trap", in, core.Handle(in), out, err)
	if s := e.Stats(); s.Discarded < 1 || s.Instantiated < 2 {
		t.Errorf("the trapped instance was kept: %+v", s)
	}
}

// bigRequest is a valid request of at most n bytes with as many long
// options as fit (up to the core's limit), which makes the core allocate.
func bigRequest(n int) []byte {
	b := []byte(`{"op":"normalize","request":{"question":"q","options":[`)
	for i := 0; i < core.MaxOptions; i++ {
		opt := fmt.Appendf(nil, `{"label":"option %d %s","value":"%d %s","description":"%s"}`,
			i, strings.Repeat("l", 150), i, strings.Repeat("v", 900), strings.Repeat("d", 1900))
		if len(b)+len(opt)+8 > n {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, opt...)
	}
	return append(b, "]}}"...)
}

// TestRecycle checks that an instance whose memory passed the threshold is
// replaced after its (successful) call.
func TestRecycle(t *testing.T) {
	e, err := New(context.Background(), WithCompilationCacheDir(testCacheDir), WithTieredStart(false),
		WithPoolSize(1), WithRecyclePages(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	for range 3 {
		in := benchdata.Ops[1].Input
		out, err := e.Handle(context.Background(), in)
		same(t, "recycled", in, core.Handle(in), out, err)
	}
	if s := e.Stats(); s.Discarded != 3 || s.Instantiated != 3 {
		t.Errorf("want each instance replaced after its call, got %+v", s)
	}
}

// TestContext checks that a cancelled ctx is honoured before and during a
// call, in both modes: by default Handle stops waiting and the guest
// finishes the call aside; WithInterruptibleCalls stops the guest.
func TestContext(t *testing.T) {
	for _, mode := range []string{"default", "interruptible"} {
		t.Run(mode, func(t *testing.T) {
			e := sharedEngine(t, "interpreter")
			if mode == "interruptible" {
				var err error
				e, err = New(context.Background(), WithInterpreter(), WithInterruptibleCalls())
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close(context.Background())
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := e.Handle(ctx, benchdata.Ops[0].Input); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled ctx: err = %v", err)
			}
			// Deadlines while calls run on the (slow) interpreter: each call
			// either completes with native's bytes or fails with the ctx's
			// error, promptly, and the Engine keeps working afterwards.
			in := bigRequest(MaxInputBytes / 4)
			want := core.Handle(in)
			var interrupted int
			for i := range 6 {
				d := time.Duration(i) * 300 * time.Microsecond
				ctx, cancel := context.WithTimeout(context.Background(), d)
				start := time.Now()
				out, err := e.Handle(ctx, in)
				took := time.Since(start)
				cancel()
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					interrupted++
					// Prompt, not instant: the bound leaves room for an
					// instantiation (the earlier, abandoned calls may still
					// hold the idle instances), slow under -race on a busy
					// machine, but not for waiting out those calls.
					if took > d+5*time.Second {
						t.Errorf("deadline %v: Handle returned after %v", d, took)
					}
				case err != nil:
					t.Fatalf("deadline %v: %v", d, err)
				case !bytes.Equal(out, want):
					t.Fatalf("deadline %v: got %.200s", d, out)
				}
			}
			if interrupted == 0 {
				t.Errorf("no call interrupted")
			}
			t.Logf("%d of 6 calls interrupted; %+v", interrupted, e.Stats())
			out, err := e.Handle(context.Background(), benchdata.Ops[2].Input)
			same(t, "after cancellations", benchdata.Ops[2].Input, core.Handle(benchdata.Ops[2].Input), out, err)
		})
	}
}

func TestClosed(t *testing.T) {
	e, err := New(context.Background(), WithCompilationCacheDir(testCacheDir), WithTieredStart(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, in := range [][]byte{[]byte(`{"op":"schema"}`), oversized(MaxInputBytes + 1)} {
		if _, err := e.Handle(context.Background(), in); !errors.Is(err, ErrClosed) {
			t.Fatalf("Handle(%d bytes) after Close: err = %v, want ErrClosed", len(in), err)
		}
	}
}

// FuzzDifferential feeds the same random inputs to native core.Handle and to
// the module under wazero's compiler and fails on any difference.
func FuzzDifferential(f *testing.F) {
	names, inputs := corpus(f)
	for _, n := range names {
		f.Add(inputs[n])
	}
	e := sharedEngine(f, "compiler")
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := e.Handle(context.Background(), in)
		same(t, "fuzz", in, core.Handle(in), out, err)
	})
}
