package termui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lockedBuffer is an io.Writer tests can read while the provider writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// harness is a provider registered with a service, typed at through a pipe.
type harness struct {
	t       *testing.T
	client  engine.Client
	pw      *io.PipeWriter
	lines   *Lines
	out     *lockedBuffer
	prov    *Provider
	svc     *interaction.Service
	dispose func()
}

func newHarness(t *testing.T, color bool) *harness {
	t.Helper()
	pr, pw := io.Pipe()
	h := &harness{
		t:      t,
		client: engine.Client{Core: engine.Native{}},
		pw:     pw,
		lines:  NewLines(pr),
		out:    &lockedBuffer{},
	}
	h.prov = NewProvider(Config{Client: h.client, Lines: h.lines, Out: h.out, Style: Style{Color: color}})
	h.svc = interaction.NewService(h.client)
	dispose, err := h.svc.Register(h.prov)
	require.NoError(t, err)
	h.dispose = dispose
	t.Cleanup(func() {
		h.dispose()
		h.prov.Close()
		h.lines.Close()
		_ = pw.Close()
		<-h.lines.Done()
	})
	return h
}

type askResult struct {
	res engine.Result
	err error
}

// ask starts an Ask in the background.
func (h *harness) ask(ctx context.Context, request string) <-chan askResult {
	ch := make(chan askResult, 1)
	go func() {
		res, err := h.svc.Ask(ctx, json.RawMessage(request), interaction.AskOptions{})
		ch <- askResult{res, err}
	}()
	return ch
}

func (h *harness) send(line string) {
	h.t.Helper()
	_, err := io.WriteString(h.pw, line+"\n")
	require.NoError(h.t, err)
}

// waitFor polls until cond holds on the output.
func (h *harness) waitFor(what string, cond func(out string) bool) string {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := h.out.String()
		if cond(out) {
			return out
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; output so far:\n%s", what, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPrompts waits until the output holds n answer prompts and ends with
// one (the provider is waiting for a line).
func (h *harness) waitPrompts(n int) string {
	h.t.Helper()
	return h.waitFor("prompt", func(out string) bool {
		out = stripSGR(out)
		prompts := strings.Count(out, "\n? ") - strings.Count(out, "\n? ─") // not the rule
		return prompts >= n && strings.HasSuffix(out, "? ")
	})
}

// stripSGR removes our own colour decorations.
func stripSGR(s string) string {
	for _, sgr := range []string{sgrReset, sgrBold, sgrDim, sgrRed, sgrYellow, sgrCyan} {
		s = strings.ReplaceAll(s, sgr, "")
	}
	return s
}

func result(t *testing.T, ch <-chan askResult) askResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the ask did not return")
		return askResult{}
	}
}

func requireCode(t *testing.T, err error, code core.Code) *core.HarnessError {
	t.Helper()
	var he *core.HarnessError
	require.ErrorAs(t, err, &he)
	require.Equal(t, code, he.Code, "message: %s", he.Message)
	return he
}

const dbRequest = `{"header":"Database","question":"Which database?","options":[
 {"label":"SQLite","value":"sqlite","description":"One file, no server."},
 {"label":"PostgreSQL","value":"postgres","description":"Reliable; needs a server.","recommended":true},
 {"label":"MySQL","value":"mysql"}],"allowCustom":true}`

func TestShowsCoreTextRecommendedFirstWithDescriptions(t *testing.T) {
	h := newHarness(t, false)
	pres, err := h.client.Present(context.Background(), json.RawMessage(dbRequest))
	require.NoError(t, err)
	require.Equal(t, []int{1, 0, 2}, pres.Order)

	ch := h.ask(context.Background(), dbRequest)
	out := h.waitPrompts(1)
	// The core's text, verbatim: no rule is reimplemented here.
	assert.Contains(t, out, strings.TrimRight(pres.Text, "\n")+"\n? ")
	pg, sq, my := strings.Index(out, "PostgreSQL"), strings.Index(out, "SQLite"), strings.Index(out, "MySQL")
	assert.True(t, pg < sq && sq < my, "recommended first, then the request's order:\n%s", out)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "1. PostgreSQL") {
			require.Less(t, i+1, len(lines))
			assert.Equal(t, "Reliable; needs a server.", strings.TrimSpace(lines[i+1]))
			assert.True(t, strings.HasPrefix(lines[i+1], "  "), "description indented: %q", lines[i+1])
		}
	}

	h.send("") // empty line: the recommended option
	r := result(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "postgres", r.res.Answer.Answer)
	require.NotNil(t, r.res.Answer.Selected)
	assert.Equal(t, 1, r.res.Answer.Selected.Index)
	assert.JSONEq(t, `{"answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"}}`, string(r.res.Raw))
	assert.Contains(t, h.out.String(), "→ PostgreSQL\n")
}

func TestAnswers(t *testing.T) {
	cases := []struct {
		name, line, answer string
		index              int // -1: free text
	}{
		{"number", "2", "sqlite", 0},
		{"label", "mysql", "mysql", 2},
		{"value", "POSTGRES", "postgres", 1},
		{"free text", "CockroachDB", "CockroachDB", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, false)
			ch := h.ask(context.Background(), dbRequest)
			h.waitPrompts(1)
			h.send(c.line)
			r := result(t, ch)
			require.NoError(t, r.err)
			assert.Equal(t, c.answer, r.res.Answer.Answer)
			if c.index < 0 {
				assert.Nil(t, r.res.Answer.Selected)
			} else {
				require.NotNil(t, r.res.Answer.Selected)
				assert.Equal(t, c.index, r.res.Answer.Selected.Index)
			}
		})
	}
}

func TestReasksWithTheCoresMessage(t *testing.T) {
	h := newHarness(t, false)
	const req = `{"question":"Pick one","options":[{"label":"Red"},{"label":"Blue"}]}`
	_, invalid := h.client.Resolve(context.Background(), json.RawMessage(req), "green")
	he := requireCode(t, invalid, core.CodeInvalidAnswer)
	_, invalidEmpty := h.client.Resolve(context.Background(), json.RawMessage(req), "")
	heEmpty := requireCode(t, invalidEmpty, core.CodeInvalidAnswer)

	ch := h.ask(context.Background(), req)
	h.waitPrompts(1)
	h.send("green")
	out := h.waitPrompts(2)
	assert.Contains(t, out, "\n"+he.Message+"\n? ")
	h.send("") // no recommended option: asked again too
	out = h.waitPrompts(3)
	assert.Contains(t, out, "\n"+heEmpty.Message+"\n? ")
	h.send("blue")
	r := result(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "Blue", r.res.Answer.Answer)
}

func TestOptionlessIsFreeFormEvenWithAllowCustomFalse(t *testing.T) {
	h := newHarness(t, false)
	ch := h.ask(context.Background(), `{"question":"What is the service called?","allowCustom":false}`)
	h.waitPrompts(1)
	h.send("   ") // blank: asked again
	h.waitPrompts(2)
	h.send("ledger")
	r := result(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "ledger", r.res.Answer.Answer)
	assert.Nil(t, r.res.Answer.Selected)
	assert.JSONEq(t, `{"answer":"ledger"}`, string(r.res.Raw))
}

func TestQuestionsAreQueued(t *testing.T) {
	h := newHarness(t, false)
	first := h.ask(context.Background(), `{"question":"First?"}`)
	h.waitPrompts(1)
	second := h.ask(context.Background(), `{"question":"Second?"}`)
	thirdCtx, cancelThird := context.WithCancel(context.Background())
	third := h.ask(thirdCtx, `{"question":"Third?"}`)
	h.waitFor("two queued questions", func(string) bool { return h.prov.q.waiting() == 2 })
	assert.NotContains(t, h.out.String(), "Second?", "a queued question must not be shown")

	// A queued question that gives up leaves the queue without a line.
	cancelThird()
	requireCode(t, result(t, third).err, core.CodeAskAborted)

	h.send("one")
	r := result(t, first)
	require.NoError(t, r.err)
	assert.Equal(t, "one", r.res.Answer.Answer)

	out := h.waitPrompts(2)
	assert.Contains(t, out, "Second?")
	assert.NotContains(t, out, "Third?")
	h.send("two")
	r = result(t, second)
	require.NoError(t, r.err)
	assert.Equal(t, "two", r.res.Answer.Answer)
}

func TestEOFAbortsPendingAndQueuedQuestions(t *testing.T) {
	h := newHarness(t, false)
	first := h.ask(context.Background(), dbRequest)
	h.waitPrompts(1)
	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
	require.NoError(t, h.pw.Close())

	he := requireCode(t, result(t, first).err, core.CodeAskAborted)
	assert.Contains(t, he.Message, "EOF")
	requireCode(t, result(t, second).err, core.CodeAskAborted)
	// And every later question, at once.
	requireCode(t, result(t, h.ask(context.Background(), dbRequest)).err, core.CodeAskAborted)
	assert.Contains(t, h.out.String(), "(input ended: question aborted)")
}

func TestAbortedQuestionDoesNotSwallowTheNextLine(t *testing.T) {
	h := newHarness(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	first := h.ask(ctx, `{"question":"First?"}`)
	h.waitPrompts(1)
	cancel()
	requireCode(t, result(t, first).err, core.CodeAskAborted)

	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitPrompts(2)
	h.send("for the second")
	r := result(t, second)
	require.NoError(t, r.err)
	assert.Equal(t, "for the second", r.res.Answer.Answer)
}

func TestDisposeAndCloseAbort(t *testing.T) {
	t.Run("dispose", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), dbRequest)
		h.waitPrompts(1)
		h.dispose()
		he := requireCode(t, result(t, ch).err, core.CodeAskAborted)
		assert.Contains(t, he.Message, "withdrawn")
	})
	t.Run("close", func(t *testing.T) {
		h := newHarness(t, false)
		first := h.ask(context.Background(), dbRequest)
		h.waitPrompts(1)
		second := h.ask(context.Background(), dbRequest)
		h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
		h.prov.Close()
		requireCode(t, result(t, first).err, core.CodeAskAborted)
		requireCode(t, result(t, second).err, core.CodeAskAborted)
		requireCode(t, result(t, h.ask(context.Background(), dbRequest)).err, core.CodeAskAborted)
	})
}

func TestInterruptAbortsOnlyTheQuestionOnScreen(t *testing.T) {
	h := newHarness(t, false)
	assert.False(t, h.prov.Interrupt(), "no question: nothing to interrupt")
	first := h.ask(context.Background(), `{"question":"First?"}`)
	h.waitPrompts(1)
	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
	require.True(t, h.prov.Asking())
	require.True(t, h.prov.Interrupt())
	he := requireCode(t, result(t, first).err, core.CodeAskAborted)
	assert.Contains(t, he.Message, "Ctrl-C")

	h.waitPrompts(2)
	h.send("still here")
	r := result(t, second)
	require.NoError(t, r.err)
	assert.Equal(t, "still here", r.res.Answer.Answer)
}

// hostile holds everything that could drive a terminal.
var hostile = []string{
	"\x1b[2J", "\x1b[31m", "\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\", "\u009b31m", "\u009b",
	"\r", "\a", "\b", "\x00", "\x7f", "\u202e", "\u2066", "\u2069", "\u200f",
}

func hostileText(s string) string {
	return "\x1b[2J" + s + "\rOVERWRITE\a\b\u202eesrever\u202c\x1b]0;title\x07\u2066iso\u2069\u009b1m"
}

func TestNothingTheModelWritesDrivesTheTerminal(t *testing.T) {
	req, err := json.Marshal(map[string]any{
		"header":   hostileText("Head"),
		"question": hostileText("Question?"),
		"options": []map[string]any{
			{"label": hostileText("One"), "description": hostileText("first\nline two"), "recommended": true},
			{"label": hostileText("Two"), "desc": hostileText("second")},
		},
		"allowCustom": true,
	})
	require.NoError(t, err)
	for _, color := range []bool{false, true} {
		h := newHarness(t, color)
		ch := h.ask(context.Background(), string(req))
		h.waitPrompts(1)
		h.send("bad\x1b[2Janswer\rX") // typed text is echoed back (→ line) sanitized too
		r := result(t, ch)
		require.NoError(t, r.err)

		raw := h.out.String()
		require.Contains(t, raw, "Question?")
		if color {
			raw = stripSGR(raw) // our own decorations
		}
		for _, bad := range append(hostile, "\x1b", "\u202c") {
			assert.NotContains(t, raw, bad, "color=%v: %q reached the terminal:\n%q", color, bad, raw)
		}
	}
}
