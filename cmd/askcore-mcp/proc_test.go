package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// askcoreMCP is the askcore-mcp binary, built once for the tests that run
// the real program over pipes. It is built into the run's private cache
// directory (leaktest sets XDG_CACHE_HOME and removes it afterwards), with
// the go command's usual build cache (goBuildCache).
var askcoreMCP = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp(os.Getenv("XDG_CACHE_HOME"), "askcore-mcp-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "askcore-mcp")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if goBuildCache != "" {
		build.Env = append(os.Environ(), "GOCACHE="+goBuildCache)
	}
	return bin, build.Run()
})

// goBuildCache is the go command's build cache as it was before TestMain
// pointed XDG_CACHE_HOME elsewhere (package variables are set first):
// without it, building the binary would rebuild every dependency.
var goBuildCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "go-build")
	}
	return ""
}()

// proc is askcore-mcp running as a child process, driven over its stdin
// and stdout by hand-written JSON-RPC.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *syncbuf.Buffer
	exited chan struct{}
	status int
}

// startProc starts askcore-mcp with args (ASKCORE_LOG=info, and
// ASKCORE_BROWSER=none: no test opens a browser on the desktop it runs
// on) and --no-browser: the tests read the page's address on stderr, as
// the person who turned the browser off does.
func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProcEnv(t, []string{"ASKCORE_BROWSER=none"}, append([]string{"--no-browser"}, args...)...)
}

// startProcEnv starts askcore-mcp with args and env added to the test's
// environment (ASKCORE_LOG=info).
func startProcEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	bin, err := askcoreMCP()
	require.NoError(t, err, "building askcore-mcp")
	p := &proc{t: t, cmd: exec.Command(bin, args...), lines: make(chan []byte, 64), stderr: &syncbuf.Buffer{}, exited: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), "ASKCORE_LOG=info"), env...)
	p.cmd.Stderr = p.stderr
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	go func() {
		<-read // Wait closes stdout: read it all first
		err := p.cmd.Wait()
		p.status = p.cmd.ProcessState.ExitCode()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.status = -int(ws.Signal()) // killed, not exited
		}
		_ = err
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(waitLong):
			_ = p.cmd.Process.Kill()
			<-p.exited
			t.Errorf("askcore-mcp did not exit after its stdin closed; stderr:\n%s", p.stderr.String())
		}
		go func() {
			for range p.lines {
			}
		}()
	})
	return p
}

// send writes line and a newline in one write.
func (p *proc) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.stdin, line+"\n")
	require.NoError(p.t, err)
}

// sendSlowly writes line and a newline one byte per write.
func (p *proc) sendSlowly(line string) {
	p.t.Helper()
	b := []byte(line + "\n")
	for i := range b {
		_, err := p.stdin.Write(b[i : i+1])
		require.NoError(p.t, err)
	}
}

// sendInChunks writes line and a newline in writes of odd sizes.
func (p *proc) sendInChunks(line string) {
	p.t.Helper()
	b := []byte(line + "\n")
	for i, n := 0, 1; i < len(b); i, n = i+n, n*3+1 {
		n = min(n, 1<<16+7)
		_, err := p.stdin.Write(b[i:min(len(b), i+n)])
		require.NoError(p.t, err)
	}
}

// msg is one message (or batch) askcore-mcp wrote.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

// recv is the next line of stdout.
func (p *proc) recv() msg {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		require.True(p.t, ok, "askcore-mcp closed stdout; stderr:\n%s", p.stderr.String())
		m := msg{raw: line}
		if len(line) > 0 && line[0] != '[' {
			require.NoError(p.t, json.Unmarshal(line, &m), "%s", line)
		}
		return m
	case <-time.After(waitLong):
		p.t.Fatalf("askcore-mcp wrote nothing within %s; stderr:\n%s", waitLong, p.stderr.String())
		return msg{}
	}
}

// handshake initializes on version with capabilities (JSON).
func (p *proc) handshake(version, capabilities string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + capabilities + `,"clientInfo":{"name":"proc","version":"0"}}}`)
	m := p.recv()
	require.Nil(p.t, m.Error, "%s", m.raw)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ask sends tools/call id with args and returns the elicitation/create it
// brings (legacy protocol).
func (p *proc) ask(id int, args string) msg {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + args + `}}`)
	m := p.recv()
	require.Equal(p.t, "elicitation/create", m.Method, "%s", m.raw)
	return m
}

// toolText is the text of the tool result m carries, for call id.
func (p *proc) toolText(m msg, id int) string {
	p.t.Helper()
	require.Equal(p.t, itoa(id), string(m.ID), "%s", m.raw)
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(p.t, json.Unmarshal(m.Result, &res), "%s", m.raw)
	require.Len(p.t, res.Content, 1, "%s", m.raw)
	require.JSONEq(p.t, res.Content[0].Text, string(res.StructuredContent))
	return res.Content[0].Text
}

// wait returns the exit status once the process has exited (negative: the
// signal that killed it), failing after waitLong.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
		return p.status
	case <-time.After(waitLong):
		p.t.Fatalf("askcore-mcp did not exit; stderr:\n%s", p.stderr.String())
		return 0
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// ping sends a ping with id and expects its empty result next: whatever
// the line before it got has been written by then.
func (p *proc) ping(id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`)
	m := p.recv()
	require.Equal(p.t, `"`+id+`"`, string(m.ID), "expected the ping's result, got %s", m.raw)
	require.Nil(p.t, m.Error, "%s", m.raw)
}

// logged reports whether stderr has a line containing every part.
func (p *proc) logged(parts ...string) bool {
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		all := true
		for _, part := range parts {
			all = all && strings.Contains(line, part)
		}
		if all {
			return true
		}
	}
	return false
}
