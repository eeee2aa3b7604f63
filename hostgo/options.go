package hostgo

import (
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Option configures an Engine (see New). Options are values: applying one
// never changes another Engine or a previously built Option.
type Option func(*config)

type cacheMode int

const (
	cacheNone   cacheMode = iota // no compilation cache at all
	cacheMemory                  // in-process only
	cacheDir                     // on-disk under config.cacheDir (the default)
)

// Defaults. The memory figures are wasm pages of 64 KiB.
const (
	// DefaultMemoryLimitPages caps an instance's linear memory (64 MiB). A
	// Go guest idles at about 128 pages (8 MiB) once warm; the cap only
	// stops a runaway instance, which then traps and is discarded.
	DefaultMemoryLimitPages = 1024
	// DefaultRecyclePages: an instance whose memory grew past this many
	// pages (16 MiB) is closed after its call and replaced by a fresh one.
	// Memory only grows, so this keeps one huge request from pinning
	// memory for the life of the process.
	DefaultRecyclePages = 256
	// DefaultWarmWait bounds how long New waits for the optimizing compile
	// when the on-disk cache looks warm before it starts on the interpreter
	// instead: a cache hit costs 100-200 ms of CPU on a 2-core VM, a full
	// compile about a second. It is CPU time of the process where the
	// platform has a CPU clock (Unix), so that a busy machine does not turn
	// a slow cache hit into a second compile.
	DefaultWarmWait = 500 * time.Millisecond
)

type config struct {
	poolSize      int
	cache         cacheMode
	cacheDir      string
	memoryPages   uint32
	recyclePages  uint32
	interpreter   bool
	tiered        bool
	warmWait      time.Duration
	interruptible bool
}

func defaultConfig() config {
	c := config{
		poolSize:     runtime.GOMAXPROCS(0),
		cache:        cacheDir,
		memoryPages:  DefaultMemoryLimitPages,
		recyclePages: DefaultRecyclePages,
		tiered:       true,
		warmWait:     DefaultWarmWait,
	}
	if dir, err := os.UserCacheDir(); err == nil {
		c.cacheDir = filepath.Join(dir, "askcore", "wazero")
	} else {
		c.cache = cacheMemory // no home to write to: keep the cache in memory
	}
	return c
}

// WithPoolSize bounds the number of instances, hence of calls running at
// once (default GOMAXPROCS). Calls beyond it wait for a free instance.
func WithPoolSize(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.poolSize = n
		}
	}
}

// WithCompilationCacheDir keeps compiled code in dir (default
// os.UserCacheDir()/askcore/wazero), so later processes start in tens of
// milliseconds instead of a full compile.
func WithCompilationCacheDir(dir string) Option {
	return func(c *config) {
		c.cache, c.cacheDir = cacheDir, dir
	}
}

// WithMemoryCompilationCache keeps compiled code in this process only:
// nothing is written to disk.
func WithMemoryCompilationCache() Option {
	return func(c *config) { c.cache, c.cacheDir = cacheMemory, "" }
}

// WithoutCompilationCache disables the compilation cache: nothing is written
// to disk and every distinct configuration compiles from scratch (the
// compiled module is still shared by Engines with the same configuration).
func WithoutCompilationCache() Option {
	return func(c *config) { c.cache, c.cacheDir = cacheNone, "" }
}

// WithMemoryLimitPages caps each instance's linear memory, in 64 KiB pages
// (default DefaultMemoryLimitPages). An instance that needs more traps and is
// discarded; the call returns an error.
func WithMemoryLimitPages(pages uint32) Option {
	return func(c *config) {
		if pages > 0 {
			c.memoryPages = pages
		}
	}
}

// WithRecyclePages sets the memory size, in pages, past which an instance is
// replaced after its call (default DefaultRecyclePages).
func WithRecyclePages(pages uint32) Option {
	return func(c *config) {
		if pages > 0 {
			c.recyclePages = pages
		}
	}
}

// WithInterpreter runs the module on wazero's interpreter only: no
// optimizing compile at all. Slow per call (about 100x the compiler), meant
// for tests and for platforms without wazero's compiler.
func WithInterpreter() Option {
	return func(c *config) { c.interpreter = true }
}

// WithTieredStart turns the tiered start on (default) or off. On, a process
// with a cold compilation cache serves its first calls on the interpreter
// while the optimizing compile runs in the background, then moves new calls
// to compiled instances. Off, New waits for the optimizing compile.
func WithTieredStart(on bool) Option {
	return func(c *config) { c.tiered = on }
}

// WithWarmWait bounds how long New waits for the optimizing compile when the
// cache looks warm before falling back to the interpreter (default
// DefaultWarmWait): CPU time of the process on Unix, wall time elsewhere.
// Only meaningful with the tiered start.
func WithWarmWait(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.warmWait = d
		}
	}
}

// WithInterruptibleCalls makes a cancelled ctx stop a call while the guest
// runs (wazero's WithCloseOnContextDone), at the price of a check compiled
// into every loop and function of the module: calls cost about 3x more.
// Without it (the default) Handle still returns as soon as ctx ends; the
// guest finishes that call on its own (the core bounds its work by its input
// limits) and the instance is then discarded. See RATIONALE.md.
func WithInterruptibleCalls() Option {
	return func(c *config) { c.interruptible = true }
}
