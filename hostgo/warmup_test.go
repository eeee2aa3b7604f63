package hostgo

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
)

// Warmup compiles (or loads from the cache) the module of a configuration
// ahead of New, as a process that can afford it does early and aside (like
// ncruces/go-sqlite3's Initialize): New then serves compiled code at once,
// where a start that cannot wait (WithWarmWait(0)) would begin on the
// interpreter, and the compile is shared, not repeated.
func TestWarmup(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	// A memory limit no other test uses: a configuration of its own.
	opts := []Option{WithCompilationCacheDir(testCacheDir), WithMemoryLimitPages(DefaultMemoryLimitPages - 2), WithWarmWait(0)}
	key := buildConfig(opts).key(false)
	if tierStarted(key) {
		t.Fatal("this configuration was compiled before the test")
	}

	warmed := make(chan error, 1)
	go func() { warmed <- Warmup(ctx, opts...) }()
	if err := <-warmed; err != nil {
		t.Fatal(err)
	}
	warm := getTier(key)
	if !warm.ready() {
		t.Fatal("Warmup returned before the module was compiled")
	}

	e, err := New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	if s := e.Stats(); s.Interpreter || s.Pending {
		t.Errorf("after Warmup, New started on the interpreter: %+v", s)
	}
	if e.current != warm {
		t.Error("New compiled the module again instead of using the warm one")
	}
	in := []byte(`{"op":"normalize","arguments":"{\"question\":\"Warm?\"}"}`)
	out, err := e.Handle(ctx, in)
	same(t, "after Warmup", in, core.Handle(in), out, err)
}

// A caller whose ctx ends stops waiting at once; the compile goes on, for
// the next Warmup or New.
func TestWarmupStopsWaitingWhenCtxEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	opts := []Option{WithInterpreter(), WithMemoryLimitPages(DefaultMemoryLimitPages - 3)}
	key := buildConfig(opts).key(true)
	if tierStarted(key) {
		t.Fatal("this configuration was compiled before the test")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Warmup(ctx, opts...)
	compiling := getTier(key)
	switch {
	case err == nil && !compiling.ready():
		t.Fatal("Warmup returned nil before the module was compiled")
	case err != nil && !errors.Is(err, context.Canceled):
		t.Fatalf("Warmup with a done ctx: %v", err)
	}
	<-compiling.done // the compile finished without anyone waiting
	if compiling.err != nil {
		t.Fatal(compiling.err)
	}
	if err := Warmup(context.Background(), opts...); err != nil {
		t.Fatal(err)
	}
}
