package hostgo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/internal/wasmruntime"
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

// tier is a compiled module and the runtime that owns it. An optimizing
// tier lives until ReleaseUnused (like ncruces/go-sqlite3's compiled
// module): a CompiledModule cannot outlive its runtime, and compiling again
// would cost what the sharing saves. An interpreter tier that
// a tiered start used as a stand-in is released once nothing uses it (see
// unref): its compiled form is about 50 MB of Go heap, and the process has
// the compiled code by then.
type tier struct {
	key  tierKey
	done chan struct{} // closed when the fields below are set
	rt   wazero.Runtime
	mod  wazero.CompiledModule
	err  error

	// Guarded by tiersMu.
	refs     int  // Engines holding t (as current or pending), live instances, waiting Warmups
	standIn  bool // an interpreter tier a tiered Engine started on
	released bool // module and runtime closed (a stand-in nothing used any more)
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

// getTier returns the shared tier for key with a reference taken (see
// acquireTier).
func getTier(key tierKey) *tier { return acquireTier(key, false) }

// acquireTier returns the shared tier for key, starting its compile in a
// goroutine of its own the first time, and takes a reference on it that the
// caller gives back with unref. The compile is not tied to any caller's
// context: it is shared, and an abandoned compile still fills the on-disk
// cache for the next process. standIn marks an interpreter tier a tiered
// Engine starts on while the optimizing tier compiles: it is released when
// its last reference goes.
func acquireTier(key tierKey, standIn bool) *tier {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	t, ok := tiers[key]
	if !ok {
		t = &tier{key: key, done: make(chan struct{})}
		tiers[key] = t
		go t.compile()
	}
	t.refs++
	t.standIn = t.standIn || standIn
	return t
}

// ref takes one more reference on t, which its holder already has one on.
func (t *tier) ref() {
	tiersMu.Lock()
	t.refs++
	tiersMu.Unlock()
}

// unref gives back a reference taken by acquireTier, ref or instantiate. A
// stand-in interpreter tier whose last reference goes is released: removed
// from the process's tiers (a later Engine that needs the interpreter
// compiles it again, 60-150 ms), its module and runtime closed, and the
// memory they held returned to the operating system.
func (t *tier) unref() {
	tiersMu.Lock()
	t.refs--
	free := t.releasableLocked()
	tiersMu.Unlock()
	if free {
		t.free()
	}
}

// releasableLocked reports whether t is a finished stand-in nothing uses,
// and if so marks it released and forgets it. tiersMu must be held.
func (t *tier) releasableLocked() bool {
	if t.refs > 0 || !t.standIn || t.released || !isDone(t.done) {
		return false
	}
	t.released = true
	if tiers[t.key] == t {
		delete(tiers, t.key)
	}
	return true
}

func (t *tier) free() {
	if t.err == nil {
		ctx := context.Background()
		_ = t.mod.Close(ctx)
		_ = t.rt.Close(ctx)
	}
	returnMemory()
}

// ReleaseUnused closes the compiled modules that no Engine, instance or
// Warmup holds any more, optimizing ones included, and returns the memory
// they held to the operating system; it reports how many it closed. An
// optimizing tier otherwise lives for the rest of the process: that is
// right while Engines come and go, and wrong for a process that closed its
// last Engine to sit idle for minutes (a front door between questions),
// where the machine code and the decoded module are most of its resident
// memory. A later New compiles again, which on a warm on-disk cache is a
// load of about 100 ms. A compile still running is left alone.
func ReleaseUnused() int {
	tiersMu.Lock()
	var unused []*tier
	for key, t := range tiers {
		if t.refs == 0 && isDone(t.done) && !t.released {
			t.released = true
			delete(tiers, key)
			unused = append(unused, t)
		}
	}
	tiersMu.Unlock()
	for _, t := range unused {
		t.free()
	}
	if len(unused) > 0 {
		// Once more: after the collection of free, about 5 MB of the
		// closed module's heap is still in use (measured on askcore.wasm;
		// what is held one collection longer: sync.Pool's victims, objects
		// behind finalizers), and only a second collection frees it.
		returnMemory()
	}
	return len(unused)
}

// For tests: returnMemory calls, and optimizing compiles into an on-disk
// cache that found no warm marker (compiled rather than loaded).
var memoryReturns, coldCompiles atomic.Int64

// returnMemory gives the memory the Go heap no longer uses back to the
// operating system at once. hostgo calls it after the few events that free
// tens of megabytes at a time: a stand-in interpreter tier released, a cold
// optimizing compile done, an instance whose linear memory grew past the
// recycle threshold closed. Without it the Go runtime keeps that memory
// resident until its scavenger gets to it, which in an idle process (no
// allocation, hence no garbage collection) is minutes (RATIONALE.md,
// "Memory").
func returnMemory() {
	memoryReturns.Add(1)
	debug.FreeOSMemory()
}

// tierStarted reports whether this process has a tier for key, compiled
// or compiling.
func tierStarted(key tierKey) bool {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	_, ok := tiers[key]
	return ok
}

// errAbandoned ends a compile that was still waiting for another process's
// compile (see lockCompile) when the last Engine that wanted it went away.
var errAbandoned = errors.New("hostgo: compile abandoned: no Engine waits for it")

func (t *tier) compile() {
	free := false
	defer func() {
		close(t.done)
		if free {
			t.free()
		}
	}()
	defer func() {
		// A stand-in whose every user went away while it compiled.
		tiersMu.Lock()
		free = t.err == nil && t.refs == 0 && t.standIn && !t.released
		if free {
			t.released = true
			if tiers[t.key] == t {
				delete(tiers, t.key)
			}
		}
		tiersMu.Unlock()
	}()
	warm := t.key.cache == cacheDir && cacheLooksWarm(t.key.cacheDir)
	cache, err := compilationCache(t.key)
	onDisk := err == nil && t.key.cache == cacheDir
	if err != nil {
		// An unusable cache directory (read-only home, ...) costs start-up
		// time, never correctness: fall back to the in-memory cache.
		cache, _ = compilationCache(tierKey{cache: cacheMemory})
	}
	if onDisk && !warm && !t.key.interpreter {
		// Cold: compile only after any other process compiling into the
		// same directory is done, and load what it wrote if it did.
		unlock, ok := lockCompile(t.key.cacheDir, t.key.interruptible, t.wanted)
		if !ok {
			tiersMu.Lock()
			if tiers[t.key] == t {
				delete(tiers, t.key)
			}
			tiersMu.Unlock()
			t.err = errAbandoned
			return
		}
		defer unlock()
		warm = cacheLooksWarm(t.key.cacheDir)
	}
	if onDisk && !warm && !t.key.interpreter {
		coldCompiles.Add(1)
	}
	if onDisk && warm && !t.key.interpreter {
		defer pauseGC()()
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
	if t.err == nil && !t.key.interpreter && !warm {
		// A full compile leaves tens of MB of garbage behind.
		returnMemory()
	}
}

// wanted reports whether anything still holds a reference on t. A tier
// nobody wants is abandoned while it waits for the compile lock: when its
// last reference goes, the compile has not begun (hence the check only
// there), and the other process fills the cache anyway.
func (t *tier) wanted() bool {
	tiersMu.Lock()
	defer tiersMu.Unlock()
	if t.refs > 0 {
		return true
	}
	if tiers[t.key] == t {
		delete(tiers, t.key) // under the same lock: no acquireTier gets t now
	}
	return false
}

func compileWith(key tierKey, cache wazero.CompilationCache) (wazero.Runtime, wazero.CompiledModule, error) {
	return wasmruntime.Compile(context.Background(), key.interpreter, cache, key.memoryPages, key.interruptible)
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
func markerPath(dir string) string { return cacheFile(dir, ".warm") }

// cacheFile names a file of hostgo's next to wazero's entries: askcore-,
// the hash of the module, the wazero version and the platform, then ext.
func cacheFile(dir, ext string) string {
	h := sha256.Sum256([]byte(wasm.SHA256 + "\x00" + wazeroVersion() + "\x00" + runtime.GOOS + "/" + runtime.GOARCH))
	return filepath.Join(dir, "askcore-"+hex.EncodeToString(h[:8])+ext)
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
	t := getTier(cfg.key(cfg.interpreter))
	defer t.unref()
	return t.wait(ctx)
}

func (c config) key(interpreter bool) tierKey {
	k := tierKey{interpreter: interpreter, memoryPages: c.memoryPages, interruptible: c.interruptible}
	if !interpreter { // the interpreter has no compilation cache: cacheNone
		k.cache, k.cacheDir = c.cache, c.cacheDir
	}
	return k
}
