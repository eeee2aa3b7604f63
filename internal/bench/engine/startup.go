package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/bench/benchdata"
)

// The start-up table: what every `askcore-stdio ask`, every
// editor's MCP or ACP server and every hub process pays for the wasm engine,
// against --engine native in the same run. Runs alternate native and wasm
// (-startup-runs of each, medians), every wasm run on one warm cache.

// Targets: what start-up may cost at most (BENCHMARKS.md, "Start-up").
const (
	targetStartFirstAboveMs = 30.0
	targetStartWholeAboveMs = 35.0
	targetStartPeakMiB      = 25.0
	targetMCPIdleMB         = 25.0
	targetNewWarmMs         = 20.0
	// mcpSettle: the idle RSS is read once it moved by less than 1% over
	// this long (a warm process has no background compile to wait for).
	mcpSettle    = 1 * time.Second
	mcpSettleMax = 15 * time.Second
)

// newChildFlag makes the bench program a child that times hostgo.New in a
// fresh process on the warm cache directory it names, prints the duration
// in nanoseconds and exits: the figure a new process pays, which the parent
// (whose own process already holds the compiled module) cannot measure.
const newChildFlag = "new-child"

// runNewChild is the child's whole life.
func runNewChild(dir string) {
	ctx := context.Background()
	t0, c0 := time.Now(), selfCPU()
	e, err := hostgo.New(ctx, hostgo.WithCompilationCacheDir(dir), hostgo.WithPoolSize(1), hostgo.WithTieredStart(false))
	d, c := time.Since(t0), selfCPU()-c0
	if err != nil {
		fatal(err)
	}
	if s := e.Stats(); s.Interpreter {
		fatal(fmt.Errorf("hostgo.New with the tiered start off is on the interpreter"))
	}
	fmt.Println(d.Nanoseconds(), c.Nanoseconds())
}

// selfCPU is the CPU time (user + system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// askRun is one `askcore-stdio ask` process.
type askRun struct {
	first, whole time.Duration
	cpu          time.Duration // user + system time of the process
	peakKiB      int64         // ru_maxrss: the process's peak resident memory
}

func startupFigures() {
	warmHome := freshDir("xdg-startup-")
	if _, err := askOnce(warmHome); err != nil { // fills the cache
		add("askcore-stdio ask: start → first prompt byte", "n/a ("+err.Error()+")", "", "n/a")
		return
	}
	// askcore-mcp embeds the same module and wazero: the cache askOnce
	// filled (it waits for the compile to be written before it exits) is
	// warm for it too.
	mcpHome := warmHome
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	newDir := freshDir("wazero-startup-")
	if _, _, err := timeInChild(self, "hostgo.New", "-"+newChildFlag, newDir); err != nil { // fills the cache
		fatal(err)
	}

	var nat, wasm []askRun
	var natMCP, wasmMCP, newMs, newCPU []float64
	for i := 0; i < *startupRuns; i++ {
		progress("start-up: run %d", i+1)
		r, err := askOnce(freshDir("xdg-native-"), "--engine", "native")
		if err != nil {
			fatal(err)
		}
		nat = append(nat, r)
		if r, err = askOnce(warmHome); err != nil {
			fatal(err)
		}
		wasm = append(wasm, r)
		if *mcpBin != "" {
			b, err := mcpIdleRSS(mcpHome, "--engine", "native")
			if err != nil {
				fatal(err)
			}
			natMCP = append(natMCP, b)
			if b, err = mcpIdleRSS(mcpHome); err != nil {
				fatal(err)
			}
			wasmMCP = append(wasmMCP, b)
		}
		d, c, err := timeInChild(self, "hostgo.New", "-"+newChildFlag, newDir)
		if err != nil {
			fatal(err)
		}
		newMs, newCPU = append(newMs, durMs(d)), append(newCPU, durMs(c))
	}
	pick := func(rs []askRun, f func(askRun) float64) float64 {
		var xs []float64
		for _, r := range rs {
			xs = append(xs, f(r))
		}
		return median(xs)
	}
	first := func(r askRun) float64 { return durMs(r.first) }
	whole := func(r askRun) float64 { return durMs(r.whole) }
	peak := func(r askRun) float64 { return float64(r.peakKiB) / 1024 }

	nf, wf := pick(nat, first), pick(wasm, first)
	add("askcore-stdio ask, start → first prompt byte, wasm (warm cache) vs native",
		fmt.Sprintf("%s vs %s: %.2fx, native + %s", ms(wf), ms(nf), wf/nf, ms(wf-nf)),
		fmt.Sprintf("≤ native + %.0f ms", targetStartFirstAboveMs), passMiss(wf-nf <= targetStartFirstAboveMs))
	nw, ww := pick(nat, whole), pick(wasm, whole)
	add("askcore-stdio ask, whole process (answer on stdin), wasm vs native",
		fmt.Sprintf("%s vs %s: %.2fx, native + %s", ms(ww), ms(nw), ww/nw, ms(ww-nw)),
		fmt.Sprintf("≤ native + %.0f ms", targetStartWholeAboveMs), passMiss(ww-nw <= targetStartWholeAboveMs))
	cpu := func(r askRun) float64 { return durMs(r.cpu) }
	nc, wc := pick(nat, cpu), pick(wasm, cpu)
	add("askcore-stdio ask, CPU time (user + system) of that process, wasm vs native",
		fmt.Sprintf("%s vs %s: %.2fx, native + %s", ms(wc), ms(nc), wc/nc, ms(wc-nc)), "(CPU, not wall time)", "")
	np, wp := pick(nat, peak), pick(wasm, peak)
	add("askcore-stdio ask, peak RSS of that process, wasm vs native",
		fmt.Sprintf("%.1f vs %.1f MiB: %.2fx", wp, np, wp/np),
		fmt.Sprintf("≤ %.0f MiB", targetStartPeakMiB), passMiss(wp <= targetStartPeakMiB))
	if *mcpBin != "" {
		nm, wm := median(natMCP), median(wasmMCP)
		add("askcore-mcp idle RSS after initialize, wasm vs native",
			fmt.Sprintf("%.1f vs %.1f MB: %.2fx", wm/1e6, nm/1e6, wm/nm),
			fmt.Sprintf("≤ %.0f MB", targetMCPIdleMB), passMiss(wm/1e6 <= targetMCPIdleMB))
	} else {
		add("askcore-mcp idle RSS after initialize, wasm vs native", "n/a (no -mcp binary)", "", "n/a")
	}
	nm := median(newMs)
	add("hostgo.New alone, warm on-disk cache, new process", fmt.Sprintf("%s (CPU %s)", ms(nm), ms(median(newCPU))),
		fmt.Sprintf("≤ %.0f ms", targetNewWarmMs), passMiss(nm <= targetNewWarmMs))
}

// askOnce starts askcore-stdio ask with stdin a pipe and measures the time
// from just before the process starts to the first byte on its stderr (the
// prompt) and to its end (an empty line answers: the recommended option),
// and its peak resident memory.
func askOnce(cacheHome string, extra ...string) (askRun, error) {
	args := append([]string{"ask", "--request", benchdata.Request}, extra...)
	cmd := exec.Command(*stdioBin, args...)
	cmd.Env = env(cacheHome)
	inR, inW, err := os.Pipe()
	if err != nil {
		return askRun{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return askRun{}, err
	}
	var stdout strings.Builder
	cmd.Stdin, cmd.Stderr, cmd.Stdout = inR, errW, &stdout
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return askRun{}, err
	}
	inR.Close()
	errW.Close()
	first := make([]byte, 1)
	_, rerr := errR.Read(first)
	r := askRun{first: time.Since(t0)}
	_, _ = inW.Write([]byte("\n"))
	inW.Close()
	rest, _ := io.ReadAll(errR)
	errR.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		r.whole = time.Since(t0)
	case <-time.After(processTimeout):
		_ = cmd.Process.Kill()
		return askRun{}, fmt.Errorf("askcore-stdio did not end")
	}
	if rerr != nil || err != nil {
		return askRun{}, fmt.Errorf("askcore-stdio ask: %v %v: %s", rerr, err, firstLine(string(append(first, rest...))))
	}
	if !strings.Contains(string(rest), "Which database") {
		return askRun{}, fmt.Errorf("askcore-stdio ask: no prompt on stderr")
	}
	if !strings.Contains(stdout.String(), `"answer":"PostgreSQL"`) {
		return askRun{}, fmt.Errorf("askcore-stdio ask: unexpected answer %q", stdout.String())
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakKiB = ru.Maxrss // KiB on Linux
	}
	return r, nil
}

// timeInChild runs this program as a child with args (a child flag and
// its arguments) and reads the wall and CPU time the child printed for
// what it timed; what names that in errors.
func timeInChild(self, what string, args ...string) (wall, cpu time.Duration, err error) {
	out, err := exec.Command(self, args...).Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s in a child process: %v", what, err)
	}
	var w, c int64
	if _, err := fmt.Sscan(string(out), &w, &c); err != nil {
		return 0, 0, fmt.Errorf("%s in a child process: %q: %v", what, out, err)
	}
	return time.Duration(w), time.Duration(c), nil
}

// mcpIdleRSS starts askcore-mcp, completes the MCP handshake (initialize,
// then notifications/initialized) and returns its VmRSS in bytes once it
// stopped moving; then it closes stdin and waits for the end.
func mcpIdleRSS(cacheHome string, extra ...string) (float64, error) {
	cmd, in, out, err := child(*mcpBin, cacheHome, extra...)
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		in.Close()
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, out); _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(processTimeout):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`+"\n")
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"result"`) {
		return 0, fmt.Errorf("askcore-mcp: no initialize result: %q %v", firstLine(line), err)
	}
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	pid := cmd.Process.Pid
	last, err := vmRSS(pid)
	if err != nil {
		return 0, err
	}
	stable, deadline := time.Now(), time.Now().Add(mcpSettleMax)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		b, err := vmRSS(pid)
		if err != nil {
			return 0, err
		}
		if b > last*1.01 || b < last*0.99 {
			stable = time.Now()
		}
		last = b
		if time.Since(stable) >= mcpSettle {
			break
		}
	}
	return last, nil
}

// vmRSS reads VmRSS of pid, in bytes (Linux).
func vmRSS(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}
