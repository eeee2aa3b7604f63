package hostgo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/internal/wz"
	"github.com/askcore/askcore/wasm"
)

// tierKey identifies one compiled module. Engines with equal keys share it:
// the module is compiled once per process and configuration.
type tierKey struct {
	interpreter bool
	cache       cacheMode
	cacheDir    string
	memoryPages uint32
	// interruptible compiles loop checks in, so a cancelled ctx can stop
	// a running call (WithInterruptibleCalls).
	interruptible bool
}

// tier is a compiled module and the runtime that owns it. Both live for the
// rest of the process (like ncruces/go-sqlite3's compiled module): a
// CompiledModule cannot outlive its runtime, and compiling again would cost
// what the sharing saves. Only instances are closed.
type tier struct {
	key  tierKey
	done chan struct{} // closed when the fields below are set
	rt   wazero.Runtime
	mod  wazero.CompiledModule
	err  error
}

func (t *tier) ready() bool {
	select {
	case <-t.done:
		return t.err == nil
	default:
		return false
	}
}

// wait blocks until t is compiled or ctx ends.
func (t *tier) wait(ctx context.Context) error {
	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

var (
	tiersMu   sync.Mutex
	tiers     = map[tierKey]*tier{}
	memCache  wazero.CompilationCache
	dirCaches = map[string]wazero.CompilationCache{}
)

// getTier returns the shared tier for key, starting its compile in a
// goroutine of its own the first time. The compile is not tied to any
// caller's context: it is shared, and an abandoned compile still fills the
// on-disk cache for the next process.
func getTier(key tierKey) *tier {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	if t, ok := tiers[key]; ok {
		return t
	}
	t := &tier{key: key, done: make(chan struct{})}
	tiers[key] = t
	go t.compile()
	return t
}

// tierStarted reports whether this process has a tier for key, compiled
// or compiling.
func tierStarted(key tierKey) bool {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	_, ok := tiers[key]
	return ok
}

func (t *tier) compile() {
	defer close(t.done)
	warm := t.key.cache == cacheDir && cacheLooksWarm(t.key.cacheDir)
	cache, err := compilationCache(t.key)
	onDisk := err == nil && t.key.cache == cacheDir
	if err != nil {
		// An unusable cache directory (read-only home, ...) costs start-up
		// time, never correctness: fall back to the in-memory cache.
		cache, _ = compilationCache(tierKey{cache: cacheMemory})
	}
	t.rt, t.mod, t.err = compileWith(t.key, cache)
	if t.err != nil && onDisk {
		// wazero fails the compile when it cannot write the cache file.
		onDisk = false
		t.rt, t.mod, t.err = compileWith(t.key, nil)
	}
	if t.err == nil && onDisk && !t.key.interpreter && !warm {
		markCacheWarm(t.key.cacheDir)
	}
}

func compileWith(key tierKey, cache wazero.CompilationCache) (wazero.Runtime, wazero.CompiledModule, error) {
	return wz.Compile(context.Background(), key.interpreter, cache, key.memoryPages, key.interruptible)
}

func compilationCache(key tierKey) (wazero.CompilationCache, error) {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	switch key.cache {
	case cacheNone:
		return nil, nil
	case cacheMemory:
		if memCache == nil {
			memCache = wazero.NewCompilationCache()
		}
		return memCache, nil
	}
	if c, ok := dirCaches[key.cacheDir]; ok {
		return c, nil
	}
	c, err := wazero.NewCompilationCacheWithDir(key.cacheDir)
	if err != nil {
		return nil, err
	}
	dirCaches[key.cacheDir] = c
	return c, nil
}

// The on-disk cache is "warm" when a marker file written after a successful
// optimizing compile of this very module, by this wazero, on this platform is
// present. wazero's own cache key (module, wazero version, CPU features) is
// internal, so the marker is a hint: when it lies (CPU changed, files
// pruned), New still waits no longer than the warm wait before starting on
// the interpreter.
func markerPath(dir string) string {
	h := sha256.Sum256([]byte(wasm.SHA256 + "\x00" + wazeroVersion() + "\x00" + runtime.GOOS + "/" + runtime.GOARCH))
	return filepath.Join(dir, "askcore-"+hex.EncodeToString(h[:8])+".warm")
}

func cacheLooksWarm(dir string) bool {
	_, err := os.Stat(markerPath(dir))
	return err == nil
}

func markCacheWarm(dir string) {
	_ = os.WriteFile(markerPath(dir), []byte(wasm.SHA256+"\n"), 0o600)
}

var wazeroVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				if d.Replace != nil {
					return d.Replace.Path + "@" + d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
})

// Warmup compiles the module for the Engines opts describe (the optimizing
// tier unless WithInterpreter) and waits for it, so that a later New
// returns at once on compiled code. Call it early, in a goroutine, in
// processes that can afford to compile before the first call; the work is
// shared with every Engine of the same configuration and is not repeated.
func Warmup(ctx context.Context, opts ...Option) error {
	cfg := buildConfig(opts)
	return getTier(cfg.key(cfg.interpreter)).wait(ctx)
}

func (c config) key(interpreter bool) tierKey {
	k := tierKey{interpreter: interpreter, memoryPages: c.memoryPages, interruptible: c.interruptible}
	if !interpreter { // the interpreter has no compilation cache: cacheNone
		k.cache, k.cacheDir = c.cache, c.cacheDir
	}
	return k
}
