package hostgo

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/bench/benchdata"
	"github.com/askcore/askcore/wasm"
)

// BenchmarkHandle measures one call through wazero's compiler: copy the
// input in, run the core, copy the output out. The inputs are
// benchdata.Ops, the ones the native and Node benchmarks use.
func BenchmarkHandle(b *testing.B) {
	e := sharedEngine(b, "compiler")
	ctx := context.Background()
	for _, op := range benchdata.Ops {
		b.Run(op.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Handle(ctx, op.Input); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNative is the same work as BenchmarkHandle on core.Handle, for
// the ratio.
func BenchmarkNative(b *testing.B) {
	for _, op := range benchdata.Ops {
		b.Run(op.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				core.Handle(op.Input)
			}
		})
	}
}

// BenchmarkHandleParallel is the pool's throughput with GOMAXPROCS
// instances (compare with -cpu 1).
func BenchmarkHandleParallel(b *testing.B) {
	e := sharedEngine(b, "compiler")
	in := benchdata.Ops[0].Input
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.Handle(context.Background(), in); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCompile measures CompileModule: cold (no cache), from a warm
// on-disk cache, and on the interpreter. Each iteration uses a fresh
// runtime, as a new process would.
func BenchmarkCompile(b *testing.B) {
	dir := b.TempDir()
	warm, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	if rt, _, err := compileWith(tierKey{memoryPages: DefaultMemoryLimitPages}, warm); err != nil {
		b.Fatal(err)
	} else {
		rt.Close(context.Background())
	}
	cases := []struct {
		name  string
		key   tierKey
		cache func() wazero.CompilationCache
	}{
		{"cold", tierKey{memoryPages: DefaultMemoryLimitPages}, func() wazero.CompilationCache { return nil }},
		{"cached", tierKey{memoryPages: DefaultMemoryLimitPages}, func() wazero.CompilationCache {
			// A fresh cache object on the same directory: only the disk is warm.
			c, _ := wazero.NewCompilationCacheWithDir(dir)
			return c
		}},
		{"interpreter", tierKey{interpreter: true, memoryPages: DefaultMemoryLimitPages}, func() wazero.CompilationCache { return nil }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rt, _, err := compileWith(c.key, c.cache())
				if err != nil {
					b.Fatal(err)
				}
				rt.Close(context.Background())
			}
		})
	}
	b.ReportMetric(float64(len(wasm.Binary())), "module-bytes")
}

// BenchmarkInstantiate measures InstantiateModule + _initialize.
func BenchmarkInstantiate(b *testing.B) {
	for _, kind := range []string{"compiler", "interpreter"} {
		b.Run(kind, func(b *testing.B) {
			t := sharedEngine(b, kind).current
			for b.Loop() {
				in, err := t.instantiate(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				in.close()
			}
		})
	}
}
