package hostgo

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/askcore/askcore/core"
)

// hugeToolArguments is an ask_user_question envelope whose request (the
// model's tool arguments) is n bytes of one giant question.
func hugeToolArguments(n int) []byte {
	b := make([]byte, 0, n+64)
	b = append(b, `{"op":"normalize","request":{"question":"`...)
	b = append(b, bytes.Repeat([]byte("A"), n)...)
	return append(b, `"}}`...)
}

// TestHugeInputNeverEntersTheGuest: 100 MB of tool arguments are rejected
// with the core's own INVALID_REQUEST bytes, which the guest writes from
// the length alone (askcore_oversized): not a byte of the input is copied
// in (the guest's input buffer and memory do not grow, no instance is
// created or discarded) and the host allocates next to nothing for it.
func TestHugeInputNeverEntersTheGuest(t *testing.T) {
	if raceEnabled {
		// 100 MB through one goroutine: no race to find, 15 s of the
		// detector's CPU in the lane that sets make test's length.
		t.Skip("runs in make test-go-unraced, without -race")
	}
	ctx := context.Background()
	e, err := New(ctx, WithCompilationCacheDir(testCacheDir), WithTieredStart(false), WithPoolSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	small := []byte(`{"op":"normalize","request":{"question":"warm up?"}}`)
	if _, err := e.Handle(ctx, small); err != nil {
		t.Fatal(err)
	}
	before := e.Stats()

	for _, size := range []int{MaxInputBytes + 1, 10 << 20, 100 << 20} {
		in := hugeToolArguments(size)
		want := core.Handle(in)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		out, err := e.Handle(ctx, in)
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatalf("%d bytes: host error %v", size, err)
		}
		if !bytes.Equal(out, want) || !strings.Contains(string(out), `"code":"INVALID_REQUEST"`) {
			t.Fatalf("%d bytes: got %s, want %s", size, out, want)
		}
		alloc := m1.TotalAlloc - m0.TotalAlloc
		t.Logf("%9d-byte input: rejected in %v, %d bytes allocated on the host: %s", len(in), took, alloc, out)
		if alloc > 64<<10 {
			t.Errorf("%d-byte input: the host allocated %d bytes to reject it (a copy?)", len(in), alloc)
		}
	}
	after := e.Stats()
	if after.Instantiated != before.Instantiated || after.Discarded != before.Discarded || after.MaxPages != before.MaxPages {
		t.Errorf("the input reached the guest: before %+v, after %+v", before, after)
	}
	e.mu.Lock()
	inCap := e.idle[0].inCap
	e.mu.Unlock()
	if inCap > len(small) {
		t.Errorf("the guest was asked for a %d-byte input buffer", inCap)
	}
	// The engine still serves ordinary calls.
	out, err := e.Handle(ctx, small)
	same(t, "after huge inputs", small, core.Handle(small), out, err)
}
