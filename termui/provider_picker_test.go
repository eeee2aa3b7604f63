package termui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
)

// The provider with the keyboard picker (Config.Picker): a fake terminal
// (picker_test.go) typed at, the provider registered with a service, the
// core's ops on both engines.

type pickHarness struct {
	f       *fakeTerm
	prov    *Provider
	svc     *askcore.Service
	dispose func()
}

func newPickHarness(t *testing.T, c *askcore.Core) *pickHarness {
	t.Helper()
	noLeaks(t) // registered first: checked after every cleanup below
	f := newFakeTerm(t, 80, 24)
	h := &pickHarness{f: f}
	h.prov = NewProvider(Config{Lines: f.lines, Out: f.term.Out, Picker: &f.term})
	h.svc = askcore.NewService(c)
	dispose, err := h.svc.Register(h.prov)
	require.NoError(t, err)
	h.dispose = dispose
	t.Cleanup(func() {
		h.dispose()
		h.prov.Close()
	})
	return h
}

func (h *pickHarness) ask(ctx context.Context, arguments string) <-chan askResult {
	return askInBackground(ctx, h.svc, arguments)
}

// engines are the two places the rules run.
func engines(t *testing.T) map[string]*askcore.Core {
	wasm, err := hostgo.New(context.Background(), hostgo.WithInterpreter())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, wasm.Close(context.Background())) })
	return map[string]*askcore.Core{"native": native, "wasm": askcore.NewCore(wasm)}
}

// resolvePicks is the core's answer to arguments from one pick per
// question.
func resolvePicks(t *testing.T, arguments string, picks ...askcore.Pick) (string, string) {
	t.Helper()
	c := call(t, arguments)
	res, err := c.Resolve(context.Background(), askcore.Picks(picks...))
	require.NoError(t, err)
	summary, err := c.Summary(context.Background(), res)
	require.NoError(t, err)
	return string(res.JSON()), summary
}

// pickMessage is the core's INVALID_ANSWER message for pick on question i.
func pickMessage(t *testing.T, arguments string, i int, pick askcore.Pick) string {
	t.Helper()
	_, err := call(t, arguments).CheckPick(context.Background(), i, pick)
	return requireCode(t, err, askcore.CodeInvalidAnswer).Message
}

// layoutOf is the core's picker layout for arguments.
func layoutOf(t *testing.T, arguments string) Layout {
	t.Helper()
	raw, err := call(t, arguments).Picker(context.Background())
	require.NoError(t, err)
	l, err := DecodeLayout(raw)
	require.NoError(t, err)
	return l
}

// TestPickerProviderAnswers: a single question and a batch answered with
// keys, on both engines: the core's layout is drawn, each Enter is checked
// by the core (its message shown, the person stays), the answer is the
// core's answer to the picks, and "→ " with the core's summary (one line
// per question) is what stays of the picker.
func TestPickerProviderAnswers(t *testing.T) {
	for name, c := range engines(t) {
		t.Run(name+"/single", func(t *testing.T) {
			h := newPickHarness(t, c)
			ch := h.ask(context.Background(), dbRequest)
			h.f.screen.waitFor(t, "[Database] Which database?", "❯ 1. PostgreSQL  recommended", "     Reliable; needs a server.")
			h.f.keys.typ("\x1b[B\r") // Down: SQLite; Enter
			want, summary := resolvePicks(t, dbRequest, askcore.Pick{Options: []int{0}})
			assert.Equal(t, want, answered(t, ch))
			assert.Equal(t, "SQLite", summary)
			assert.True(t, strings.HasSuffix(h.f.screen.String(), "\x1b[J\x1b8→ SQLite\n"), "%q", h.f.screen.String())
			assert.Zero(t, h.f.rawNow(), "the terminal is restored")
		})
		t.Run(name+"/batch", func(t *testing.T) {
			h := newPickHarness(t, c)
			ch := h.ask(context.Background(), batchRequest)
			h.f.screen.waitFor(t, "Question 1 of 3", "[Database] Which database?")
			h.f.keys.typ("\r") // PostgreSQL, the recommended option
			h.f.screen.waitFor(t, "Question 2 of 3", "❯ [x] 1. Auth  recommended")
			h.f.keys.typ(" ") // Auth off: nothing chosen
			h.f.keys.typ("\r")
			msg := pickMessage(t, batchRequest, 1, askcore.Pick{Options: []int{}})
			assert.Contains(t, msg, "Space toggles the option under the cursor")
			h.f.screen.waitFor(t, msg[:40]) // the core's message (wrapped at 79 columns)
			h.f.keys.typ("jj ")             // Search
			h.f.keys.typ("\x1b[B")
			h.f.keys.typ("jk Slack\r") // j and k are letters in the own answer
			h.f.screen.waitFor(t, "Question 3 of 3", "✓ Database")
			h.f.keys.typ("Aurora\r")
			want, summary := resolvePicks(t, batchRequest,
				askcore.Pick{Options: []int{1}}, askcore.Pick{Options: []int{2}, Text: "jk Slack"}, askcore.Pick{Text: "Aurora"})
			assert.Equal(t, want, answered(t, ch))
			lines := strings.Split(summary, "\n")
			require.Len(t, lines, 3)
			assert.True(t, strings.HasSuffix(h.f.screen.String(), "→ "+strings.Join(lines, "\n→ ")+"\n"), "%q", h.f.screen.String())
		})
	}
}

// TestPickerProviderPreviewsAndNotes: previews drawn from the core's
// layout (below the list on this 80-column terminal) and notes (Ctrl-N)
// on a batch of a single-select, a multi-select and an optionless
// question, on both engines: the answer is the core's answer to the picks
// with their notes, the summary carries them.
func TestPickerProviderPreviewsAndNotes(t *testing.T) {
	request := `{"questions":[` + reqCodeLayouts + `,` + reqScreens + `,` + openRequest + `]}`
	for name, c := range engines(t) {
		t.Run(name, func(t *testing.T) {
			h := newPickHarness(t, c)
			ch := h.ask(context.Background(), request)
			h.f.screen.waitFor(t, "Question 1 of 3", "╭─ Preview", "│ func handle(r *Request) error {", "│     v, err := parse(r)")
			h.f.keys.typ("\x1b[B") // Nested
			h.f.screen.waitFor(t, "│     if v, err := parse(r); err == nil {")
			h.f.keys.typ("\x0ekeep v15\r") // Ctrl-N, notes, Enter keeps them
			h.f.screen.waitFor(t, "  Notes: keep v15")
			h.f.keys.typ("\r") // confirm
			h.f.screen.waitFor(t, "Question 2 of 3", "|  KPIs  |  Feed  |")
			h.f.keys.typ("\x1b[B \x0edark first\r\r") // Settings on, notes, confirm
			h.f.screen.waitFor(t, "Question 3 of 3")
			h.f.keys.typ("Aurora\x0etentative\x1b[A\r") // ↑ does nothing in the notes
			h.f.screen.waitFor(t, "  Notes: tentative")
			h.f.keys.typ("\r")
			want, summary := resolvePicks(t, request,
				askcore.Pick{Options: []int{1}, Notes: "keep v15"},
				askcore.Pick{Options: []int{0, 1}, Notes: "dark first"},
				askcore.Pick{Text: "Aurora", Notes: "tentative"})
			got := answered(t, ch)
			assert.Equal(t, want, got)
			assert.Contains(t, got, `"notes":"keep v15"`)
			assert.Contains(t, got, `"notes":"dark first"`)
			assert.Contains(t, got, `"answer":"Aurora","notes":"tentative"`)
			assert.Equal(t, "Layout: Nested (notes: keep v15)\nScreens: Dashboard, Settings (notes: dark first)\nWhat should the release be called?: Aurora (notes: tentative)", summary)
			assert.True(t, strings.HasSuffix(h.f.screen.String(), "→ "+strings.ReplaceAll(summary, "\n", "\n→ ")+"\n"), "%q", h.f.screen.String())
		})
	}
}

// TestPickerProviderReplies: the picker's reply, returned by the provider
// itself, is the answer the core resolved from the picks for this very
// call (Answered: the provider showed its summary), which resolves through
// the call to the core's answer; Esc is a decline, not a failure, which
// the core resolves to ASK_DECLINED.
func TestPickerProviderReplies(t *testing.T) {
	t.Run("picks", func(t *testing.T) {
		h := newPickHarness(t, native)
		ch := askProvider(t, h.prov, dbRequest)
		h.f.screen.waitFor(t, "❯ 1. PostgreSQL")
		h.f.keys.typ("\x1b[B\r") // Down: SQLite; Enter
		r := replied(t, ch)
		got, err := r.call.Resolve(context.Background(), r.reply)
		require.NoError(t, err)
		want, err := r.call.Resolve(context.Background(), askcore.Picks(askcore.Pick{Options: []int{0}}))
		require.NoError(t, err)
		assert.Equal(t, string(want.JSON()), string(got.JSON()))
		assert.Equal(t, `{"answer":"sqlite","selected":{"index":0,"label":"SQLite","value":"sqlite"}}`, string(got.JSON()))
	})
	t.Run("Esc", func(t *testing.T) {
		h := newPickHarness(t, native)
		ch := askProvider(t, h.prov, dbRequest)
		h.f.screen.waitFor(t, "❯ 1. PostgreSQL")
		h.f.keys.typ("\x1b")
		r := replied(t, ch)
		_, err := r.call.Resolve(context.Background(), r.reply)
		requireFailure(t, err, askcore.Failure{Situation: askcore.SituationDeclined})
	})
}

// TestPickerProviderLeaving: Esc, Ctrl-C (the key, and Interrupt: the
// signal), the input's end, a closed input, the ask's ctx, a closed
// provider. Each is the core's situation; Esc and Ctrl-C leave the
// layout's line in place of the picker, the others erase it.
func TestPickerProviderLeaving(t *testing.T) {
	layout := layoutOf(t, dbRequest)
	cases := []struct {
		name  string
		leave func(h *pickHarness, cancel context.CancelCauseFunc)
		want  askcore.Failure
		line  string
	}{
		{"Esc", func(h *pickHarness, _ context.CancelCauseFunc) { h.f.keys.typ("\x1b") },
			askcore.Failure{Situation: askcore.SituationDeclined}, layout.Declined},
		{"Ctrl-C", func(h *pickHarness, _ context.CancelCauseFunc) { h.f.keys.typ("\x03") },
			askcore.Failure{Situation: askcore.SituationInterrupted}, layout.Interrupted},
		{"Interrupt", func(h *pickHarness, _ context.CancelCauseFunc) { require.True(t, h.prov.Interrupt()) },
			askcore.Failure{Situation: askcore.SituationInterrupted}, layout.Interrupted},
		{"EOF", func(h *pickHarness, _ context.CancelCauseFunc) { h.f.keys.Close() },
			askcore.Failure{Situation: askcore.SituationEOF}, ""},
		{"input closed", func(h *pickHarness, _ context.CancelCauseFunc) { h.f.lines.Close() },
			askcore.Failure{Situation: askcore.SituationInputClosed}, ""},
		{"ctx", func(_ *pickHarness, cancel context.CancelCauseFunc) { cancel(errors.New("the user pressed stop")) },
			askcore.Failure{Situation: askcore.SituationAborted, Detail: "the user pressed stop"}, ""},
		{"disposed", func(h *pickHarness, _ context.CancelCauseFunc) { h.dispose() },
			askcore.Failure{Situation: askcore.SituationWithdrawn}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newPickHarness(t, native)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			ch := h.ask(ctx, dbRequest)
			h.f.screen.waitFor(t, "❯ 1. PostgreSQL")
			c.leave(h, cancel)
			requireFailure(t, result(t, ch).err, c.want)
			h.prov.Close() // returns once the picker is gone
			out := h.f.screen.String()
			assert.True(t, strings.HasSuffix(out, "\x1b[J\x1b8"+c.line+strings.Repeat("\n", min(len(c.line), 1))), "%q", out)
			assert.Zero(t, h.f.rawNow())
		})
	}
}

// TestPickerProviderCloseWaits: Close returns only once the picker on
// screen is erased and the terminal restored (askcore-stdio ask writes its
// output right after).
func TestPickerProviderCloseWaits(t *testing.T) {
	h := newPickHarness(t, native)
	ch := h.ask(context.Background(), dbRequest)
	h.f.screen.waitFor(t, "❯ 1. PostgreSQL")
	h.prov.Close()
	assert.Zero(t, h.f.rawNow())
	assert.True(t, strings.HasSuffix(h.f.screen.String(), modesOff+"\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8"), "%q", h.f.screen.String())
	requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationWithdrawn})
}

// TestPickerProviderQueue: a second call waits for the first one's picker
// to be done, then gets its own.
func TestPickerProviderQueue(t *testing.T) {
	h := newPickHarness(t, native)
	first := h.ask(context.Background(), `{"question":"First?","options":["A","B"]}`)
	h.f.screen.waitFor(t, "First?")
	second := h.ask(context.Background(), `{"question":"Second?","options":["C","D"]}`)
	waitQueued(t, h.prov, 1)
	assert.NotContains(t, h.f.screen.String(), "Second?")
	h.f.keys.typ("2\r")
	assert.Equal(t, `{"answer":"B","selected":{"index":1,"label":"B","value":"B"}}`, answered(t, first))
	h.f.screen.waitFor(t, "Second?")
	h.f.keys.typ("\r")
	assert.Equal(t, `{"answer":"C","selected":{"index":0,"label":"C","value":"C"}}`, answered(t, second))
	out := h.f.screen.String()
	assert.Less(t, strings.Index(out, "→ B\n"), strings.Index(out, "Second?"))
}

// waitQueued waits until n calls wait for the turn.
func waitQueued(t *testing.T, p *Provider, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for p.q.waiting() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", p.q.waiting(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPickerProviderEngineFault: when the core cannot check a pick, the
// picker ends and the service reports the engine fault.
func TestPickerProviderEngineFault(t *testing.T) {
	h := newPickHarness(t, askcore.NewCore(failingOp{"resolve"}))
	ch := h.ask(context.Background(), dbRequest)
	h.f.screen.waitFor(t, "❯ 1. PostgreSQL")
	h.f.keys.typ("\r")
	requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationEngineFault})
	h.prov.Close()
	assert.True(t, strings.HasSuffix(h.f.screen.String(), "\x1b[J\x1b8"), "the picker is erased")
}

// failingOp is the native core, except that op fails as a trapped engine
// would.
type failingOp struct{ op string }

func (f failingOp) Handle(ctx context.Context, in []byte) ([]byte, error) {
	if bytes.Contains(in, []byte(`"op":"`+f.op+`"`)) {
		return nil, errors.New("trap")
	}
	return askcore.Native{}.Handle(ctx, in)
}

// TestPickerProviderHostileText: what the model wrote reaches the picker
// only as the core sanitized it: no escape sequence, control or bidi
// control of the model's on the terminal, in the frame or the summary.
func TestPickerProviderHostileText(t *testing.T) {
	question := `{"header":` + jsonString(hostileText("Head")) + `,"question":` + jsonString(hostileText("Question?")) +
		`,"options":[{"label":` + jsonString(hostileText("One")) + `,"description":` + jsonString(hostileText("first\nline two")) +
		`,"recommended":true},{"label":` + jsonString(hostileText("Two")) + `}],"allowCustom":true}`
	h := newPickHarness(t, native)
	ch := h.ask(context.Background(), question)
	h.f.screen.waitFor(t, "Question?", "OVERWRITE")
	h.f.keys.typ("\r")
	answered(t, ch)
	out := h.f.screen.String()
	// The picker's own controls: cursor moves, clears, modes; no SGR
	// without colour.
	own := regexp.MustCompile(`\x1b\[(\d*[ABJK]|\?25[lh]|\?2004[lh])|\x1b[78]|\r`)
	rest := own.ReplaceAllString(out, "")
	for _, bad := range append(hostile, "\x1b", "\u202c") {
		assert.NotContains(t, rest, bad, "%q reached the terminal:\n%q", bad, out)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
