package acpagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/signaltest"
)

// These tests run the real askcore-acp binary (go build) as a child
// process and talk raw JSON-RPC to it over pipes, as a client nobody here
// wrote would: hostile lines written byte by byte, lines over the limit,
// signals sent to the child with a question pending.

// binDir holds the binary built for this test run (TestMain removes it);
// goCache is the go command's build cache.
var binDir, goCache string

var buildOnce struct {
	sync.Once
	path string
	err  error
}

// acpBinary builds askcore-acp once per test run.
func acpBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildOnce.path = filepath.Join(binDir, "askcore-acp")
		cmd := exec.Command("go", "build", "-o", buildOnce.path, "github.com/askcore/askcore/cmd/askcore-acp")
		if goCache != "" {
			cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildOnce.err = fmt.Errorf("go build: %v\n%s", err, out.String())
		}
	})
	require.NoError(t, buildOnce.err)
	return buildOnce.path
}

// childEnv is the test's environment without model keys: the child replays
// its --script and reaches no network.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains([]string{"DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ASKCORE_LOG"}, k) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// wireMsg is one JSON-RPC message the child wrote.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (m wireMsg) isResponse(id string) bool {
	return m.Method == "" && string(m.ID) == id
}

// update is a session/update's update, as far as the tests read it.
type update struct {
	SessionUpdate string          `json:"sessionUpdate"`
	ToolCallID    string          `json:"toolCallId"`
	Status        string          `json:"status"`
	RawOutput     json.RawMessage `json:"rawOutput"`
	Content       json.RawMessage `json:"content"` // an agent_message_chunk's block, a tool card's list
}

// text is an agent_message_chunk's text.
func (u update) text(t *testing.T) string {
	var b struct {
		Text string `json:"text"`
	}
	require.NoError(t, json.Unmarshal(u.Content, &b))
	return b.Text
}

func (m wireMsg) update(t *testing.T) (update, bool) {
	if m.Method != "session/update" {
		return update{}, false
	}
	var p struct {
		Update update `json:"update"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	return p.Update, true
}

// child is askcore-acp running on pipes.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	msgs   chan wireMsg
	seen   []wireMsg // what next read, in order
	done   chan struct{}
	nextID int
}

func startChild(t *testing.T, script string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, script, nil, args...)
}

// startChildEnv starts the child with env added to its environment.
func startChildEnv(t *testing.T, script string, env []string, args ...string) *child {
	t.Helper()
	bin := acpBinary(t)
	c := &child{t: t, stderr: &syncBuffer{}, msgs: make(chan wireMsg, 1024), done: make(chan struct{}), nextID: 1}
	c.cmd = exec.Command(bin, append([]string{"--script", writeScript(t, script)}, args...)...)
	c.cmd.Env = append(childEnv(), env...)
	c.cmd.Stderr = c.stderr
	var err error
	c.stdin, err = c.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go func() {
		defer close(c.msgs)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var m wireMsg
				if !assert.NoError(t, json.Unmarshal(line, &m), "the agent wrote a line that is not JSON-RPC: %.200q", line) {
					continue
				}
				c.msgs <- m
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// send writes s, byte by byte when bytewise.
func (c *child) send(s string, bytewise bool) {
	c.t.Helper()
	if !bytewise {
		_, err := io.WriteString(c.stdin, s)
		require.NoError(c.t, err)
		return
	}
	for i := 0; i < len(s); i++ {
		_, err := c.stdin.Write([]byte{s[i]})
		require.NoError(c.t, err)
	}
}

// request sends a request and returns its id.
func (c *child) request(method, params string) string {
	c.t.Helper()
	id := strconv.Itoa(c.nextID)
	c.nextID++
	c.send(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`+"\n", false)
	return id
}

// next returns the first message from now on that match accepts.
func (c *child) next(what string, match func(wireMsg) bool) wireMsg {
	c.t.Helper()
	timeout := time.After(patience)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("the agent's output ended while waiting for %s; stderr:\n%s", what, c.stderr.String())
			}
			c.seen = append(c.seen, m)
			if match(m) {
				return m
			}
		case <-timeout:
			c.t.Fatalf("no %s; stderr:\n%s", what, c.stderr.String())
		}
	}
}

func (c *child) response(id string) wireMsg {
	c.t.Helper()
	return c.next("response to "+id, func(m wireMsg) bool { return m.isResponse(id) })
}

// rest reads the output to its end.
func (c *child) rest() []wireMsg {
	c.t.Helper()
	var out []wireMsg
	timeout := time.After(patience)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return out
			}
			c.seen = append(c.seen, m)
			out = append(out, m)
		case <-timeout:
			c.t.Fatal("the agent's output did not end")
		}
	}
}

// exitCode waits for the child to exit.
func (c *child) exitCode() int {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(patience):
		c.t.Fatalf("the agent did not exit; stderr:\n%s", c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode()
}

// askPending opens a session and prompts until the agent asks: it returns
// the prompt's id and the elicitation's.
func (c *child) askPending() (promptID, elicitationID string) {
	c.t.Helper()
	init := c.request("initialize", `{"protocolVersion":1,"clientCapabilities":{"elicitation":{"form":{}}}}`)
	require.Nil(c.t, c.response(init).Error)
	sess := c.response(c.request("session/new", `{"cwd":"/tmp","mcpServers":[]}`))
	require.Nil(c.t, sess.Error, "%s", c.stderr.String())
	var s struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(c.t, json.Unmarshal(sess.Result, &s))
	promptID = c.request("session/prompt", `{"sessionId":"`+s.SessionID+`","prompt":[{"type":"text","text":"go"}]}`)
	el := c.next("elicitation/create", func(m wireMsg) bool { return m.Method == "elicitation/create" })
	return promptID, string(el.ID)
}

// rss is the child's resident set and its peak, in KiB (Linux).
func (c *child) rss() (now, peak int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			now, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "VmHWM:" {
			peak, _ = strconv.Atoi(f[1])
		}
	}
	return now, peak
}

// toolResult is the final tool_call_update of callID among msgs.
func toolResult(t *testing.T, msgs []wireMsg, callID string) (update, bool) {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		if u, ok := msgs[i].update(t); ok && u.SessionUpdate == "tool_call_update" && u.ToolCallID == callID {
			return u, true
		}
	}
	return update{}, false
}

// With a question pending, a client writes every kind of line acp-go-sdk
// would drop or die of, byte by byte, and two lines over the limit. Each
// gets the JSON-RPC answer it should (or a log line), the connection goes
// on serving, and the question, still pending, is answered at the end.
func TestBinaryHostileLinesWithAQuestionPending(t *testing.T) {
	c := startChild(t, testScript, "--engine", "native")
	promptID, elID := c.askPending()
	rssBefore, peakBefore := c.rss()

	nullID := func(m wireMsg) bool { return m.Method == "" && string(m.ID) == "null" }
	hostile := []struct {
		line    string
		code    int
		message string
	}{
		{`this is not JSON {{{`, -32700, "Parse error"},
		{"\x00\x01\x02\xff", -32700, "Parse error"},
		{`42`, -32600, "Invalid request: a message must be a JSON object"},
		{`"a string"`, -32600, "Invalid request: a message must be a JSON object"},
		{`null`, -32600, "Invalid request: a message must be a JSON object"},
		{`[]`, -32600, "Invalid request: JSON-RPC batches are not supported"},
		{`[{"jsonrpc":"2.0","id":90,"method":"session/list","params":{}}]`, -32600, "Invalid request: JSON-RPC batches are not supported"},
		{`{}`, -32600, "Invalid request: neither a method nor an id"},
	}
	for _, h := range hostile {
		c.send(h.line+"\n", true)
		m := c.next(fmt.Sprintf("the answer to %q", h.line), nullID)
		require.NotNil(t, m.Error)
		assert.Equal(t, h.code, m.Error.Code, h.line)
		assert.Equal(t, h.message, m.Error.Message, h.line)
	}
	c.send(`{"jsonrpc":"2.0","id":91,"method":7}`+"\n", true)
	m := c.response("91")
	require.NotNil(t, m.Error)
	assert.Equal(t, -32600, m.Error.Code)

	// A request of 11 MiB (a prompt with a big embedded resource), written
	// in 1 MiB pieces: answered -32600 for its id, naming the limit.
	big := `{"jsonrpc":"2.0","id":92,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"resource","resource":{"uri":"file:///x","text":"` +
		strings.Repeat("y", 11<<20) + `"}}]}}`
	for i := 0; i < len(big); i += 1 << 20 {
		c.send(big[i:min(i+1<<20, len(big))], false)
	}
	c.send("\n", false)
	m = c.response("92")
	require.NotNil(t, m.Error)
	assert.Equal(t, -32600, m.Error.Code)
	assert.Contains(t, m.Error.Message, "at most 10485760 bytes")
	// A notification over the limit: dropped with a log line.
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"x":"`+strings.Repeat("z", 12<<20)+`"}}`+"\n", false)

	// The connection still serves requests ...
	list := c.response(c.request("session/list", `{}`))
	require.Nil(t, list.Error)
	assert.Contains(t, string(list.Result), "sess-1")
	// (the notification was read before this answer: RSS is back)
	rssAfter, peakAfter := c.rss()
	t.Logf("RSS with a question pending: %d KiB (peak %d KiB); after an 11 MiB request and a 12 MiB notification: %d KiB (peak %d KiB)", rssBefore, peakBefore, rssAfter, peakAfter)
	assert.Less(t, peakAfter-peakBefore, 24<<10, "the peak grew by %d KiB reading two oversized lines", peakAfter-peakBefore)
	assert.Less(t, rssAfter-rssBefore, 4<<10, "RSS grew by %d KiB after two oversized lines", rssAfter-rssBefore)
	// ... and the question is still pending: the answer counts.
	c.send(`{"jsonrpc":"2.0","id":`+elID+`,"result":{"action":"accept","content":{"choice":"sqlite"}}}`+"\n", true)
	end := c.response(promptID)
	require.Nil(t, end.Error)
	assert.JSONEq(t, `{"stopReason":"end_turn"}`, string(end.Result))
	u, ok := toolResult(t, c.seen, "call_db")
	require.True(t, ok)
	assert.Equal(t, "completed", u.Status)
	assert.JSONEq(t, `{"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}`, string(u.RawOutput))

	require.NoError(t, c.stdin.Close())
	c.rest()
	assert.Equal(t, 0, c.exitCode())
	log := c.stderr.String()
	assert.Contains(t, log, "discarded a request longer than the line limit")
	assert.Contains(t, log, "discarded a line longer than the line limit (no id to answer)")
	assert.Contains(t, log, "limit=10485760")
	assert.NotContains(t, log, "token too long")
}

// A client answers the pending question with a response over the limit:
// the question fails at once with ASK_FAILED naming the limit (it does not
// wait for an answer that was discarded), the turn ends normally, and the
// next question is answered.
func TestBinaryOversizedAnswerFailsTheQuestion(t *testing.T) {
	c := startChild(t, testScript, "--engine", "native")
	promptID, elID := c.askPending()
	answer := `{"jsonrpc":"2.0","id":` + elID + `,"result":{"action":"accept","content":{"custom_answer":"` + strings.Repeat("w", 10<<20) + `"}}}` + "\n"
	c.send(answer, false)
	end := c.response(promptID)
	require.Nil(t, end.Error)
	assert.JSONEq(t, `{"stopReason":"end_turn"}`, string(end.Result))
	u, ok := toolResult(t, c.seen, "call_db")
	require.True(t, ok)
	assert.Equal(t, "failed", u.Status)
	var e struct{ Code, Message string }
	require.NoError(t, json.Unmarshal(u.RawOutput, &e))
	assert.Equal(t, "ASK_FAILED", e.Code)
	assert.Contains(t, e.Message, "10485760-byte line limit")

	next := c.request("session/prompt", `{"sessionId":"sess-1","prompt":[{"type":"text","text":"again"}]}`)
	el := c.next("the next question", func(m wireMsg) bool { return m.Method == "elicitation/create" })
	c.send(`{"jsonrpc":"2.0","id":`+string(el.ID)+`,"result":{"action":"accept","content":{"answer":"Atlas"}}}`+"\n", false)
	end = c.response(next)
	assert.JSONEq(t, `{"stopReason":"end_turn"}`, string(end.Result))
	u, ok = toolResult(t, c.seen, "call_name")
	require.True(t, ok)
	assert.JSONEq(t, `{"answer":"Atlas"}`, string(u.RawOutput))
	require.NoError(t, c.stdin.Close())
	assert.Equal(t, 0, c.exitCode())
}

// SIGTERM, SIGINT and SIGHUP with a question pending, on both engines: the
// question is withdrawn (ASK_ABORTED naming the signal, on the tool card),
// the prompt ends (stopReason cancelled), and the agent exits with status
// 128 + the signal's number: within the documented 2 s by its own timers,
// within signaltest.ExitBound by the test's clock, which also counts the
// machine's load (2.86 s was seen for wasm/SIGTERM beside two loads).
func TestBinarySignalWithAQuestionPending(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			name := frontdoor.SignalName(sig)
			t.Run(engine+"/"+name, func(t *testing.T) {
				c := startChild(t, testScript, "--engine", engine)
				promptID, _ := c.askPending()
				sent := time.Now()
				require.NoError(t, c.cmd.Process.Signal(sig))
				code := c.exitCode()
				took := time.Since(sent)
				msgs := c.rest()
				t.Logf("%s on %s: exit %d after %v", name, engine, code, took.Round(time.Millisecond))
				assert.Equal(t, 128+int(sig), code)
				assert.Less(t, took, signaltest.ExitBound, "exit bounded by the program's own timers")

				u, ok := toolResult(t, msgs, "call_db")
				require.True(t, ok, "no final tool_call_update; stderr:\n%s", c.stderr.String())
				assert.Equal(t, "failed", u.Status)
				var e struct{ Name, Code, Message string }
				require.NoError(t, json.Unmarshal(u.RawOutput, &e))
				assert.Equal(t, "ASK_ABORTED", e.Code)
				assert.Contains(t, e.Message, "the agent received "+name)
				var end *wireMsg
				for i := range msgs {
					if msgs[i].isResponse(promptID) {
						end = &msgs[i]
					}
				}
				require.NotNil(t, end, "the prompt got no response")
				assert.JSONEq(t, `{"stopReason":"cancelled"}`, string(end.Result))
				assert.Contains(t, c.stderr.String(), "signal="+name)
			})
		}
	}
}

// A signal with nothing pending ends the agent at once with the same
// status, before and after initialize, also while the wasm engine still
// compiles on an empty cache.
func TestBinarySignalIdle(t *testing.T) {
	for _, initialized := range []bool{false, true} {
		c := startChildEnv(t, testScript, []string{"ASKCORE_LOG=info"}, "--engine", "native")
		c.stderr.waitFor(t, "askcore-acp ready") // the handler is in place
		if initialized {
			require.Nil(t, c.response(c.request("initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)).Error)
		}
		sent := time.Now()
		require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
		assert.Equal(t, 143, c.exitCode())
		assert.Less(t, time.Since(sent), signaltest.ExitBound)
	}
	// wasm on an empty compilation cache: the engine is still compiling.
	c := startChildEnv(t, testScript, []string{"ASKCORE_LOG=info", "XDG_CACHE_HOME=" + t.TempDir()}, "--engine", "wasm")
	c.stderr.waitFor(t, "askcore-acp ready")
	require.Nil(t, c.response(c.request("initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)).Error)
	sent := time.Now()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, c.exitCode())
	took := time.Since(sent)
	t.Logf("SIGTERM while the wasm engine compiles: exit after %v", took.Round(time.Millisecond))
	assert.Less(t, took, signaltest.ExitBound, "exit bounded by the program's own timers")
}

// A reply of 11 MiB, more than acp-go-sdk's whole line limit, reaches a
// client through the real binary, in agent_message_chunk updates each far
// under it.
func TestBinaryLongReply(t *testing.T) {
	skipBytesUnderRace(t)
	text := replyText(rand.New(rand.NewPCG(21, 3)), 11<<20)
	line, err := jsonLine(map[string]any{"content": text})
	require.NoError(t, err)
	c := startChild(t, line, "--engine", "native")
	require.Nil(t, c.response(c.request("initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)).Error)
	require.Nil(t, c.response(c.request("session/new", `{"cwd":"/tmp","mcpServers":[]}`)).Error)
	end := c.response(c.request("session/prompt", `{"sessionId":"sess-1","prompt":[{"type":"text","text":"talk"}]}`))
	assert.JSONEq(t, `{"stopReason":"end_turn"}`, string(end.Result))
	var got strings.Builder
	updates := 0
	for _, m := range c.seen {
		if u, ok := m.update(t); ok && u.SessionUpdate == "agent_message_chunk" {
			updates++
			chunk := u.text(t)
			assert.LessOrEqual(t, len(chunk), messageChunkBytes)
			got.WriteString(chunk)
		}
	}
	var want strings.Builder
	require.NoError(t, cleanChunks(context.Background(), askcore.NewCore(nil), text, sanitizePieceBytes, 1<<30, func(s string) { want.WriteString(s) }))
	assert.True(t, want.String() == got.String(), "got %d bytes in %d updates, want %d", got.Len(), updates, want.Len())
	t.Logf("an %d-byte reply reached the client as %d bytes in %d updates", len(text), got.Len(), updates)
	require.NoError(t, c.stdin.Close())
	assert.Equal(t, 0, c.exitCode())
}

// A client writes 60,000 notifications at once with a question pending
// (unknown ones, extension ones, session/cancel for a session that does
// not exist): acp-go-sdk would end the connection when 1,024 wait
// ("notification queue overflow"); the guard's flow control keeps the
// queue short, the agent keeps serving, and the question is answered.
func TestBinaryNotificationFloodWithAQuestionPending(t *testing.T) {
	c := startChild(t, testScript, "--engine", "native")
	promptID, elID := c.askPending()
	var flood strings.Builder
	for i := range 60_000 {
		switch i % 3 {
		case 0:
			flood.WriteString(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"no-such-session"}}` + "\n")
		case 1:
			flood.WriteString(`{"jsonrpc":"2.0","method":"_vendor/ping","params":{}}` + "\n")
		default:
			flood.WriteString(`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}` + "\n")
		}
	}
	c.send(flood.String(), false)
	list := c.response(c.request("session/list", `{}`))
	require.Nil(t, list.Error)
	c.send(`{"jsonrpc":"2.0","id":`+elID+`,"result":{"action":"accept","content":{"choice":"sqlite"}}}`+"\n", false)
	end := c.response(promptID)
	assert.JSONEq(t, `{"stopReason":"end_turn"}`, string(end.Result))
	require.NoError(t, c.stdin.Close())
	c.rest()
	assert.Equal(t, 0, c.exitCode())
	assert.NotContains(t, c.stderr.String(), "notification queue overflow")
}
