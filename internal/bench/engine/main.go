// Command bench measures every askcore surface against native Go on this
// machine, in one run, and prints one table (the one BENCHMARKS.md records).
// `make bench` runs it through scripts/bench.sh, which builds the binaries.
//
//	go run ./internal/bench/engine [-stdio BIN] [-acp BIN] [-node NODE] [-calls N] [-runs N]
//
// What it measures, and how:
//
//   - per op (normalize, resolve, elicitation of the typical 4-option request
//     in internal/bench/benchdata): ns/op of core.Handle natively and of
//     hostgo's Engine.Handle on wazero's compiler (testing.Benchmark, several
//     alternating rounds, median), and of handle() in Node through the hostjs
//     package (a small driver run with the same envelope strings, median of
//     batches), each as a ratio to native from this same run; the outputs of
//     the three are compared byte for byte;
//   - the module: raw size, the size of its embedded gzip (wasm.Gzip, what
//     every binary carries and the answer page sends), and the first
//     wasm.Binary() of a fresh process (inflating that gzip), median of -runs
//     child processes;
//   - wazero compile (compiler: fresh empty cache dir, and a warm on-disk
//     cache read by a fresh cache object; interpreter) and instantiation
//     (hostgo.New once the module is compiled in the process);
//   - Node load, instantiate and first call, from hostjs/bench/*.mjs's JSON;
//   - the built askcore-stdio: process start to the first byte of the prompt
//     on stderr (`ask --request`, stdin a pipe) with an empty cache, a warm
//     cache and --engine native, interleaved runs, median;
//   - the built askcore-acp: spawn to the reply to initialize, empty cache and
//     --engine native;
//   - linear memory (hostgo Stats.MaxPages, recycling off) after -calls calls;
//   - pool throughput with 1 and GOMAXPROCS instances.
//
// Caches are always fresh temporary directories (XDG_CACHE_HOME for the
// binaries), never the user's.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/bench/benchdata"
	"github.com/askcore/askcore/internal/wasmruntime"
	"github.com/askcore/askcore/wasm"
)

var ops = benchdata.Ops

// Targets (on a 2-core machine).
const (
	targetWazeroRatio    = 4.0
	targetNodeRatio      = 3.0
	targetModuleBytes    = 2_300_000
	targetModuleGzip     = 700_000
	targetWarmAboveMs    = 30.0
	targetColdAboveMs    = 120.0
	targetACPAboveMs     = 50.0 // "without waiting for the compile": within this of the native floor
	targetPoolRatio      = 1.8
	targetNodeLoadMs     = 30.0
	targetBoundedPages   = 256 // hostgo's recycle threshold (16 MiB)
	baselineColdCompile  = "0.8 s"
	baselineWarmCompile  = "35 ms"
	baselineInterpreter  = "90 ms"
	baselineInstantiate  = "3-4 ms"
	initializeJSONRPC    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	processTimeout       = 60 * time.Second
	nodeDriverBatches    = 7
	nodeDriverBatchIters = 2000
)

var (
	stdioBin    = flag.String("stdio", "", "built askcore-stdio (default: go build into a temp dir)")
	acpBin      = flag.String("acp", "", "built askcore-acp (default: go build into a temp dir)")
	mcpBin      = flag.String("mcp", "", "built askcore-mcp (default: go build into a temp dir)")
	nodeBin     = flag.String("node", "node", "node binary")
	calls       = flag.Int("calls", 500_000, "calls for the memory check")
	runs        = flag.Int("runs", 7, "runs per start-up figure (median)")
	startupRuns = flag.Int("startup-runs", 15, "alternating native and wasm runs for the start-up table (median)")
	newChild    = flag.String(newChildFlag, "", "internal: time hostgo.New on the cache dir `DIR` in a fresh process, print it, exit")
	inflateKid  = flag.Bool(inflateChildFlag, false, "internal: time the first wasm.Binary() of a fresh process, print it, exit")
	rounds      = flag.Int("rounds", 5, "testing.Benchmark rounds per op and surface (median)")
	benchtime   = flag.Duration("benchtime", 200*time.Millisecond, "testing.Benchmark time per round")
	verbose     = flag.Bool("v", false, "progress on stderr")
	only        = flag.String("only", "", "comma-separated sections to run (startup,compile,ops,module,instantiate,node,stdio,picker,acp,pool); default all")
)

func want(section string) bool {
	if *only == "" {
		return true
	}
	for _, s := range strings.Split(*only, ",") {
		if strings.TrimSpace(s) == section {
			return true
		}
	}
	return false
}

// row is one line of the table.
type row struct {
	what, figure, target, result string
}

var (
	table []row
	notes []string
	tmp   string
)

func add(what, figure, target, result string) {
	table = append(table, row{what, figure, target, result})
}
func note(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }

func progress(format string, a ...any) {
	if *verbose {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", a...)
	}
}

func passMiss(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func main() {
	testing.Init()
	flag.Parse()
	if *newChild != "" {
		runNewChild(*newChild)
		return
	}
	if *inflateKid {
		runInflateChild()
		return
	}
	if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
		fatal(err)
	}
	var err error
	if tmp, err = os.MkdirTemp("", "askcore-bench-"); err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	load0 := loadavg()
	ctx := context.Background()

	root, err := repoRoot()
	if err != nil {
		fatal(err)
	}
	if *stdioBin == "" || *acpBin == "" || *mcpBin == "" {
		progress("building the binaries")
		if *stdioBin == "" {
			*stdioBin = build(root, "./cmd/askcore-stdio", "askcore-stdio")
		}
		if *acpBin == "" {
			*acpBin = build(root, "./cmd/askcore-acp", "askcore-acp")
		}
		if *mcpBin == "" {
			*mcpBin = build(root, "./cmd/askcore-mcp", "askcore-mcp")
		}
	}

	warmDir := filepath.Join(tmp, "wazero-warm")
	if want("startup") {
		startupFigures()
	}
	if want("compile") {
		compileFigures(ctx, warmDir)
	}
	if want("ops") {
		engine := newEngine(ctx, warmDir, 1)
		perOp(ctx, engine, root)
		_ = engine.Close(ctx)
	}
	if want("module") {
		moduleFigures()
	}
	if want("instantiate") {
		instantiateFigures(ctx, warmDir)
	}
	if want("node") {
		nodeLoadFigures(root)
	}
	if want("stdio") {
		firstPrompt()
	}
	if want("picker") {
		pickerFirstPaint(root)
	}
	if want("acp") {
		acpInitialize()
	}
	if want("pool") {
		memoryAndPool(ctx, warmDir)
	}

	printTable(start, load0)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	if tmp != "" {
		os.RemoveAll(tmp)
	}
	os.Exit(1)
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

func build(root, pkg, name string) string {
	out := filepath.Join(tmp, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fatal(fmt.Errorf("go build %s: %w", pkg, err))
	}
	return out
}

// ---- helpers ---------------------------------------------------------------

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d float64) string { // d in ms
	switch {
	case d >= 1000:
		return strconv.FormatFloat(d/1000, 'f', 2, 64) + " s"
	case d >= 100:
		return strconv.FormatFloat(d, 'f', 0, 64) + " ms"
	case d >= 10:
		return strconv.FormatFloat(d, 'f', 1, 64) + " ms"
	default:
		return strconv.FormatFloat(d, 'f', 2, 64) + " ms"
	}
}

func us(ns float64) string {
	if ns >= 100_000 {
		return strconv.FormatFloat(ns/1000, 'f', 0, 64) + " µs"
	}
	return strconv.FormatFloat(ns/1000, 'f', 1, 64) + " µs"
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// env is the environment of a child (benchdata.ChildEnv).
func env(cacheHome string) []string { return benchdata.ChildEnv(cacheHome) }

func freshDir(prefix string) string {
	d, err := os.MkdirTemp(tmp, prefix)
	if err != nil {
		fatal(err)
	}
	return d
}

// ---- compile and instantiate ----------------------------------------------

// compileOnce makes a runtime configured as hostgo's optimizing tier (or
// its interpreter) and compiles the module in it, as a new process would.
func compileOnce(ctx context.Context, interpreter bool, cache wazero.CompilationCache) time.Duration {
	t0 := time.Now()
	rt, _, err := wasmruntime.Compile(ctx, interpreter, cache, hostgo.DefaultMemoryLimitPages, false)
	d := time.Since(t0)
	if err != nil {
		fatal(fmt.Errorf("compile: %w", err))
	}
	_ = rt.Close(ctx)
	if cache != nil {
		_ = cache.Close(ctx)
	}
	return d
}

func compileFigures(ctx context.Context, warmDir string) {
	progress("compile: cold, warm, interpreter")
	var cold, warm, interp []float64
	for i := 0; i < 3; i++ {
		dir := warmDir
		if i > 0 {
			dir = freshDir("wazero-cold-")
		}
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			fatal(err)
		}
		cold = append(cold, durMs(compileOnce(ctx, false, c)))
	}
	for i := 0; i < 5; i++ {
		c, err := wazero.NewCompilationCacheWithDir(warmDir) // a fresh object: only the disk is warm
		if err != nil {
			fatal(err)
		}
		warm = append(warm, durMs(compileOnce(ctx, false, c)))
	}
	for i := 0; i < 3; i++ {
		interp = append(interp, durMs(compileOnce(ctx, true, nil)))
	}
	add("wazero compile, compiler, empty cache dir", ms(median(cold)), "(baseline "+baselineColdCompile+")", "")
	add("wazero compile, compiler, warm on-disk cache", ms(median(warm)), "(baseline "+baselineWarmCompile+")", "")
	add("wazero compile, interpreter", ms(median(interp)), "(baseline "+baselineInterpreter+")", "")
}

func newEngine(ctx context.Context, cacheDir string, pool int, more ...hostgo.Option) *hostgo.Engine {
	opts := append([]hostgo.Option{
		hostgo.WithCompilationCacheDir(cacheDir),
		hostgo.WithTieredStart(false), // the compiler, always
		hostgo.WithPoolSize(pool),
	}, more...)
	e, err := hostgo.New(ctx, opts...)
	if err != nil {
		fatal(err)
	}
	if s := e.Stats(); s.Interpreter {
		fatal(fmt.Errorf("hostgo engine is on the interpreter with the tiered start off"))
	}
	return e
}

func instantiateFigures(ctx context.Context, warmDir string) {
	progress("instantiate")
	// The module is compiled in this process already (newEngine above): New
	// only instantiates (InstantiateModule + _initialize) its first instance.
	var comp, interp []float64
	for i := 0; i < 9; i++ {
		t0 := time.Now()
		e := newEngine(ctx, warmDir, 1)
		comp = append(comp, durMs(time.Since(t0)))
		_ = e.Close(ctx)
	}
	for i := 0; i < 6; i++ {
		t0 := time.Now()
		e, err := hostgo.New(ctx, hostgo.WithInterpreter(), hostgo.WithPoolSize(1), hostgo.WithoutCompilationCache())
		if err != nil {
			fatal(err)
		}
		if i > 0 { // the first one compiles
			interp = append(interp, durMs(time.Since(t0)))
		}
		_ = e.Close(ctx)
	}
	add("instantiate + _initialize, compiler (hostgo.New, module compiled)", ms(median(comp)), "(baseline "+baselineInstantiate+")", "")
	add("instantiate + _initialize, interpreter", ms(median(interp)), "(baseline 7-11 ms)", "")
}

// ---- per op ------------------------------------------------------------------

func benchNs(f func()) float64 {
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			f()
		}
	})
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

func perOp(ctx context.Context, e *hostgo.Engine, root string) {
	nodeNs, nodeOut, nodeErr := nodePerOp(root)
	for _, o := range ops {
		progress("per op: %s", o.Name)
		want := core.Handle(o.Input)
		got, err := e.Handle(ctx, o.Input)
		if err != nil {
			fatal(err)
		}
		same := bytes.Equal(got, want)
		if nodeErr == nil {
			same = same && nodeOut[o.Name] == string(want)
		}
		if !same {
			note("OUTPUTS DIFFER for %s: native %q, wazero %q, node %q", o.Name, want, got, nodeOut[o.Name])
		}
		var nat, wz []float64
		for i := 0; i < *rounds; i++ { // alternate, so that drift in the machine's load hits both
			nat = append(nat, benchNs(func() { core.Handle(o.Input) }))
			wz = append(wz, benchNs(func() {
				if _, err := e.Handle(ctx, o.Input); err != nil {
					panic(err)
				}
			}))
		}
		n, w := median(nat), median(wz)
		add(o.Name+": native core.Handle", us(n), "", "")
		add(o.Name+": wazero compiler (hostgo.Engine.Handle)",
			fmt.Sprintf("%s = %.1fx native", us(w), w/n), fmt.Sprintf("≤ %.0fx", targetWazeroRatio), passMiss(w/n <= targetWazeroRatio))
		switch {
		case nodeErr != nil:
			add(o.Name+": Node (hostjs handle)", "n/a ("+nodeErr.Error()+")", fmt.Sprintf("≤ %.0fx", targetNodeRatio), "n/a")
		default:
			nn := nodeNs[o.Name]
			add(o.Name+": Node (hostjs handle)", fmt.Sprintf("%s = %.1fx native", us(nn), nn/n),
				fmt.Sprintf("≤ %.0fx", targetNodeRatio), passMiss(nn/n <= targetNodeRatio))
		}
	}
	if nodeErr == nil {
		note("outputs of native, wazero and Node compared byte for byte for every op: identical unless noted")
	}
}

// nodeDriver times hostjs's handle() on the very envelope strings timed
// natively, and returns the outputs for the byte comparison.
const nodeDriver = `
import { readFileSync } from 'node:fs';
const [entry, wasmPath, envsJSON, batches, iters] = process.argv.slice(2);
const { load } = await import(entry);
const core = await load(readFileSync(wasmPath));
const envs = JSON.parse(envsJSON);
const out = { ns: {}, out: {} };
for (const [name, env] of Object.entries(envs)) {
  out.out[name] = core.handle(env);
  for (let i = 0; i < 3000; i++) core.handle(env);
  const xs = [];
  for (let b = 0; b < Number(batches); b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < Number(iters); i++) core.handle(env);
    xs.push(Number(process.hrtime.bigint() - t0) / Number(iters));
  }
  xs.sort((a, b) => a - b);
  out.ns[name] = xs[xs.length >> 1];
}
process.stdout.write(JSON.stringify(out));
`

func nodePerOp(root string) (map[string]float64, map[string]string, error) {
	entry := filepath.Join(root, "hostjs", "node.js")
	if _, err := os.Stat(entry); err != nil {
		return nil, nil, fmt.Errorf("hostjs/node.js missing")
	}
	if _, err := exec.LookPath(*nodeBin); err != nil {
		return nil, nil, fmt.Errorf("node not found")
	}
	progress("per op: node")
	envs := map[string]string{}
	for _, o := range ops {
		envs[o.Name] = string(o.Input)
	}
	ej, _ := json.Marshal(envs)
	script := filepath.Join(tmp, "driver.mjs")
	if err := os.WriteFile(script, []byte(nodeDriver), 0o644); err != nil {
		return nil, nil, err
	}
	wasmPath := filepath.Join(root, "wasm", "askcore.wasm")
	cmd := exec.Command(*nodeBin, script, "file://"+entry, wasmPath, string(ej),
		strconv.Itoa(nodeDriverBatches), strconv.Itoa(nodeDriverBatchIters))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("node driver failed: %v: %s", err, firstLine(stderr.String()))
	}
	var r struct {
		NS  map[string]float64 `json:"ns"`
		Out map[string]string  `json:"out"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, nil, fmt.Errorf("node driver output: %v", err)
	}
	if !bytes.Equal(must(os.ReadFile(wasmPath)), wasm.Binary()) {
		note("wasm/askcore.wasm on disk differs from the module embedded in this build (rebuild)")
	}
	return r.NS, r.Out, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		fatal(err)
	}
	return v
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// ---- module and Node load -----------------------------------------------------

func moduleFigures() {
	raw, z := len(wasm.Binary()), len(wasm.Gzip)
	add("module size, raw", fmt.Sprintf("%d B (%.2f MB)", raw, float64(raw)/1e6), "≤ 2.3 MB (baseline 3.30)", passMiss(raw <= targetModuleBytes))
	add("module size, gzip (wasm.Gzip: embedded in every binary, sent to the page)", fmt.Sprintf("%d B (%.0f KB)", z, float64(z)/1e3), "≤ 700 KB (baseline 922)", passMiss(z <= targetModuleGzip))

	progress("module: first wasm.Binary() in child processes")
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	var wall, cpu []float64
	for i := 0; i < *runs; i++ {
		w, c, err := timeInChild(self, "wasm.Binary()", "-"+inflateChildFlag)
		if err != nil {
			add("first wasm.Binary() of a process (inflate + sha256)", "n/a ("+err.Error()+")", "", "n/a")
			return
		}
		wall, cpu = append(wall, durMs(w)), append(cpu, durMs(c))
	}
	add("first wasm.Binary() of a process (inflate + sha256, once)", ms(median(wall))+" (CPU "+ms(median(cpu))+")", "", "")
}

// inflateChildFlag makes the bench program a child that times the first
// wasm.Binary() of a fresh process (the embedded gzip inflated, its sha256
// checked: what the first engine or the first page request without gzip
// pays), prints wall and CPU nanoseconds and exits. In this process the
// module is inflated already.
const inflateChildFlag = "inflate-child"

func runInflateChild() {
	t0, c0 := time.Now(), selfCPU()
	n := len(wasm.Binary())
	d, c := time.Since(t0), selfCPU()-c0
	if n == 0 {
		fatal(fmt.Errorf("wasm.Binary() is empty"))
	}
	fmt.Println(d.Nanoseconds(), c.Nanoseconds())
}

func nodeLoadFigures(root string) {
	scripts, _ := filepath.Glob(filepath.Join(root, "hostjs", "bench", "*.mjs"))
	if len(scripts) == 0 {
		add("Node load (compile + instantiate + _initialize)", "n/a (hostjs bench missing)", "≤ 30 ms", "n/a")
		return
	}
	progress("node: %s", filepath.Base(scripts[0]))
	cmd := exec.Command(*nodeBin, scripts[0], "--loads", strconv.Itoa(*runs), "--iters", "2000")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var r struct {
		Node   string `json:"node"`
		LoadMs struct {
			Median float64 `json:"median"`
			Min    float64 `json:"min"`
		} `json:"load_ms"`
		InstantiateMs float64 `json:"instantiate_ms"`
		FirstCallMs   float64 `json:"first_call_ms"`
		Ops           map[string]struct {
			NS float64 `json:"ns"`
		} `json:"ops"`
	}
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	rel, _ := filepath.Rel(root, scripts[0])
	if err != nil || r.LoadMs.Median == 0 {
		add("Node load (compile + instantiate + _initialize)", "n/a ("+rel+" failed: "+firstLine(stderr.String())+")", "≤ 30 ms", "n/a")
		return
	}
	add("Node load: compile + instantiate + _initialize, fresh process", ms(r.LoadMs.Median)+" (min "+ms(r.LoadMs.Min)+")",
		"≤ 30 ms (baseline 15-25)", passMiss(r.LoadMs.Median <= targetNodeLoadMs))
	add("Node instantiate + _initialize (module compiled)", ms(r.InstantiateMs), "", "")
	add("Node first call after load", ms(r.FirstCallMs), "", "")
	var parts []string
	for _, name := range []string{"normalize", "resolve", "elicitation"} {
		if o, ok := r.Ops[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", name, us(o.NS)))
		}
	}
	note("Node %s; load figures from %s (its per-op figures, through the typed helpers: %s)", r.Node, rel, strings.Join(parts, ", "))
}

// ---- front doors ---------------------------------------------------------------

// firstPromptOnce is the time from just before askcore-stdio ask starts
// to the first byte on its stderr (askOnce).
func firstPromptOnce(cacheHome string, extra ...string) (time.Duration, error) {
	r, err := askOnce(cacheHome, extra...)
	return r.first, err
}

func firstPrompt() {
	warmHome := freshDir("xdg-warm-")
	if _, err := firstPromptOnce(warmHome); err != nil { // fills the cache
		add("askcore-stdio ask: first prompt", "n/a ("+err.Error()+")", "", "n/a")
		return
	}
	if ents, _ := os.ReadDir(filepath.Join(warmHome, "askcore")); len(ents) == 0 {
		note("askcore-stdio left nothing in its cache dir after a first run")
	}
	var native, warm, cold []float64
	for i := 0; i < *runs; i++ { // interleaved: load changes hit all three alike
		progress("first prompt: run %d", i+1)
		d, err := firstPromptOnce(freshDir("xdg-native-"), "--engine", "native")
		if err != nil {
			fatal(err)
		}
		native = append(native, durMs(d))
		if d, err = firstPromptOnce(warmHome); err != nil {
			fatal(err)
		}
		warm = append(warm, durMs(d))
		if d, err = firstPromptOnce(freshDir("xdg-cold-")); err != nil {
			fatal(err)
		}
		cold = append(cold, durMs(d))
	}
	n, w, c := median(native), median(warm), median(cold)
	add("askcore-stdio ask: start → first prompt byte, --engine native (floor)", ms(n), "", "")
	add("askcore-stdio ask: start → first prompt byte, wasm, warm cache", fmt.Sprintf("%s = native + %s", ms(w), ms(w-n)),
		fmt.Sprintf("≤ native + %.0f ms", targetWarmAboveMs), passMiss(w-n <= targetWarmAboveMs))
	add("askcore-stdio ask: start → first prompt byte, wasm, empty cache", fmt.Sprintf("%s = native + %s", ms(c), ms(c-n)),
		fmt.Sprintf("≤ native + %.0f ms", targetColdAboveMs), passMiss(c-n <= targetColdAboveMs))
}

// targetPickerAboveMs: the keyboard picker must not add more than a few
// milliseconds to the first prompt.
const targetPickerAboveMs = 5

// pickerFirstPaint runs cmd/askcore-stdio's BenchmarkAskFirstPaint: askcore-stdio
// ask on a real pty (tmux), from process start to the picker's whole first
// frame and, interleaved, to the line mode's prompt (--plain); medians of
// 30 on each engine, warm cache. It needs tmux (Linux).
func pickerFirstPaint(root string) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkAskFirstPaint", "-benchtime", "30x", "./cmd/askcore-stdio")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		add("askcore-stdio ask on a pty: first picker frame", "n/a ("+firstLine(string(out))+")", "", "n/a")
		return
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[0], "BenchmarkAskFirstPaint/") {
			continue
		}
		metric := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				metric[f[i+1]] = v
			}
		}
		eng, _, _ := strings.Cut(strings.TrimPrefix(f[0], "BenchmarkAskFirstPaint/"), "-")
		line, pick := metric["line-ms"], metric["picker-ms"]
		add("askcore-stdio ask on a pty, "+eng+": first picker frame vs line prompt",
			fmt.Sprintf("%s vs %s (%+.1f ms)", ms(pick), ms(line), pick-line),
			fmt.Sprintf("≤ line + %d ms", targetPickerAboveMs), passMiss(pick-line <= targetPickerAboveMs))
		found = true
	}
	if !found {
		add("askcore-stdio ask on a pty: first picker frame", "n/a (no benchmark lines; is tmux installed?)", "", "n/a")
	}
}

// acpOnce spawns askcore-acp, writes initialize and returns the time from
// just before the process starts to the reply line; then it closes stdin.
func acpOnce(cacheHome string, extra ...string) (time.Duration, error) {
	cmd, in, out, err := child(*acpBin, cacheHome, extra...)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	_, _ = io.WriteString(in, initializeJSONRPC+"\n")
	line, rerr := bufio.NewReader(out).ReadString('\n')
	d := time.Since(t0)
	in.Close()
	done := make(chan error, 1)
	go func() { _, _ = io.Copy(io.Discard, out); done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(processTimeout):
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("askcore-acp did not end after stdin closed")
	}
	if rerr != nil || !strings.Contains(line, `"result"`) || !strings.Contains(line, `"protocolVersion"`) {
		return 0, fmt.Errorf("askcore-acp: no initialize result: %q %v", firstLine(line), rerr)
	}
	return d, nil
}

// child is the command of a benchmarked binary, not started: its
// environment (env), pipes to its stdin and from its stdout, its stderr
// dropped.
func child(bin, cacheHome string, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env(cacheHome)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	return cmd, in, out, nil
}

func acpInitialize() {
	var native, cold []float64
	for i := 0; i < *runs; i++ {
		progress("acp initialize: run %d", i+1)
		d, err := acpOnce(freshDir("xdg-acp-native-"), "--engine", "native")
		if err != nil {
			add("askcore-acp: start → initialize reply", "n/a ("+err.Error()+")", "", "n/a")
			return
		}
		native = append(native, durMs(d))
		if d, err = acpOnce(freshDir("xdg-acp-cold-")); err != nil {
			add("askcore-acp: start → initialize reply", "n/a ("+err.Error()+")", "", "n/a")
			return
		}
		cold = append(cold, durMs(d))
	}
	n, c := median(native), median(cold)
	add("askcore-acp: start → initialize reply, --engine native (floor)", ms(n), "", "")
	add("askcore-acp: start → initialize reply, wasm, empty cache", fmt.Sprintf("%s = native + %s", ms(c), ms(c-n)),
		fmt.Sprintf("no wait for compile: ≤ native + %.0f ms", targetACPAboveMs), passMiss(c-n <= targetACPAboveMs))
}

// ---- memory and pool -------------------------------------------------------------

// hammer runs n calls (or, with n == 0, calls for d) from g goroutines on e
// and returns calls, wall time and the process CPU seconds they took.
func hammer(ctx context.Context, e *hostgo.Engine, g, n int, d time.Duration) (int, time.Duration, float64) {
	var count atomic.Int64
	var failed atomic.Value
	deadline := time.Now().Add(d)
	cpu0 := cpuSeconds()
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i++ {
				if n > 0 {
					if count.Add(1) > int64(n) {
						return
					}
				} else {
					if i%64 == 0 && time.Now().After(deadline) {
						return
					}
					count.Add(1)
				}
				if _, err := e.Handle(ctx, ops[i%len(ops)].Input); err != nil {
					failed.Store(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	wall := time.Since(t0)
	if err, ok := failed.Load().(error); ok {
		fatal(err)
	}
	c := int(count.Load())
	if n > 0 {
		c = n
	}
	return c, wall, cpuSeconds() - cpu0
}

func memoryAndPool(ctx context.Context, warmDir string) {
	procs := runtime.GOMAXPROCS(0)
	// Pool throughput: GOMAXPROCS goroutines on a pool of 1, then of GOMAXPROCS,
	// alternating rounds.
	one := newEngine(ctx, warmDir, 1)
	many := newEngine(ctx, warmDir, procs)
	hammer(ctx, many, procs, 2000, 0) // warm every instance of the pool
	var r1, rn, util []float64
	for i := 0; i < 3; i++ {
		progress("pool throughput: round %d", i+1)
		c, w, _ := hammer(ctx, one, procs, 0, 1500*time.Millisecond)
		r1 = append(r1, float64(c)/w.Seconds())
		c, w, cpu := hammer(ctx, many, procs, 0, 1500*time.Millisecond)
		rn = append(rn, float64(c)/w.Seconds())
		util = append(util, cpu/w.Seconds())
	}
	_ = one.Close(ctx)
	_ = many.Close(ctx)
	t1, tn := median(r1), median(rn)
	add("pool throughput, 1 instance", fmt.Sprintf("%.0f calls/s", t1), "", "")
	add(fmt.Sprintf("pool throughput, %d instances (GOMAXPROCS)", procs),
		fmt.Sprintf("%.0f calls/s = %.2fx one (CPU used: %.2f of %d cores)", tn, tn/t1, median(util), procs),
		fmt.Sprintf("≥ %.1fx", targetPoolRatio), passMiss(tn/t1 >= targetPoolRatio))

	// Memory: recycling off (threshold at the page limit), so that growth
	// would show in MaxPages instead of being hidden by replaced instances.
	progress("memory: %d calls", *calls)
	e := newEngine(ctx, warmDir, procs, hostgo.WithRecyclePages(hostgo.DefaultMemoryLimitPages))
	warm := min(*calls/10, 50_000)
	hammer(ctx, e, procs, warm, 0)
	early := e.Stats().MaxPages
	c, w, _ := hammer(ctx, e, procs, *calls-warm, 0)
	s := e.Stats()
	_ = e.Close(ctx)
	bounded := s.MaxPages <= targetBoundedPages && s.MaxPages <= early+16 && s.Discarded == 0
	add(fmt.Sprintf("linear memory after %d calls (%d instances)", *calls, procs),
		fmt.Sprintf("%d pages = %.1f MiB (%d after %d calls; %d discarded)", s.MaxPages, float64(s.MaxPages)/16, early, warm, s.Discarded),
		fmt.Sprintf("bounded: ≤ %d pages, flat", targetBoundedPages), passMiss(bounded))
	note("the %d-call memory run: %.0f calls/s over %s", c, float64(c)/w.Seconds(), w.Round(time.Millisecond))
}

// ---- output ------------------------------------------------------------------------

func printTable(start time.Time, load0 string) {
	cpu := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	nodeV := "?"
	if b, err := exec.Command(*nodeBin, "--version").Output(); err == nil {
		nodeV = strings.TrimSpace(string(b))
	}
	fmt.Printf("askcore performance, %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), %s, %s %s/%s, node %s, wazero v1.12.0\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), cpu, runtime.Version(), runtime.GOOS, runtime.GOARCH, nodeV)
	fmt.Printf("load average: %s at start, %s at end; run took %s\n", load0, loadavg(), time.Since(start).Round(time.Second))
	fmt.Printf("request: the typical 4-option request (internal/bench/benchdata); medians throughout\n\n")
	w := [3]int{len("measure"), len("figure"), len("target")}
	for _, r := range table {
		w[0] = max(w[0], runeLen(r.what))
		w[1] = max(w[1], runeLen(r.figure))
		w[2] = max(w[2], runeLen(r.target))
	}
	line := func(a, b, c, d string) {
		fmt.Printf("| %s | %s | %s | %-4s |\n", pad(a, w[0]), pad(b, w[1]), pad(c, w[2]), d)
	}
	line("measure", "figure", "target", "")
	fmt.Printf("|%s|%s|%s|------|\n", strings.Repeat("-", w[0]+2), strings.Repeat("-", w[1]+2), strings.Repeat("-", w[2]+2))
	for _, r := range table {
		line(r.what, r.figure, r.target, r.result)
	}
	pass, miss := 0, 0
	for _, r := range table {
		switch r.result {
		case "PASS":
			pass++
		case "MISS":
			miss++
		}
	}
	fmt.Printf("\ntargets: %d PASS, %d MISS\n", pass, miss)
	for _, n := range notes {
		fmt.Println("- " + n)
	}
}

func runeLen(s string) int { return len([]rune(s)) }

func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-runeLen(s))) }
