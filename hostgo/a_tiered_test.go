package hostgo

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/bench/benchdata"
)

// TestTieredStart starts two Engines on a cold cache: both serve at once
// on the interpreter while the optimizing compile runs; closing the first
// waits for that compile (no goroutine left behind); the second then moves
// new calls to compiled instances. A third Engine, with a configuration not
// compiled in this process but whose code the on-disk cache now holds,
// starts directly on compiled code.
//
// It runs first (this file sorts first) so that its cold compile is the one
// every other test needs (testCacheDir, default options); run on its own or
// after that compile it uses a cold directory of its own.
func TestTieredStart(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := testCacheDir
	if tiersMu.Lock(); tiers[buildConfig([]Option{WithCompilationCacheDir(dir)}).key(false)] != nil {
		dir = t.TempDir()
	}
	tiersMu.Unlock()
	ctx := context.Background()
	start := time.Now()
	e1, err := New(ctx, WithCompilationCacheDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold New: %v", time.Since(start))
	e2, err := New(ctx, WithCompilationCacheDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{e1, e2} {
		if s := e.Stats(); !s.Interpreter || !s.Pending {
			t.Fatalf("cold start: want the interpreter with a compile pending, got %+v", s)
		}
	}
	for _, op := range benchdata.Ops {
		out, err := e1.Handle(ctx, op.Input)
		same(t, "interpreter tier "+op.Name, op.Input, core.Handle(op.Input), out, err)
	}
	start = time.Now()
	if err := e1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close waited %v for the background compile", time.Since(start))
	if s := e2.Stats(); s.Pending {
		t.Fatalf("Close returned before the background compile finished")
	}
	for _, op := range benchdata.Ops {
		out, err := e2.Handle(ctx, op.Input)
		same(t, "compiled tier "+op.Name, op.Input, core.Handle(op.Input), out, err)
	}
	if s := e2.Stats(); s.Interpreter || s.Pending || s.Discarded != 1 {
		t.Errorf("after the compile: want compiled instances and the interpreter one discarded, got %+v", s)
	}
	if err := e2.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// The warm wait only bounds how long New may take to load the compiled
	// code from the cache; a loaded machine (and -race) makes that slow,
	// and a short wait would start on the interpreter and fail the check
	// below. Only a failing test waits this long.
	start = time.Now()
	e3, err := New(ctx, WithCompilationCacheDir(dir), WithMemoryLimitPages(DefaultMemoryLimitPages-1), WithWarmWait(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer e3.Close(ctx)
	t.Logf("warm-cache New: %v", time.Since(start))
	if s := e3.Stats(); s.Interpreter {
		t.Errorf("warm cache: started on the interpreter: %+v", s)
	}
}
