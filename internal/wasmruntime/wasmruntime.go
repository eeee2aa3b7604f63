// Package wasmruntime holds the wazero configuration hostgo runs askcore.wasm with, so
// that hostgo and the benchmark program (internal/bench/engine) compile and
// instantiate the module exactly the same way.
package wasmruntime

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/askcore/askcore/wasm"
)

// Compile makes a runtime (the interpreter, or wazero's compiler where it
// has one) with WASI and compiles wasm.Binary() in it. cache may be nil.
// interruptible compiles wazero's termination checks in (a ctx that ends
// stops a running call, at about 3x the cost per call).
func Compile(ctx context.Context, interpreter bool, cache wazero.CompilationCache, memoryPages uint32, interruptible bool) (wazero.Runtime, wazero.CompiledModule, error) {
	var rc wazero.RuntimeConfig
	if interpreter {
		rc = wazero.NewRuntimeConfigInterpreter()
	} else {
		rc = wazero.NewRuntimeConfig()
	}
	if cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	rc = rc.WithMemoryLimitPages(memoryPages).WithCloseOnContextDone(interruptible)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	// wazero compiles functions on one goroutine unless told otherwise; the
	// optimizing compile of this module is CPU-bound and splits well.
	mod, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0)), wasm.Binary())
	if err != nil {
		rt.Close(ctx)
		return nil, nil, fmt.Errorf("compile askcore.wasm: %w", err)
	}
	return rt, mod, nil
}

// ModuleConfig is how every instance is configured. No FS, env or args: the
// defaults give the guest none. A real monotonic clock: with wazero's
// default fake clock the Go guest's garbage collector stops finishing cycles
// and memory grows without bound (wasm-notes.md, trap 1). The wall clock and
// the random source stay wazero's deterministic defaults: the core reads
// neither. The module is a reactor: _initialize, not _start; no name, so
// several instances share a runtime.
func ModuleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithSysNanotime()
}
