package termui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/testing/chantest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// native is the core on the native engine.
var native = askcore.NewCore(nil)

// harness is a provider registered with a service, typed at through a pipe.
type harness struct {
	t       *testing.T
	core    *askcore.Core
	pw      *io.PipeWriter
	lines   *Lines
	out     *syncbuf.Buffer
	prov    *Provider
	svc     *askcore.Service
	dispose func()
}

type harnessOpts struct {
	color, echoed bool
	core          *askcore.Core // nil: native
}

func newHarness(t *testing.T, color bool) *harness {
	t.Helper()
	return newHarnessWith(t, harnessOpts{color: color})
}

func newHarnessWith(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	if o.core == nil {
		o.core = native
	}
	// Runs last: the reader, the provider and every ask are gone.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	pr, pw := io.Pipe()
	h := &harness{
		t:     t,
		core:  o.core,
		pw:    pw,
		lines: NewLines(pr),
		out:   &syncbuf.Buffer{},
	}
	h.prov = NewProvider(Config{Lines: h.lines, Out: h.out, Style: Style{Color: o.color}, Echoed: o.echoed})
	h.svc = askcore.NewService(h.core)
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
	res askcore.Answer
	err error
}

// ask starts an Ask of the model's arguments text in the background.
func (h *harness) ask(ctx context.Context, arguments string) <-chan askResult {
	return askInBackground(ctx, h.svc, arguments)
}

// askInBackground has svc ask the model's arguments text; the channel gets
// its result.
func askInBackground(ctx context.Context, svc *askcore.Service, arguments string) <-chan askResult {
	ch := make(chan askResult, 1)
	go func() {
		res, err := svc.Ask(ctx, arguments, askcore.AskOptions{})
		ch <- askResult{res, err}
	}()
	return ch
}

func (h *harness) send(line string) {
	h.t.Helper()
	_, err := io.WriteString(h.pw, line+"\n")
	require.NoError(h.t, err)
}

// patience is how long a test waits for something that must happen: the
// terminal tests' budget, one for the package. Only a failing test waits
// that long: a loaded machine makes the tests slower, never red.
const patience = tmuxtest.Patience

// waitFor polls until cond holds on the output.
func (h *harness) waitFor(what string, cond func(out string) bool) string {
	h.t.Helper()
	deadline := time.Now().Add(patience)
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
	return chantest.Receive(t, ch, patience, "the ask did not return")
}

// answered requires an answer and returns its bytes.
func answered(t *testing.T, ch <-chan askResult) string {
	t.Helper()
	r := result(t, ch)
	require.NoError(t, r.err)
	return string(r.res.JSON())
}

// requireFailure requires the core's error for situation f, byte for byte.
func requireFailure(t *testing.T, err error, f askcore.Failure) *askcore.Error {
	t.Helper()
	var he *askcore.Error
	require.ErrorAs(t, err, &he)
	want := native.Fail(context.Background(), f)
	require.Equal(t, string(want.JSON()), string(he.JSON()))
	return he
}

func requireCode(t *testing.T, err error, code askcore.Code) *askcore.Error {
	t.Helper()
	var he *askcore.Error
	require.ErrorAs(t, err, &he)
	require.Equal(t, code, he.Code, "message: %s", he.Message)
	return he
}

// call normalizes arguments as the service does.
func call(t *testing.T, arguments string) *askcore.Call {
	t.Helper()
	c, err := native.Normalize(context.Background(), arguments)
	require.NoError(t, err)
	return c
}

// presentText is the core's text for question i, as the provider prints it.
func presentText(t *testing.T, arguments string, i int) string {
	t.Helper()
	p, err := call(t, arguments).Present(context.Background(), i)
	require.NoError(t, err)
	return strings.TrimRight(p.Text, "\n")
}

// reprompt is the core's INVALID_ANSWER message for line on question i.
func reprompt(t *testing.T, arguments string, i int, line string) string {
	t.Helper()
	_, err := call(t, arguments).CheckLine(context.Background(), i, line)
	return requireCode(t, err, askcore.CodeInvalidAnswer).Message
}

const dbRequest = `{"header":"Database","question":"Which database?","options":[
 {"label":"SQLite","value":"sqlite","description":"One file, no server."},
 {"label":"PostgreSQL","value":"postgres","description":"Reliable; needs a server.","recommended":true},
 {"label":"MySQL","value":"mysql"}],"allowCustom":true}`

const (
	multiRequest = `{"question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},` +
		`{"label":"Billing","value":"billing"},{"label":"Search","value":"search"}],"multiSelect":true,"allowCustom":true}`
	multiStrict = `{"question":"Which checks?","options":[{"label":"Lint","value":"lint"},{"label":"Tests","value":"tests"},` +
		`{"label":"Fuzz","value":"fuzz"}],"multiSelect":true}`
	openRequest  = `{"question":"What should the release be called?"}`
	batchRequest = `{"questions":[` + dbRequest + `,` + multiRequest + `,` + openRequest + `]}`
)

func TestShowsCoreTextRecommendedFirstWithDescriptions(t *testing.T) {
	h := newHarness(t, false)
	pres, err := call(t, dbRequest).Present(context.Background(), 0)
	require.NoError(t, err)
	require.Equal(t, []int{1, 0, 2}, pres.Order)

	ch := h.ask(context.Background(), dbRequest)
	out := h.waitPrompts(1)
	// The core's text, verbatim: no rule is reimplemented here.
	assert.Contains(t, out, strings.TrimRight(pres.Text, "\n")+"\n? ")
	assert.NotContains(t, out, "Question 1 of", "a single question is not numbered")
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
	assert.Equal(t, `{"answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"}}`, answered(t, ch))
	// The v1 block, exactly: rule, the core's text, the prompt, the
	// prompt line ended (a pipe does not echo), the summary.
	assert.Equal(t, "\n? "+strings.Repeat("─", 46)+"\n"+strings.TrimRight(pres.Text, "\n")+"\n? \n→ PostgreSQL\n", h.out.String())
}

func TestAnswers(t *testing.T) {
	cases := []struct{ name, line, answer, echo string }{
		{"number", "2", `{"answer":"sqlite","selected":{"index":0,"label":"SQLite","value":"sqlite"}}`, "SQLite"},
		{"label", "mysql", `{"answer":"mysql","selected":{"index":2,"label":"MySQL","value":"mysql"}}`, "MySQL"},
		{"value", "POSTGRES", `{"answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"}}`, "PostgreSQL"},
		{"free text", "CockroachDB <distributed> & fast", `{"answer":"CockroachDB \u003cdistributed\u003e \u0026 fast"}`, "CockroachDB <distributed> & fast"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, false)
			ch := h.ask(context.Background(), dbRequest)
			h.waitPrompts(1)
			h.send(c.line)
			// The core's bytes (it writes <, > and & as encoding/json does),
			// the answer the core resolves the line to.
			assert.Equal(t, c.answer, answered(t, ch))
			want, err := call(t, dbRequest).Resolve(context.Background(), askcore.Lines(c.line))
			require.NoError(t, err)
			assert.Equal(t, string(want.JSON()), c.answer)
			assert.True(t, strings.HasSuffix(h.out.String(), "\n→ "+c.echo+"\n"), h.out.String())
		})
	}
}

func TestReasksWithTheCoresMessage(t *testing.T) {
	h := newHarness(t, false)
	const req = `{"question":"Pick one","options":[{"label":"Red"},{"label":"Blue"}]}`
	ch := h.ask(context.Background(), req)
	h.waitPrompts(1)
	h.send("green")
	out := h.waitPrompts(2)
	assert.Contains(t, out, "\n? \n"+reprompt(t, req, 0, "green")+"\n? ")
	h.send("") // no recommended option: asked again too
	out = h.waitPrompts(3)
	assert.Contains(t, out, "\n"+reprompt(t, req, 0, "")+"\n? ")
	h.send("blue")
	assert.Equal(t, `{"answer":"Blue","selected":{"index":1,"label":"Blue","value":"Blue"}}`, answered(t, ch))
	assert.Equal(t, 1, strings.Count(h.out.String(), "Pick one"), "the question is not shown again, only the message")
}

func TestCanonicallyEquivalentLineMatchesTheLabel(t *testing.T) {
	h := newHarness(t, false)
	ch := h.ask(context.Background(), `{"question":"Who?","options":["Ľubica","Marta"]}`)
	h.waitPrompts(1)
	h.send("L\u030cubica") // L + combining caron: the same name
	assert.Equal(t, `{"answer":"Ľubica","selected":{"index":0,"label":"Ľubica","value":"Ľubica"}}`, answered(t, ch))
}

func TestOptionlessIsFreeFormEvenWithAllowCustomFalse(t *testing.T) {
	h := newHarness(t, false)
	ch := h.ask(context.Background(), `{"question":"What is the service called?","allowCustom":false}`)
	h.waitPrompts(1)
	h.send("   ") // blank: asked again
	h.waitPrompts(2)
	h.send("ledger")
	assert.Equal(t, `{"answer":"ledger"}`, answered(t, ch))
}

func TestMultiSelectLine(t *testing.T) {
	t.Run("choices and free text", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), multiRequest)
		out := h.waitPrompts(1)
		assert.Contains(t, out, presentText(t, multiRequest, 0)+"\n? ")
		h.send("3, Slack, billing")
		assert.Equal(t, `{"answers":["billing","search","Slack"],"selected":[{"index":1,"label":"Billing","value":"billing"},`+
			`{"index":2,"label":"Search","value":"search"}]}`, answered(t, ch))
		assert.Contains(t, h.out.String(), "\n→ Billing, Search, Slack\n")
	})
	t.Run("empty line: every recommended option", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), multiRequest)
		h.waitPrompts(1)
		h.send("")
		assert.Equal(t, `{"answers":["auth"],"selected":[{"index":0,"label":"Auth","value":"auth"}]}`, answered(t, ch))
	})
	t.Run("a part that is no option, without free text: asked again", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), multiStrict)
		h.waitPrompts(1)
		h.send("1, Slack")
		out := h.waitPrompts(2)
		msg := reprompt(t, multiStrict, 0, "1, Slack")
		assert.Contains(t, msg, `"Slack"`, "the core names the part")
		assert.Contains(t, out, "\n"+msg+"\n? ")
		h.send("tests,3")
		assert.Equal(t, `{"answers":["tests","fuzz"],"selected":[{"index":1,"label":"Tests","value":"tests"},`+
			`{"index":2,"label":"Fuzz","value":"fuzz"}]}`, answered(t, ch))
	})
}

// TestBatchLineByLine answers a batch one question at a time, on both
// engines: each question appears only once the one before it resolved, an
// invalid line re-asks that question alone, and the answer is the core's
// answer to the whole call.
func TestBatchLineByLine(t *testing.T) {
	wasm, err := hostgo.New(context.Background(), hostgo.WithInterpreter())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, wasm.Close(context.Background())) })
	for name, c := range map[string]*askcore.Core{"native": native, "wasm": askcore.NewCore(wasm)} {
		t.Run(name, func(t *testing.T) {
			h := newHarnessWith(t, harnessOpts{core: c})
			ch := h.ask(context.Background(), batchRequest)

			out := h.waitPrompts(1)
			q1 := presentText(t, batchRequest, 0)
			require.True(t, strings.HasPrefix(q1, "Question 1 of 3\n"), q1)
			assert.Contains(t, out, "\n? "+strings.Repeat("─", 46)+"\n"+q1+"\n? ")
			assert.NotContains(t, out, "Question 2 of 3")

			h.send("nope? no: free text is allowed here") // q1 allows free text: a valid answer
			out = h.waitPrompts(2)
			assert.Contains(t, out, "\n→ nope? no: free text is allowed here\n")
			assert.Contains(t, out, presentText(t, batchRequest, 1)+"\n? ")

			h.send("2, Slack")
			out = h.waitPrompts(3)
			assert.Contains(t, out, "\n→ Billing, Slack\n")
			assert.Contains(t, out, presentText(t, batchRequest, 2)+"\n? ")

			h.send("") // optionless: asked again
			out = h.waitPrompts(4)
			assert.Contains(t, out, "\n"+reprompt(t, batchRequest, 2, "")+"\n? ")
			assert.Equal(t, 1, strings.Count(out, "Question 3 of 3"))
			h.send("Aurora")

			want, err := call(t, batchRequest).Resolve(context.Background(),
				askcore.Lines("nope? no: free text is allowed here", "2, Slack", "Aurora"))
			require.NoError(t, err)
			assert.Equal(t, string(want.JSON()), answered(t, ch))
			assert.Equal(t, `{"answers":[{"question":"Which database?","answer":"nope? no: free text is allowed here"},`+
				`{"question":"Which features?","answers":["billing","Slack"],"selected":[{"index":1,"label":"Billing","value":"billing"}]},`+
				`{"question":"What should the release be called?","answer":"Aurora"}]}`, string(want.JSON()))
			assert.True(t, strings.HasSuffix(h.out.String(), "\n→ Aurora\n"))
		})
	}
}

// replyResult is what the provider itself returned for call.
type replyResult struct {
	call  *askcore.Call
	reply askcore.Reply
	err   error
}

// askProvider puts arguments, normalized by the native core, to p itself
// (not through the service) in the background.
func askProvider(t *testing.T, p *Provider, arguments string) <-chan replyResult {
	t.Helper()
	c := call(t, arguments)
	ch := make(chan replyResult, 1)
	go func() {
		r, err := p.Ask(context.Background(), c)
		ch <- replyResult{c, r, err}
	}()
	return ch
}

// replied waits for the provider's reply: it must be a reply, not an
// error.
func replied(t *testing.T, ch <-chan replyResult) replyResult {
	t.Helper()
	select {
	case r := <-ch:
		require.NoError(t, r.err)
		return r
	case <-time.After(patience):
		t.Fatal("the provider did not return")
		return replyResult{}
	}
}

// TestProviderHandsBackTheLines: in line mode the provider writes no
// answer: it hands back the lines that fitted, one per question (not the
// ones it asked again for), and the core resolves them through the call
// into the answer.
func TestProviderHandsBackTheLines(t *testing.T) {
	h := newHarness(t, false)
	ch := askProvider(t, h.prov, batchRequest)
	h.waitPrompts(1)
	h.send("2")
	h.waitPrompts(2)
	h.send("billing, Slack")
	h.waitPrompts(3)
	h.send("") // optionless: asked again, not handed back
	h.waitPrompts(4)
	h.send("Aurora")
	r := replied(t, ch)

	got, err := r.call.Resolve(context.Background(), r.reply)
	require.NoError(t, err)
	want, err := r.call.Resolve(context.Background(), askcore.Lines("2", "billing, Slack", "Aurora"))
	require.NoError(t, err)
	assert.Equal(t, string(want.JSON()), string(got.JSON()))
	assert.Equal(t, `{"answers":[{"question":"Which database?","answer":"sqlite","selected":{"index":0,"label":"SQLite","value":"sqlite"}},`+
		`{"question":"Which features?","answers":["billing","Slack"],"selected":[{"index":1,"label":"Billing","value":"billing"}]},`+
		`{"question":"What should the release be called?","answer":"Aurora"}]}`, string(got.JSON()))
}

func TestEOFInsideABatchFailsTheWholeBatch(t *testing.T) {
	h := newHarness(t, false)
	ch := h.ask(context.Background(), batchRequest)
	h.waitPrompts(1)
	h.send("1")
	h.waitFor("question 2", func(out string) bool { return strings.Contains(out, "Question 2 of 3") && strings.HasSuffix(out, "? ") })
	require.NoError(t, h.pw.Close())
	he := requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationEOF})
	out := h.out.String()
	assert.True(t, strings.HasSuffix(out, "? \n"+he.Message+"\n"), "the core's message for the end of the input:\n%s", out)
	assert.NotContains(t, out, "Question 3 of 3")
}

func TestInterruptInsideABatchFailsItAndTheNextCallGoesOn(t *testing.T) {
	h := newHarness(t, false)
	batch := h.ask(context.Background(), batchRequest)
	h.waitPrompts(1)
	next := h.ask(context.Background(), `{"question":"Next?"}`)
	h.waitFor("a queued call", func(string) bool { return h.prov.q.waiting() == 1 })
	h.send("1")
	h.waitFor("question 2", func(out string) bool { return strings.Contains(out, "Question 2 of 3") && strings.HasSuffix(out, "? ") })
	assert.NotContains(t, h.out.String(), "Next?", "a batch keeps the turn for all its questions")
	require.True(t, h.prov.Interrupt())
	requireFailure(t, result(t, batch).err, askcore.Failure{Situation: askcore.SituationInterrupted})

	h.waitFor("the queued call", func(out string) bool { return strings.Contains(out, "Next?") && strings.HasSuffix(out, "? ") })
	h.send("still here")
	assert.Equal(t, `{"answer":"still here"}`, answered(t, next))
	assert.NotContains(t, h.out.String(), "Question 3 of 3")
}

func TestEchoedInputIsNotEndedAgain(t *testing.T) {
	h := newHarnessWith(t, harnessOpts{echoed: true})
	ch := h.ask(context.Background(), `{"question":"Name?"}`)
	h.waitPrompts(1)
	h.send("Ada")
	answered(t, ch)
	// The terminal echoed "Ada\n" itself: the summary follows the prompt.
	assert.True(t, strings.HasSuffix(h.out.String(), "\n? → Ada\n"), "%q", h.out.String())
}

func TestQuestionsAreQueued(t *testing.T) {
	h := newHarness(t, false)
	first := h.ask(context.Background(), `{"question":"First?"}`)
	h.waitPrompts(1)
	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
	thirdCtx, cancelThird := context.WithCancel(context.Background())
	third := h.ask(thirdCtx, `{"question":"Third?"}`)
	h.waitFor("two queued questions", func(string) bool { return h.prov.q.waiting() == 2 })
	assert.NotContains(t, h.out.String(), "Second?", "a queued question must not be shown")

	// A queued question that gives up leaves the queue without a line.
	cancelThird()
	requireFailure(t, result(t, third).err, askcore.Failure{Situation: askcore.SituationAborted})

	h.send("one")
	assert.Equal(t, `{"answer":"one"}`, answered(t, first))

	out := h.waitPrompts(2)
	assert.Contains(t, out, "Second?")
	assert.NotContains(t, out, "Third?")
	h.send("two")
	assert.Equal(t, `{"answer":"two"}`, answered(t, second))
	assert.Less(t, strings.Index(h.out.String(), "First?"), strings.Index(h.out.String(), "Second?"), "arrival order")
}

func TestEOFAbortsPendingAndQueuedQuestions(t *testing.T) {
	h := newHarness(t, false)
	first := h.ask(context.Background(), dbRequest)
	h.waitPrompts(1)
	second := h.ask(context.Background(), batchRequest)
	h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
	require.NoError(t, h.pw.Close())

	eof := askcore.Failure{Situation: askcore.SituationEOF}
	he := requireFailure(t, result(t, first).err, eof)
	assert.Contains(t, he.Message, "EOF")
	requireFailure(t, result(t, second).err, eof)
	// And every later question, at once.
	requireFailure(t, result(t, h.ask(context.Background(), dbRequest)).err, eof)
	assert.Contains(t, h.out.String(), "? \n"+he.Message+"\n", "the core's message for the end of the input")
}

func TestReadFailureAndClosedInput(t *testing.T) {
	t.Run("read error", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), dbRequest)
		h.waitPrompts(1)
		require.NoError(t, h.pw.CloseWithError(errors.New("disk on fire")))
		he := requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationReadFailed, Detail: "disk on fire"})
		assert.Contains(t, he.Message, "disk on fire")
	})
	t.Run("Lines closed", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), dbRequest)
		h.waitPrompts(1)
		h.lines.Close()
		requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationInputClosed})
	})
}

func TestAbortedQuestionDoesNotSwallowTheNextLine(t *testing.T) {
	h := newHarness(t, false)
	ctx, cancel := context.WithCancelCause(context.Background())
	first := h.ask(ctx, `{"question":"First?"}`)
	h.waitPrompts(1)
	cancel(errors.New("the user pressed stop"))
	requireFailure(t, result(t, first).err, askcore.Failure{Situation: askcore.SituationAborted, Detail: "the user pressed stop"})

	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitPrompts(2)
	h.send("for the second")
	assert.Equal(t, `{"answer":"for the second"}`, answered(t, second))
}

func TestDisposeAndCloseAbort(t *testing.T) {
	withdrawn := askcore.Failure{Situation: askcore.SituationWithdrawn}
	t.Run("dispose", func(t *testing.T) {
		h := newHarness(t, false)
		ch := h.ask(context.Background(), dbRequest)
		h.waitPrompts(1)
		h.dispose()
		requireFailure(t, result(t, ch).err, withdrawn)
	})
	t.Run("close", func(t *testing.T) {
		h := newHarness(t, false)
		first := h.ask(context.Background(), batchRequest)
		h.waitPrompts(1)
		second := h.ask(context.Background(), dbRequest)
		h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
		h.prov.Close()
		requireFailure(t, result(t, first).err, withdrawn)
		requireFailure(t, result(t, second).err, withdrawn)
		requireFailure(t, result(t, h.ask(context.Background(), dbRequest)).err, withdrawn)
	})
}

func TestInterruptAbortsOnlyTheQuestionOnScreen(t *testing.T) {
	h := newHarness(t, false)
	assert.False(t, h.prov.Interrupt(), "no question: nothing to interrupt")
	first := h.ask(context.Background(), `{"question":"First?"}`)
	h.waitPrompts(1)
	second := h.ask(context.Background(), `{"question":"Second?"}`)
	h.waitFor("a queued question", func(string) bool { return h.prov.q.waiting() == 1 })
	require.True(t, h.prov.Interrupt())
	he := requireFailure(t, result(t, first).err, askcore.Failure{Situation: askcore.SituationInterrupted})
	assert.Contains(t, he.Message, "Ctrl-C")
	assert.Contains(t, h.out.String(), "? \n"+he.Message+"\n", "the core's message for the interrupt")

	h.waitPrompts(2)
	h.send("still here")
	assert.Equal(t, `{"answer":"still here"}`, answered(t, second))
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
	question := map[string]any{
		"header":   hostileText("Head"),
		"question": hostileText("Question?"),
		"options": []map[string]any{
			{"label": hostileText("One"), "description": hostileText("first\nline two"), "recommended": true},
			{"label": hostileText("Two"), "desc": hostileText("second")},
		},
		"allowCustom": true,
	}
	single, err := json.Marshal(question)
	require.NoError(t, err)
	question["multiSelect"] = true
	question["question"] = hostileText("Another question?")
	batch, err := json.Marshal(map[string]any{"questions": []any{json.RawMessage(single), question}})
	require.NoError(t, err)
	for _, color := range []bool{false, true} {
		for _, req := range []string{string(single), string(batch)} {
			h := newHarness(t, color)
			ch := h.ask(context.Background(), req)
			h.waitPrompts(1)
			h.send("bad\x1b[2Janswer\rX") // typed text is echoed back (→ line) sanitized too
			if strings.Contains(req, "questions") {
				h.waitPrompts(2)
				h.send("1, own\x1b]0;t\x07 text\u202e")
			}
			answered(t, ch)

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
}
