// Command benchrss measures the resident memory (VmRSS) of the built front
// doors, askcore-mcp and askcore-acp, while they sit idle: one alone, N
// started at the same moment, and one after a 15 MB request. It prints each
// figure as a ratio to the idle figure of one process alone (the
// targets: at most 1.3x when started together, back within 10% of idle after
// an oversized call). `make bench` runs it through scripts/bench.sh.
//
//	go run ./internal/bench/rss -mcp BIN -acp BIN [-n 10] [-big 15000000] [-only release]
//
// How:
//
//   - every process gets a compilation cache of its own run (XDG_CACHE_HOME):
//     "warm" is a directory a first process filled, "empty" a fresh one;
//   - a process is idle once it answered initialize (MCP: and got
//     notifications/initialized); its RSS is sampled every 100 ms until no
//     process of the group changed by more than 1% for 3 s (at most 60 s),
//     so a background compile, a tier swap and the memory returned after it
//     are over; the figure is the mean of the group (the largest in
//     parentheses);
//   - "after a 15 MB call": MCP tools/call ask_user_question whose question
//     is 15 MB (the core refuses it as oversized); ACP session/prompt with a
//     15 MB text. The figure is the RSS once settled again, as a ratio to
//     that same process's idle figure. The same is measured with --engine
//     native: what the wasm engine adds over native is the engine's part,
//     the rest is the transport's (the JSON-RPC line read whole, decoded,
//     and copied into the envelope).
//   - "release" (release.go): the front doors open the wasm engine at the
//     first question and release it after -idle-release without a call;
//     the RSS idle after initialize, after two questions and once that
//     period is over, against the 25 MB target, and how long the first
//     question takes against the second.
//
// Linux only (it reads /proc/PID/status).
//
//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/askcore/askcore/internal/bench/benchdata"
)

// Targets.
const (
	targetTogether = 1.3 // N started at once, against one alone
	targetAfterBig = 1.1 // after an oversized call, against idle
)

var (
	mcpBin      = flag.String("mcp", "", "built askcore-mcp (required unless -only acp)")
	acpBin      = flag.String("acp", "", "built askcore-acp (required unless -only mcp)")
	nProcs      = flag.Int("n", 10, "processes started at once")
	big         = flag.Int("big", 15_000_000, "bytes of the oversized request's text")
	only        = flag.String("only", "", "askcore-mcp, askcore-acp, engine or release: measure only that")
	idleRelease = flag.Duration("idle-release", 2*time.Minute,
		"how long the front doors keep the wasm engine after a call (frontdoor's engineIdleRelease): the release section waits that long")
	questionRuns = flag.Int("question-runs", 7, "fresh processes whose first and second question the release section times")
	verb         = flag.Bool("v", false, "progress on stderr")
)

const (
	sampleEvery = 100 * time.Millisecond
	stableFor   = 3 * time.Second
	settleMax   = 60 * time.Second
	replyWait   = 120 * time.Second
)

var tmp string

func main() {
	flag.Parse()
	if *engineChild != "" {
		runEngineChild(*engineChild)
		return
	}
	var err error
	if tmp, err = os.MkdirTemp("", "askcore-benchrss-"); err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	// askcore-acp plays a scripted model that answers any prompt at once,
	// without a tool call: no model is reached and no question asked.
	script := filepath.Join(tmp, "reply.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		fatal(err)
	}
	acpDoor.args = []string{"--script", script}
	// For a question: the model calls the tool with arguments the core
	// refuses (an empty question), then answers: the core is called, and
	// no person is asked.
	acpQuestionScript = filepath.Join(tmp, "question.jsonl")
	if err := os.WriteFile(acpQuestionScript, []byte(`{"tool_calls":[{"id":"q","name":"ask_user_question","arguments":{"question":""}}]}`+"\n"+`{"content":"ok"}`+"\n"), 0o600); err != nil {
		fatal(err)
	}
	fmt.Printf("Idle RSS (VmRSS) of the front doors, %d started at once, and after a %s request\n\n", *nProcs, mb(float64(*big)))
	fmt.Println("| what | RSS | ratio to one alone, idle | target | result |")
	fmt.Println("|---|---|---|---|---|")
	for _, d := range []door{mcpDoor, acpDoor} {
		if *only != "" && *only != d.name {
			continue
		}
		if *d.bin == "" {
			fatal(fmt.Errorf("the path of %s is required (-mcp, -acp)", d.name))
		}
		measure(d)
	}
	if *only == "" || *only == "release" {
		release()
	}
	if *only == "" || *only == "engine" {
		warm := freshDir("warm-engine-")
		if _, _, err := engineOnce(mustExecutable(), "wasm", warm, 64); err != nil { // fills the cache
			fatal(err)
		}
		engineFigures("wasm", warm)
		engineFigures("native", warm)
	}
}

func mustExecutable() string {
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	return self
}

// door is how to bring one front door to idle and send it a huge request.
type door struct {
	name string
	bin  *string
	args []string
	// hello makes p idle: it writes the handshake and reads its replies.
	hello func(p *proc) error
	// bigCall sends the oversized request and waits for its reply; the
	// string says what came back.
	bigCall func(p *proc) (string, error)
	// question asks the n-th question (n ≥ 1, ids of its own) that the
	// core answers, without asking a person, and waits for its reply;
	// questionArgs are the flags that process needs for it.
	question     func(p *proc, n int) (string, error)
	questionArgs func() []string
}

func measure(d door) {
	warm := freshDir("warm-")
	// Fill the warm cache: one process, until settled (its compile done).
	if _, err := group(d, warm, 1, nil); err != nil {
		row(d.name+": filling the cache", "n/a ("+cell(err)+")", "", "", "n/a")
		return
	}
	alone, err := group(d, warm, 1, nil)
	if err != nil {
		row(d.name+": idle, alone", "n/a ("+cell(err)+")", "", "", "n/a")
		return
	}
	ref := alone.mean
	row(d.name+": idle, alone, warm cache", mb(ref), "1.00x", "reference", "")
	native, err := group(d, warm, 1, []string{"--engine", "native"})
	if err == nil {
		row(d.name+": idle, alone, --engine native", mb(native.mean), ratio(native.mean/ref), "", "")
	}
	if g, err := group(d, freshDir("empty-"), 1, nil); err == nil {
		row(d.name+": idle, alone, empty cache", mb(g.mean), ratio(g.mean/ref), "", "")
	}
	for _, c := range []struct{ what, dir string }{{"warm cache", warm}, {"empty cache", freshDir("empty-")}} {
		what := fmt.Sprintf("%s: idle, %d started at once, %s", d.name, *nProcs, c.what)
		g, err := group(d, c.dir, *nProcs, nil)
		if err != nil {
			row(what, "n/a ("+cell(err)+")", "", "", "n/a")
			continue
		}
		row(what, fmt.Sprintf("%s (largest %s)", mb(g.mean), mb(g.max)), ratio(g.mean/ref),
			fmt.Sprintf("≤ %.1fx", targetTogether), passMiss(g.mean/ref <= targetTogether))
	}
	wasmAfter, wasmIdle, wasmErr := afterBig(d, warm, nil)
	what := fmt.Sprintf("%s: after a %s call (settled), against its idle", d.name, mb(float64(*big)))
	if wasmErr != nil {
		row(what, "n/a ("+cell(wasmErr)+")", "", "", "n/a")
		return
	}
	row(what, fmt.Sprintf("%s (idle %s)", mb(wasmAfter), mb(wasmIdle)), ratio(wasmAfter/wasmIdle),
		fmt.Sprintf("≤ %.1fx", targetAfterBig), passMiss(wasmAfter/wasmIdle <= targetAfterBig))
	natAfter, natIdle, err := afterBig(d, warm, []string{"--engine", "native"})
	if err != nil {
		row(what+", --engine native", "n/a ("+cell(err)+")", "", "", "n/a")
		return
	}
	row(what+", --engine native (the transport's part)", fmt.Sprintf("%s (idle %s)", mb(natAfter), mb(natIdle)),
		ratio(natAfter/natIdle), "", "")
	// What the wasm process keeps over native after the call. Informational:
	// most of what stays is garbage no collection has looked at yet, and
	// when the last collection fell differs from run to run by ±15 MB. The
	// engine's own part is measured alone (engine.go).
	row(d.name+": wasm growth − native growth after the call (garbage timing: ±15 MB from run to run)",
		fmt.Sprintf("%+.0f MB", ((wasmAfter-wasmIdle)-(natAfter-natIdle))/1e6), "", "", "")
}

type figures struct{ mean, max float64 }

// group starts n processes of d at once with cacheHome, brings each to idle
// and returns their settled RSS; then it ends them.
func group(d door, cacheHome string, n int, extra []string) (figures, error) {
	progress("%s: %d process(es), cache %s %v", d.name, n, filepath.Base(cacheHome), extra)
	ps, err := startAll(d, cacheHome, n, extra)
	defer stopAll(ps)
	if err != nil {
		return figures{}, err
	}
	rss, err := settle(ps)
	if err != nil {
		return figures{}, err
	}
	var f figures
	for _, r := range rss {
		f.mean += r / float64(len(rss))
		f.max = math.Max(f.max, r)
	}
	return f, nil
}

// afterBig brings one process to idle, sends the oversized request, and
// returns its settled RSS after the reply and before it.
func afterBig(d door, cacheHome string, extra []string) (after, idle float64, err error) {
	progress("%s: the %d-byte call %v", d.name, *big, extra)
	ps, idle, err := idleOne(d, cacheHome, extra)
	defer stopAll(ps)
	if err != nil {
		return 0, 0, err
	}
	reply, err := d.bigCall(ps[0])
	if err != nil {
		return 0, 0, ended(ps[0], err)
	}
	progress("%s: reply %.200s", d.name, reply)
	after, err = settledOne(ps)
	return after, idle, err
}

// ---- processes -----------------------------------------------------------------

type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

// startAll spawns n processes first, then greets each: they start at the
// same moment, as an editor opening with several servers configured does.
// idleOne starts one process of d and returns it with its settled RSS;
// the caller stops it (stopAll), after an error too.
func idleOne(d door, cacheHome string, extra []string) ([]*proc, float64, error) {
	ps, err := startAll(d, cacheHome, 1, extra)
	if err != nil {
		return ps, 0, err
	}
	idle, err := settledOne(ps)
	return ps, idle, err
}

// settledOne is the settled RSS of the one process of ps.
func settledOne(ps []*proc) (float64, error) {
	rss, err := settle(ps)
	if err != nil {
		return 0, err
	}
	return rss[0], nil
}

func startAll(d door, cacheHome string, n int, extra []string) ([]*proc, error) {
	var ps []*proc
	for range n {
		cmd := exec.Command(*d.bin, append(append([]string(nil), d.args...), extra...)...)
		cmd.Env = env(cacheHome)
		in, err := cmd.StdinPipe()
		if err != nil {
			return ps, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return ps, err
		}
		p := &proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), stderr: &strings.Builder{}}
		cmd.Stderr = p.stderr
		if err := cmd.Start(); err != nil {
			return ps, err
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		if err := d.hello(p); err != nil {
			return ps, fmt.Errorf("%s: %w", d.name, err)
		}
	}
	return ps, nil
}

// ended explains err: when the process has ended, with its exit status and
// the start of its stderr.
func ended(p *proc, err error) error {
	p.in.Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, p.out); _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return fmt.Errorf("the process ended on it (%v; stderr %q)", p.cmd.ProcessState, firstLine(p.stderr.String()))
	case <-time.After(5 * time.Second):
		return err
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func stopAll(ps []*proc) {
	for _, p := range ps {
		p.in.Close()
	}
	for _, p := range ps {
		if p.cmd.ProcessState != nil {
			continue // ended already (ended waited for it)
		}
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, p.out); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
		}
		_ = p.cmd.Wait()
	}
}

// settle samples every process's RSS until none changed by more than 1%
// for stableFor, and returns the last samples (bytes).
func settle(ps []*proc) ([]float64, error) {
	start := time.Now()
	var last []float64
	stableSince := time.Now()
	for {
		cur := make([]float64, len(ps))
		for i, p := range ps {
			r, err := rss(p.cmd.Process.Pid)
			if err != nil {
				return nil, fmt.Errorf("process ended (%v): %.300s", err, p.stderr.String())
			}
			cur[i] = r
		}
		if last == nil || changed(last, cur) {
			stableSince = time.Now()
		}
		last = cur
		if time.Since(stableSince) >= stableFor || time.Since(start) >= settleMax {
			return last, nil
		}
		time.Sleep(sampleEvery)
	}
}

func changed(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 0.01*a[i] {
			return true
		}
	}
	return false
}

// rss reads VmRSS of pid, in bytes.
func rss(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseFloat(f[0], 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d (a zombie?)", pid)
}

// ---- the two protocols -----------------------------------------------------------

var mcpDoor = door{
	name: "askcore-mcp",
	bin:  mcpBin,
	hello: func(p *proc) error {
		if err := p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "benchrss", "version": "0"}}}); err != nil {
			return err
		}
		if _, err := p.reply(1); err != nil {
			return err
		}
		return p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	},
	bigCall: func(p *proc) (string, error) {
		if err := p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
			"name": "ask_user_question", "arguments": map[string]any{
				"question": strings.Repeat("x", *big),
				"options":  []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}}}}}); err != nil {
			return "", err
		}
		return p.reply(2)
	},
	question: func(p *proc, n int) (string, error) {
		id := 100 + n
		if err := p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
			"name": "ask_user_question", "arguments": json.RawMessage(benchdata.Request)}}); err != nil {
			return "", err
		}
		return p.reply(id)
	},
	// A client without elicitation and no answer page: the core
	// normalizes the call and writes ASK_FAILED at once.
	questionArgs: func() []string { return []string{"--web", "never"} },
}

var acpQuestionScript string

var acpDoor = door{
	name: "askcore-acp",
	bin:  acpBin,
	hello: func(p *proc) error {
		if err := p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"protocolVersion": 1, "clientCapabilities": map[string]any{}}}); err != nil {
			return err
		}
		_, err := p.reply(1)
		return err
	},
	bigCall: func(p *proc) (string, error) { return p.acpPrompt(2, strings.Repeat("x", *big)) },
	// A session of its own for each question: the scripted model replays
	// from its first line in each.
	question:     func(p *proc, n int) (string, error) { return p.acpPrompt(100+2*n, "Which database?") },
	questionArgs: func() []string { return []string{"--script", acpQuestionScript} },
}

// acpPrompt opens an ACP session (request id) and prompts text in it
// (id+1); it returns the prompt's reply line.
func (p *proc) acpPrompt(id int, text string) (string, error) {
	if err := p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/new", "params": map[string]any{
		"cwd": os.TempDir(), "mcpServers": []any{}}}); err != nil {
		return "", err
	}
	line, err := p.reply(id)
	if err != nil {
		return "", err
	}
	var r struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(line), &r); r.Result.SessionID == "" {
		return "", fmt.Errorf("session/new: %.200s", line)
	}
	if err := p.send(map[string]any{"jsonrpc": "2.0", "id": id + 1, "method": "session/prompt", "params": map[string]any{
		"sessionId": r.Result.SessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": text}}}}); err != nil {
		return "", err
	}
	return p.reply(id + 1)
}

func (p *proc) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = p.in.Write(append(b, '\n'))
	return err
}

// reply reads lines until the response with id, answering nothing else
// (notifications and requests of the server are skipped).
func (p *proc) reply(id int) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				ch <- res{"", fmt.Errorf("no reply to request %d (%v); stderr: %.300s", id, err, p.stderr.String())}
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.Method == "" && string(m.ID) == strconv.Itoa(id) {
				ch <- res{strings.TrimSpace(line), nil}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(replyWait):
		_ = p.cmd.Process.Kill()
		return "", fmt.Errorf("no reply to request %d within %s", id, replyWait)
	}
}

// ---- output ------------------------------------------------------------------------

func row(what, figure, ratio, target, result string) {
	fmt.Printf("| %s | %s | %s | %s | %s |\n", what, figure, ratio, target, result)
}

func mb(b float64) string { return fmt.Sprintf("%.1f MB", b/1e6) }

func ratio(r float64) string { return fmt.Sprintf("%.2fx", r) }

func passMiss(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// env is the environment of a child (benchdata.ChildEnv, and
// without GOGC and GOMEMLIMIT: the memory measured is under the Go
// runtime's defaults).
func env(cacheHome string) []string { return benchdata.ChildEnv(cacheHome, "GOGC", "GOMEMLIMIT") }

func freshDir(prefix string) string {
	d, err := os.MkdirTemp(tmp, prefix)
	if err != nil {
		fatal(err)
	}
	return d
}

func progress(format string, args ...any) {
	if *verb {
		fmt.Fprintf(os.Stderr, "benchrss: "+format+"\n", args...)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrss:", err)
	os.Exit(1)
}

// cell keeps an error message from breaking the table.
func cell(err error) string { return strings.ReplaceAll(err.Error(), "|", "¦") }
