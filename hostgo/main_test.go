package hostgo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/askcore/askcore/internal/bench/benchdata"
)

// testCacheDir is this test process's on-disk compilation cache: the first
// optimizing compile is cold, every other compiler configuration in the
// tests loads from it.
var testCacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hostgo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The default cache (os.UserCacheDir()/askcore/wazero) is this run's
	// too: the examples use it, and they then share the tests' compile
	// instead of writing to the user's cache or compiling again.
	if err := os.Setenv("XDG_CACHE_HOME", dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCacheDir = filepath.Join(dir, "askcore", "wazero")
	code := m.Run()
	closeSharedEngines()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	sharedMu      sync.Mutex
	sharedEngines = map[string]*Engine{}
)

// engines are the two ways the tests run the module: the optimizing
// compiler (no tiering: always compiled code) and the interpreter.
var engineOpts = map[string][]Option{
	"compiler":    {WithTieredStart(false)},
	"interpreter": {WithInterpreter()},
}

// sharedEngine returns a process-wide Engine of the named kind, so the
// tests, the fuzz target and the benchmarks do not each pay a compile.
func sharedEngine(tb testing.TB, kind string) *Engine {
	tb.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if e, ok := sharedEngines[kind]; ok {
		return e
	}
	opts := append([]Option{WithCompilationCacheDir(testCacheDir)}, engineOpts[kind]...)
	e, err := New(context.Background(), opts...)
	if err != nil {
		tb.Fatalf("New(%s): %v", kind, err)
	}
	sharedEngines[kind] = e
	return e
}

// warmTestCache makes sure testCacheDir holds the optimizing compile of the
// module (the shared compiler Engine compiles into it, or loads from it),
// for tests that need compiled code but not a compile of their own: under
// -race one optimizing compile of the 2.3 MB module costs 5-15 s of CPU.
func warmTestCache(tb testing.TB) {
	tb.Helper()
	sharedEngine(tb, "compiler")
	if !cacheLooksWarm(testCacheDir) {
		tb.Fatalf("%s is not warm after the shared compiler Engine started", testCacheDir)
	}
}

// seedCompiledCode copies wazero's entries of the warm testCacheDir into
// dir, without hostgo's warm marker: dir then looks cold to hostgo (an
// Engine starts on the interpreter and compiles in the background, under
// the compile lock), while the "compile" itself is wazero loading the
// seeded entry. For tests of that protocol rather than of the compiler.
func seedCompiledCode(tb testing.TB, dir string) {
	tb.Helper()
	warmTestCache(tb)
	if err := os.CopyFS(dir, os.DirFS(testCacheDir)); err != nil {
		tb.Fatal(err)
	}
	if err := os.Remove(markerPath(dir)); err != nil {
		tb.Fatal(err)
	}
}

func closeSharedEngines() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for k, e := range sharedEngines {
		e.Close(context.Background())
		delete(sharedEngines, k)
	}
}

// ownInputs complement the conformance corpus: every op, the typical
// request, and malformed envelopes of several kinds.
var ownInputs = [][]byte{
	[]byte(`{"op":"schema"}`),
	[]byte(`{"op":"normalize","request":{"question":"  Go on? ","options":[{"label":"Yes","desc":"ship it"},{"label":"No"}]}}`),
	[]byte(`{"op":"present","request":` + benchdata.Request + `}`),
	[]byte(`{"op":"resolve","request":` + benchdata.Request + `,"input":""}`),
	[]byte(`{"op":"resolve","request":` + benchdata.Request + `,"input":"redis"}`),
	[]byte(`{"op":"resolve","request":` + benchdata.Request + `,"input":"something else"}`),
	[]byte(`{"op":"elicitation_result","request":` + benchdata.Request + `,"response":{"action":"accept","content":{"choice":"mongo"}}}`),
	[]byte(`{"op":"elicitation_result","request":` + benchdata.Request + `,"response":{"action":"decline"}}`),
	[]byte(`{"op":"normalize","request":{"question":"x","options":[{"label":"a"},{"label":"a"}]}}`),
	[]byte(`{"op":"normalize","request":{"question":"\u001b[31mred\u202e","options":[]}}`),
	[]byte(`{"op":"nope"}`),
	[]byte(`[]`),
	[]byte(`not json`),
	[]byte(``),
	[]byte(`{"op":"normalize","request":{"question":"<b>&</b>"}}`),
	[]byte("{\"op\":\"normalize\",\"request\":{\"question\":\"\xff\xfe\"}}"),
	benchdata.Ops[0].Input, benchdata.Ops[1].Input, benchdata.Ops[2].Input,
}

// corpus is testdata/conformance/*.in (when the core has written it) plus
// ownInputs, by name.
func corpus(tb testing.TB) (names []string, inputs map[string][]byte) {
	tb.Helper()
	inputs = map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "conformance", "*.in"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		inputs[strings.TrimSuffix(filepath.Base(f), ".in")] = b
	}
	for i, in := range ownInputs {
		inputs[fmt.Sprintf("hostgo-%02d", i)] = in
	}
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, inputs
}

// same fails the test when the engine's output differs from native's.
func same(tb testing.TB, what string, input, native, got []byte, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: host fault on %.200q: %v", what, input, err)
	}
	if !bytes.Equal(native, got) {
		tb.Fatalf("%s differs from native core.Handle on %.200q\nnative: %.400s\nwasm:   %.400s\n(is wasm/askcore.wasm stale? run make wasm)", what, input, native, got)
	}
}
