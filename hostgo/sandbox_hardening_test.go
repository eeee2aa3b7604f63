package hostgo

// The WASM guest is a sandbox: no filesystem, environment, arguments,
// stdin or network reach it. Two tests show it with the configuration
// hostgo really uses (internal/wasmruntime: the runtime, WASI, ModuleConfig; and
// tier.instantiate / instance.call, the code path of every Handle):
//
//   - TestSandboxRealModule watches every WASI call the real askcore.wasm
//     makes while it starts and serves calls, and checks what each returned
//     (argc 0, environ 0; it imports no filesystem or socket function);
//   - TestSandboxProbeModule instantiates a tiny hand-assembled module in
//     the same runtime with the same ModuleConfig and makes it try what a
//     hostile guest would: read its arguments and environment, find and
//     open a preopened directory, accept on a socket, read stdin.

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/wasmruntime"
)

// WASI errno values (wasi_snapshot_preview1).
const (
	wasiESUCCESS = 0
	wasiEBADF    = 8
)

// wasiCall is one call of a WASI host function, as a listener saw it.
type wasiCall struct {
	name    string
	params  []uint64
	results []uint64
	// out holds the little-endian u32 values the call wrote through its
	// pointer parameters, for the calls whose outputs the test checks.
	out []uint32
}

// wasiRecorder is an experimental.FunctionListenerFactory recording every
// call of a wasi_snapshot_preview1 function.
type wasiRecorder struct {
	mu    sync.Mutex
	calls []wasiCall
}

func (r *wasiRecorder) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if _, _, imported := def.Import(); imported || def.ModuleName() != "wasi_snapshot_preview1" {
		return nil
	}
	return &wasiListener{r: r}
}

type wasiListener struct {
	r      *wasiRecorder
	mu     sync.Mutex
	params [][]uint64 // a stack: calls do not nest, but be safe
}

func (l *wasiListener) Before(_ context.Context, _ api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	l.mu.Lock()
	l.params = append(l.params, append([]uint64(nil), params...))
	l.mu.Unlock()
}

func (l *wasiListener) After(_ context.Context, mod api.Module, def api.FunctionDefinition, results []uint64) {
	l.mu.Lock()
	params := l.params[len(l.params)-1]
	l.params = l.params[:len(l.params)-1]
	l.mu.Unlock()
	c := wasiCall{name: def.Name(), params: params, results: append([]uint64(nil), results...)}
	switch c.name {
	case "args_sizes_get", "environ_sizes_get": // (count_ptr, buf_size_ptr)
		for _, p := range params {
			v, _ := mod.Memory().ReadUint32Le(uint32(p))
			c.out = append(c.out, v)
		}
	}
	l.r.mu.Lock()
	l.r.calls = append(l.r.calls, c)
	l.r.mu.Unlock()
}

func (l *wasiListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {
	l.mu.Lock()
	l.params = l.params[:len(l.params)-1]
	l.mu.Unlock()
}

func (r *wasiRecorder) take() []wasiCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// sandboxTier compiles the real module exactly as hostgo does (wasmruntime.Compile:
// the runtime, its memory limit, WASI) with a listener on every WASI
// function, on the interpreter (which supports listeners everywhere).
func sandboxTier(t *testing.T, rec *wasiRecorder) *tier {
	t.Helper()
	ctx := experimental.WithFunctionListenerFactory(context.Background(), rec)
	rt, mod, err := wasmruntime.Compile(ctx, true, nil, DefaultMemoryLimitPages, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	tr := &tier{rt: rt, mod: mod, done: make(chan struct{})}
	close(tr.done)
	return tr
}

// The host process has arguments, an environment and files; none of them
// may reach the guest.
func setCanaries(t *testing.T) {
	t.Helper()
	t.Setenv("ASKCORE_SANDBOX_CANARY", "secret-from-the-host")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "canary.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if len(os.Args) == 0 || len(os.Environ()) == 0 {
		t.Fatal("the host process should have arguments and an environment")
	}
}

func TestSandboxRealModule(t *testing.T) {
	setCanaries(t)
	rec := &wasiRecorder{}
	tr := sandboxTier(t, rec)

	// Imports: only WASI, no memory or table from the host, no sockets.
	var imports []string
	for _, f := range tr.mod.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "wasi_snapshot_preview1" {
			t.Errorf("import %s.%s: the guest may import from WASI only", mod, name)
		}
		if !sandboxImports[name] {
			t.Errorf("the guest imports %s: only %v are expected (no filesystem, stdin or socket call at all)", name, sandboxImports)
		}
		imports = append(imports, name)
	}
	sort.Strings(imports)
	t.Logf("imports: %s", strings.Join(imports, ", "))
	if n := len(tr.mod.ImportedMemories()); n != 0 {
		t.Errorf("the guest imports %d memories", n)
	}

	// Start-up: the Go runtime reads its arguments and environment.
	ctx := context.Background()
	in, err := tr.instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	startup := rec.take()
	checkSandboxCalls(t, "start-up", startup)
	seen := map[string]bool{}
	for _, c := range startup {
		seen[c.name] = true
	}
	for _, want := range []string{"args_sizes_get", "environ_sizes_get"} {
		if !seen[want] {
			t.Errorf("the guest never called %s at start-up; the test cannot show what it gets", want)
		}
	}

	// Calls: every op, with text that looks like paths and variables.
	for _, input := range []string{
		`{"op":"schema"}`,
		`{"op":"normalize","request":{"question":"/etc/passwd $HOME ${PATH} ../../x","options":[{"label":"file:///etc/shadow"}]}}`,
		`{"op":"present","request":{"question":"q","options":[{"label":"a","recommended":true},{"label":"b"}]}}`,
		`{"op":"resolve","request":{"question":"q"},"input":"$(cat /etc/passwd)"}`,
		`{"op":"elicitation","request":{"question":"q","options":[{"label":"a"}]}}`,
		`{"op":"elicitation_result","request":{"question":"q"},"response":{"action":"accept","content":{"answer":"x"}}}`,
		`not json`,
	} {
		out, err := in.call(ctx, []byte(input))
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		if want := core.Handle([]byte(input)); string(out) != string(want) {
			t.Fatalf("%s: got %s, want %s", input, out, want)
		}
	}
	calls := rec.take()
	checkSandboxCalls(t, "calls", calls)
	for _, c := range calls {
		switch c.name {
		case "clock_time_get", "random_get", "poll_oneoff", "sched_yield":
		default:
			t.Errorf("serving a call, the guest called %s%v", c.name, c.params)
		}
	}
	t.Logf("%d WASI calls at start-up, %d while serving 7 calls", len(startup), len(calls))
}

// sandboxImports is everything the real guest may import: the clock,
// randomness, scheduling, exit, stdout/stderr (discarded and a 4 KiB
// buffer), and reading arguments and environment (which are empty). No
// filesystem (path_*, fd_prestat_*, fd_read), no socket (sock_*): the guest
// cannot even name them; TestSandboxProbeModule shows a guest that does gets
// nothing.
var sandboxImports = map[string]bool{
	"args_get": true, "args_sizes_get": true, "environ_get": true, "environ_sizes_get": true,
	"clock_time_get": true, "random_get": true, "poll_oneoff": true, "sched_yield": true,
	"proc_exit": true, "fd_write": true,
}

// checkSandboxCalls fails on any WASI call that got something from the host:
// an argument, an environment variable, a preopened directory, an open file,
// a socket, bytes from stdin.
func checkSandboxCalls(t *testing.T, phase string, calls []wasiCall) {
	t.Helper()
	for _, c := range calls {
		errno := uint64(0)
		if len(c.results) > 0 {
			errno = c.results[0]
		}
		switch {
		case c.name == "args_sizes_get" || c.name == "environ_sizes_get":
			if errno != wasiESUCCESS || len(c.out) != 2 || c.out[0] != 0 || c.out[1] != 0 {
				t.Errorf("%s: %s returned errno %d, count and size %v: want 0 and 0", phase, c.name, errno, c.out)
			}
		case c.name == "args_get" || c.name == "environ_get":
			// Harmless with zero entries (checked above).
		case c.name == "fd_prestat_get":
			if errno != wasiEBADF {
				t.Errorf("%s: fd_prestat_get(%d) = errno %d, want EBADF (no preopened directory)", phase, c.params[0], errno)
			}
		case c.name == "fd_write":
			if fd := c.params[0]; fd != 1 && fd != 2 {
				t.Errorf("%s: fd_write to fd %d", phase, fd)
			}
		case strings.HasPrefix(c.name, "path_") || strings.HasPrefix(c.name, "sock_") || c.name == "fd_read" || c.name == "fd_readdir":
			if errno == wasiESUCCESS {
				t.Errorf("%s: %s%v succeeded", phase, c.name, c.params)
			}
		}
	}
}

// probeModule is a hand-assembled module importing the WASI functions a
// hostile guest would try, each wrapped in an exported probe_* function that
// returns the errno.
func probeModule() []byte {
	const i32, i64 = 0x7f, 0x7e
	types := [][2][]byte{
		{{i32, i32}, {i32}}, // 0
		{{i32, i32, i32, i32, i32, i64, i64, i32, i32}, {i32}}, // 1 path_open
		{{i32, i32, i32}, {i32}},                               // 2
		{{i32, i32, i32, i32}, {i32}},                          // 3
		{nil, {i32}},                                           // 4 probes
	}
	imports := []struct {
		name string
		typ  byte
	}{
		{"args_sizes_get", 0}, {"environ_sizes_get", 0}, {"fd_prestat_get", 0},
		{"path_open", 1}, {"sock_accept", 2}, {"fd_read", 3}, {"sock_shutdown", 0}, {"fd_fdstat_get", 0},
	}
	c := func(v int64) []byte { return append([]byte{0x41}, sleb(v)...) }
	c64 := func(v int64) []byte { return append([]byte{0x42}, sleb(v)...) }
	call := func(idx byte) []byte { return []byte{0x10, idx} }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	pathOpen := func(fd int64) []byte {
		return cat(c(fd), c(0), c(100), c(10), c(0), c64(-1), c64(-1), c(0), c(24), call(3))
	}
	probes := []struct {
		name string
		body []byte
	}{
		{"probe_args", cat(c(0), c(4), call(0))},
		{"probe_env", cat(c(8), c(12), call(1))},
		{"probe_prestat3", cat(c(3), c(16), call(2))},
		{"probe_prestat4", cat(c(4), c(16), call(2))},
		{"probe_open3", pathOpen(3)},
		{"probe_open_stdin", pathOpen(0)},
		{"probe_sock_accept", cat(c(3), c(0), c(28), call(4))},
		{"probe_sock_shutdown", cat(c(0), c(2), call(6))},
		{"probe_stdin", cat(c(0), c(200), c(1), c(32), call(5))},
		{"probe_fdstat3", cat(c(3), c(40), call(7))},
	}

	var typeSec []byte
	typeSec = append(typeSec, uleb(len(types))...)
	for _, ty := range types {
		typeSec = append(typeSec, 0x60)
		typeSec = append(typeSec, uleb(len(ty[0]))...)
		typeSec = append(typeSec, ty[0]...)
		typeSec = append(typeSec, uleb(len(ty[1]))...)
		typeSec = append(typeSec, ty[1]...)
	}
	var importSec []byte
	importSec = append(importSec, uleb(len(imports))...)
	for _, im := range imports {
		importSec = append(importSec, name("wasi_snapshot_preview1")...)
		importSec = append(importSec, name(im.name)...)
		importSec = append(importSec, 0x00, im.typ)
	}
	funcSec := uleb(len(probes))
	for range probes {
		funcSec = append(funcSec, 4)
	}
	memSec := []byte{1, 0x00, 1} // one memory, min 1 page
	exportSec := uleb(len(probes) + 1)
	exportSec = append(exportSec, name("memory")...)
	exportSec = append(exportSec, 0x02, 0)
	codeSec := uleb(len(probes))
	for i, p := range probes {
		exportSec = append(exportSec, name(p.name)...)
		exportSec = append(exportSec, 0x00, byte(len(imports)+i))
		body := append(append([]byte{0x00}, p.body...), 0x0b) // no locals ... end
		codeSec = append(codeSec, uleb(len(body))...)
		codeSec = append(codeSec, body...)
	}
	iov := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 300), 16)
	dataSec := uleb(2)
	for _, seg := range []struct {
		off  int64
		data []byte
	}{{100, []byte("etc/passwd")}, {200, iov}} {
		dataSec = append(dataSec, 0x00)
		dataSec = append(dataSec, c(seg.off)...)
		dataSec = append(dataSec, 0x0b)
		dataSec = append(dataSec, uleb(len(seg.data))...)
		dataSec = append(dataSec, seg.data...)
	}

	mod := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	for _, s := range []struct {
		id   byte
		body []byte
	}{{1, typeSec}, {2, importSec}, {3, funcSec}, {5, memSec}, {7, exportSec}, {10, codeSec}, {11, dataSec}} {
		mod = append(mod, s.id)
		mod = append(mod, uleb(len(s.body))...)
		mod = append(mod, s.body...)
	}
	return mod
}

func uleb(n int) []byte {
	var b []byte
	v := uint64(n)
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func name(s string) []byte { return append(uleb(len(s)), s...) }

func TestSandboxProbeModule(t *testing.T) {
	setCanaries(t)
	ctx := context.Background()
	// The very runtime and ModuleConfig hostgo uses (compiler this time),
	// the real module loaded from the run's on-disk cache: the probe needs
	// the runtime, not another optimizing compile of the module.
	warmTestCache(t)
	cache, err := compilationCache(tierKey{cache: cacheDir, cacheDir: testCacheDir})
	if err != nil {
		t.Fatal(err)
	}
	rt, _, err := wasmruntime.Compile(ctx, false, cache, DefaultMemoryLimitPages, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, probeModule())
	if err != nil {
		t.Fatalf("the probe module does not compile: %v", err)
	}
	// The probe has no _initialize: start nothing, as a reactor would.
	mod, err := rt.InstantiateModule(ctx, compiled, moduleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close(ctx)
	mem := mod.Memory()
	u32 := func(off uint32) uint32 {
		v, ok := mem.ReadUint32Le(off)
		if !ok {
			t.Fatalf("read at %d", off)
		}
		return v
	}
	probe := func(fn string) uint32 {
		res, err := mod.ExportedFunction(fn).Call(ctx)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		t.Logf("%s -> errno %d", fn, res[0])
		return uint32(res[0])
	}
	// Poison the out-parameters so a "0" is really written by WASI.
	for off := uint32(0); off < 48; off += 4 {
		mem.WriteUint32Le(off, 0xdeadbeef)
	}

	if e := probe("probe_args"); e != wasiESUCCESS || u32(0) != 0 || u32(4) != 0 {
		t.Errorf("arguments: errno %d, argc %d, size %d; want 0, 0, 0", e, u32(0), u32(4))
	}
	if e := probe("probe_env"); e != wasiESUCCESS || u32(8) != 0 || u32(12) != 0 {
		t.Errorf("environment: errno %d, count %d, size %d; want 0, 0, 0", e, u32(8), u32(12))
	}
	for _, fn := range []string{"probe_prestat3", "probe_prestat4", "probe_fdstat3", "probe_open3"} {
		if e := probe(fn); e != wasiEBADF {
			t.Errorf("%s: errno %d, want EBADF: no directory is preopened", fn, e)
		}
	}
	if e := probe("probe_open_stdin"); e == wasiESUCCESS {
		t.Errorf("path_open relative to stdin succeeded: fd %d", u32(24))
	}
	for _, fn := range []string{"probe_sock_accept", "probe_sock_shutdown"} {
		if e := probe(fn); e == wasiESUCCESS {
			t.Errorf("%s succeeded: the guest has a socket", fn)
		}
	}
	if e := probe("probe_stdin"); e != wasiESUCCESS || u32(32) != 0 {
		t.Errorf("stdin: errno %d, %d bytes read; want an empty stdin", e, u32(32))
	}
}
