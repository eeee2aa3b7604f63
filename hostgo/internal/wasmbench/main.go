// Command wasmbench measures the Go host's figures for `make bench` (issue
// 8) in one run and prints them as a table, or as JSON with -json:
//
//	go run ./hostgo/internal/wasmbench [-json] [-calls 500000]
//
// module size raw and gzipped; CompileModule cold, from a warm on-disk cache,
// and on the interpreter; InstantiateModule + _initialize; New with a cold
// cache (tiered start) and a warm one; per call natively and through
// wazero's compiler for each benchdata op, with the ratio; linear memory
// after -calls calls; pool throughput with 1 and GOMAXPROCS instances.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/hostgo/internal/benchdata"
	"github.com/askcore/askcore/hostgo/internal/wz"
	"github.com/askcore/askcore/wasm"
)

type row struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Note  string  `json:"note,omitempty"`
}

func main() {
	asJSON := flag.Bool("json", false, "print JSON rows instead of a table")
	calls := flag.Int("calls", 500_000, "calls for the memory figure")
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()
	var rows []row
	add := func(name string, v float64, unit, note string) { rows = append(rows, row{name, v, unit, note}) }

	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(wasm.Binary)
	w.Close()
	add("module size", float64(len(wasm.Binary)), "bytes", "sha256 "+wasm.SHA256[:12])
	add("module size gzip -9", float64(gz.Len()), "bytes", "")

	dir, err := os.MkdirTemp("", "wasmbench-")
	check(err)
	defer os.RemoveAll(dir)
	compile := func(interp bool, cache wazero.CompilationCache) time.Duration {
		start := time.Now()
		rt, _, err := wz.Compile(ctx, interp, cache, hostgo.DefaultMemoryLimitPages, false)
		check(err)
		d := time.Since(start)
		rt.Close(ctx)
		return d
	}
	dirCache := func() wazero.CompilationCache {
		c, err := wazero.NewCompilationCacheWithDir(dir)
		check(err)
		return c
	}
	add("compile, compiler, no cache", ms(median(3, func() time.Duration { return compile(false, nil) })), "ms", "median of 3")
	compile(false, dirCache())
	add("compile, compiler, warm disk cache", ms(median(5, func() time.Duration { return compile(false, dirCache()) })), "ms", "median of 5")
	add("compile, interpreter", ms(median(5, func() time.Duration { return compile(true, nil) })), "ms", "median of 5")
	for _, interp := range []bool{false, true} {
		rt, cm, err := wz.Compile(ctx, interp, nil, hostgo.DefaultMemoryLimitPages, false)
		check(err)
		d := median(15, func() time.Duration {
			start := time.Now()
			m, err := rt.InstantiateModule(ctx, cm, wz.ModuleConfig())
			check(err)
			d := time.Since(start)
			m.Close(ctx)
			return d
		})
		add("instantiate + _initialize, "+map[bool]string{false: "compiler", true: "interpreter"}[interp], ms(d), "ms", "median of 15")
		rt.Close(ctx)
	}

	// New as a process would call it: a cold cache (tiered start) ...
	cold, err := os.MkdirTemp("", "wasmbench-cold-")
	check(err)
	defer os.RemoveAll(cold)
	start := time.Now()
	e, err := hostgo.New(ctx, hostgo.WithCompilationCacheDir(cold))
	check(err)
	_, err = e.Handle(ctx, benchdata.Ops[0].Input)
	check(err)
	add("New + first call, empty cache (tiered)", ms(time.Since(start)), "ms", fmt.Sprintf("interpreter=%v", e.Stats().Interpreter))
	check(e.Close(ctx)) // waits for the background compile, which fills the cache
	// ... and a warm one (a configuration this process has not compiled).
	start = time.Now()
	e, err = hostgo.New(ctx, hostgo.WithCompilationCacheDir(cold), hostgo.WithMemoryLimitPages(hostgo.DefaultMemoryLimitPages-1))
	check(err)
	_, err = e.Handle(ctx, benchdata.Ops[0].Input)
	check(err)
	add("New + first call, warm cache", ms(time.Since(start)), "ms", fmt.Sprintf("interpreter=%v", e.Stats().Interpreter))
	check(e.Close(ctx))

	e, err = hostgo.New(ctx, hostgo.WithCompilationCacheDir(dir), hostgo.WithTieredStart(false))
	check(err)
	defer e.Close(ctx)
	for _, op := range benchdata.Ops {
		native := nsPerOp(func() { core.Handle(op.Input) })
		wasmNs := nsPerOp(func() {
			if _, err := e.Handle(ctx, op.Input); err != nil {
				log.Fatal(err)
			}
		})
		add(op.Name+", native", native, "ns/call", "")
		add(op.Name+", wazero compiler", wasmNs, "ns/call", fmt.Sprintf("%.1fx native", wasmNs/native))
	}

	for _, n := range []int{1, runtime.GOMAXPROCS(0)} {
		p, err := hostgo.New(ctx, hostgo.WithCompilationCacheDir(dir), hostgo.WithTieredStart(false), hostgo.WithPoolSize(n))
		check(err)
		const total = 4000
		var wg sync.WaitGroup
		start := time.Now()
		for g := range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < total; i += runtime.GOMAXPROCS(0) {
					if _, err := p.Handle(ctx, benchdata.Ops[i%len(benchdata.Ops)].Input); err != nil {
						log.Fatal(err)
					}
				}
			}()
		}
		wg.Wait()
		add(fmt.Sprintf("pool throughput, %d instance(s)", n), total/time.Since(start).Seconds(), "calls/s", "")
		check(p.Close(ctx))
	}

	m, err := hostgo.New(ctx, hostgo.WithCompilationCacheDir(dir), hostgo.WithTieredStart(false), hostgo.WithPoolSize(1))
	check(err)
	for i := range *calls {
		if _, err := m.Handle(ctx, benchdata.Ops[i%len(benchdata.Ops)].Input); err != nil {
			log.Fatal(err)
		}
	}
	s := m.Stats()
	add(fmt.Sprintf("linear memory after %d calls", *calls), float64(s.MaxPages), "pages", fmt.Sprintf("%.1f MiB, %d instance(s)", float64(s.MaxPages)/16, s.Instantiated))
	check(m.Close(ctx))

	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		check(enc.Encode(rows))
		return
	}
	fmt.Printf("hostgo (%s, %s/%s, GOMAXPROCS=%d)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	for _, r := range rows {
		fmt.Printf("%-44s %14.1f %-8s %s\n", r.Name, r.Value, r.Unit, r.Note)
	}
}

func nsPerOp(f func()) float64 {
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			f()
		}
	})
	return float64(r.NsPerOp())
}

func median(n int, f func() time.Duration) time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f()
	}
	slices.Sort(ds)
	return ds[n/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
