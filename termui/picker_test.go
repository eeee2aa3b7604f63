package termui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
)

// feed is a keyboard: what a test types arrives as one read, like a
// terminal delivers a key's bytes; Close is the end of the input.
type feed struct {
	ch   chan []byte
	rest []byte
	once sync.Once
}

func newFeed() *feed { return &feed{ch: make(chan []byte, 64)} }

func (f *feed) Read(p []byte) (int, error) {
	if len(f.rest) == 0 {
		b, ok := <-f.ch
		if !ok {
			return 0, io.EOF
		}
		f.rest = b
	}
	n := copy(p, f.rest)
	f.rest = f.rest[n:]
	return n, nil
}

func (f *feed) typ(s string) { f.ch <- []byte(s) }
func (f *feed) Close()       { f.once.Do(func() { close(f.ch) }) }

// screen records what is written, and tells waiters.
type screen struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until what was written contains every text.
func (s *screen) waitFor(t *testing.T, texts ...string) string {
	t.Helper()
	deadline := time.After(patience)
	for {
		s.mu.Lock()
		out, ch := s.b.String(), s.changed
		s.mu.Unlock()
		ok := true
		for _, x := range texts {
			ok = ok && strings.Contains(out, x)
		}
		if ok {
			return out
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %q; written:\n%q", texts, out)
		}
	}
}

type fakeTerm struct {
	keys   *feed
	lines  *Lines
	screen *screen
	term   Terminal

	mu         sync.Mutex
	cols, rows int
	raw        int // MakeRaw calls not restored yet
	resized    chan struct{}
}

func newFakeTerm(t *testing.T, cols, rows int) *fakeTerm {
	f := &fakeTerm{keys: newFeed(), screen: newScreen(), cols: cols, rows: rows, resized: make(chan struct{}, 1)}
	f.lines = NewLines(f.keys)
	f.term = Terminal{
		In:  f.lines,
		Out: NewSyncWriter(f.screen),
		MakeRaw: func() (func() error, error) {
			f.mu.Lock()
			f.raw++
			f.mu.Unlock()
			return func() error {
				f.mu.Lock()
				f.raw--
				f.mu.Unlock()
				return nil
			}, nil
		},
		Size: func() (int, int, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.cols, f.rows, nil
		},
		WatchResize: func() (<-chan struct{}, func()) { return f.resized, func() {} },
	}
	t.Cleanup(func() {
		f.lines.Close()
		f.keys.Close()
		<-f.lines.Done()
	})
	return f
}

func (f *fakeTerm) resize(cols, rows int) {
	f.mu.Lock()
	f.cols, f.rows = cols, rows
	f.mu.Unlock()
	f.resized <- struct{}{}
}

func (f *fakeTerm) rawNow() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.raw
}

// noLeaks checks, once the test and its cleanups are done, that no
// goroutine it started is left (the input pump included).
func noLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

type runResult struct {
	picks []askcore.Pick
	err   error
}

// start runs a picker on f in the background.
func (f *fakeTerm) start(t *testing.T, ctx context.Context, layout string, check func(context.Context, int, askcore.Pick) error, opts ...func(*Picker)) (*Picker, <-chan runResult) {
	t.Helper()
	p, err := NewPicker(f.term, mustLayout(t, layout))
	require.NoError(t, err)
	for _, o := range opts {
		o(p)
	}
	if check == nil {
		check = func(context.Context, int, askcore.Pick) error { return nil }
	}
	ch := make(chan runResult, 1)
	go func() {
		picks, err := p.Run(ctx, check)
		ch <- runResult{picks, err}
	}()
	return p, ch
}

func wait(t *testing.T, ch <-chan runResult) runResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(patience):
		t.Fatal("the picker did not return")
		return runResult{}
	}
}

func TestPickerRun(t *testing.T) {
	noLeaks(t)

	t.Run("enter; typed-ahead keys go to the next line reader", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		p, ch := f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "❯ 1. PostgreSQL")
		// Down, Enter, then a line typed ahead while the terminal was
		// still raw (Enter arrives as "\r").
		f.keys.typ("\x1b[B\rhello\r")
		r := wait(t, ch)
		require.NoError(t, r.err)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksJSON(r.picks))
		assert.Zero(t, f.rawNow(), "the terminal is restored when Run returns")
		assert.Greater(t, p.FirstPaint(), time.Duration(0))

		p.Done("→ SQLite")
		out := f.screen.String()
		assert.True(t, strings.HasSuffix(out, "\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8→ SQLite\n"), "%q", out)
		assert.Contains(t, out, modesOn)
		assert.Contains(t, out, modesOff)

		line, err := f.lines.Next(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "hello", line)
	})

	t.Run("keys typed before the picker showed are not applied to it", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		// Read already: a prompt typed ahead while the model was busy.
		f.keys.typ("next prompt\n")
		<-f.lines.await(0)
		// Still in the terminal: an Enter pressed twice.
		f.term.Pending = func() int { return 1 }
		f.keys.typ("\r")
		p, ch := f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "PostgreSQL")
		f.keys.typ("\x1b[B\rafter\r")
		r := wait(t, ch)
		require.NoError(t, r.err)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksJSON(r.picks), "the early Enter did not choose")
		p.Done("")
		for _, want := range []string{"next prompt", "", "after"} {
			line, err := f.lines.Next(context.Background())
			require.NoError(t, err)
			assert.Equal(t, want, line)
		}
	})

	t.Run("esc declines after the escape wait; ctrl-c interrupts", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		p, ch := f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "PostgreSQL")
		f.keys.typ("\x1b")
		assert.ErrorIs(t, wait(t, ch).err, ErrDeclined)
		p.Done("declined")

		p, ch = f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "declined\n"+modesOn) // the second picker is up
		f.keys.typ("\x03more\n")
		assert.ErrorIs(t, wait(t, ch).err, ErrInterrupted)
		p.Done("")
		line, err := f.lines.Next(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "more", line, "keys after Ctrl-C stay in the input")
	})

	t.Run("an escape sequence split across reads is one key", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		// The rest of the sequence may come later than escWait on a
		// loaded machine (the test's goroutines wait for the CPU): what
		// is tested is that the two reads make one key.
		p, ch := f.start(t, context.Background(), layoutSingle, nil, func(p *Picker) { p.escWait = patience })
		f.screen.waitFor(t, "PostgreSQL")
		f.keys.typ("\x1b[")
		f.keys.typ("B")
		f.keys.typ("\r")
		r := wait(t, ch)
		require.NoError(t, r.err)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksJSON(r.picks))
		p.Done("")
	})

	t.Run("ctx done returns its cause", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		ctx, cancel := context.WithCancelCause(context.Background())
		p, ch := f.start(t, ctx, layoutSingle, nil)
		f.screen.waitFor(t, "PostgreSQL")
		cause := errors.New("session cancelled")
		cancel(cause)
		assert.Equal(t, cause, wait(t, ch).err)
		p.Done("")
	})

	t.Run("end of input", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		p, ch := f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "PostgreSQL")
		f.keys.typ("j")
		f.keys.Close()
		assert.ErrorIs(t, wait(t, ch).err, io.EOF)
		p.Done("")
	})

	t.Run("input closed", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		p, ch := f.start(t, context.Background(), layoutSingle, nil)
		f.screen.waitFor(t, "PostgreSQL")
		f.lines.Close()
		assert.ErrorIs(t, wait(t, ch).err, ErrClosed)
		p.Done("")
	})

	t.Run("check: a rejected pick shows the message and stays", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		var calls []string
		check := func(_ context.Context, q int, pk askcore.Pick) error {
			calls = append(calls, fmt.Sprintf("%d:%v:%q", q, pk.Options, pk.Text))
			if pk.Text == "" {
				return &askcore.Error{Name: askcore.ErrorName, Code: askcore.CodeInvalidAnswer, Message: "Type an answer, or press Esc."}
			}
			return nil
		}
		p, ch := f.start(t, context.Background(), layoutText, check)
		f.screen.waitFor(t, "Your name?")
		f.keys.typ("\r")
		f.screen.waitFor(t, "Type an answer, or press Esc.")
		f.keys.typ("Ada\r")
		r := wait(t, ch)
		require.NoError(t, r.err)
		assert.Equal(t, `[{"options":[],"text":"Ada"}]`, picksJSON(r.picks))
		assert.Equal(t, []string{`0:[]:""`, `0:[]:"Ada"`}, calls)
		p.Done("")
	})

	t.Run("check: EndPicker ends Run", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		broken := errors.New("engine fault")
		p, ch := f.start(t, context.Background(), layoutSingle, func(context.Context, int, askcore.Pick) error {
			return EndPicker(broken)
		})
		f.screen.waitFor(t, "PostgreSQL")
		f.keys.typ("\r")
		assert.Equal(t, broken, wait(t, ch).err)
		p.Done("")
	})

	t.Run("batch", func(t *testing.T) {
		f := newFakeTerm(t, 80, 24)
		var qs []int
		p, ch := f.start(t, context.Background(), layoutBatch, func(_ context.Context, q int, _ askcore.Pick) error {
			qs = append(qs, q)
			return nil
		})
		f.screen.waitFor(t, "Question 1 of 3")
		f.keys.typ("\t") // to question 2 without confirming
		f.screen.waitFor(t, "Question 2 of 3")
		f.keys.typ(" \x1b[Z\x1b[B") // toggle Auth, back to question 1, down
		f.keys.typ("\r")            // confirm 1 -> 2 (not confirmed yet)
		f.keys.typ("\r")            // confirm 2 -> 3
		f.keys.typ("Bo\r")          // confirm 3: complete
		r := wait(t, ch)
		require.NoError(t, r.err)
		assert.Equal(t, `[{"options":[1],"text":""},{"options":[0],"text":""},{"options":[],"text":"Bo"}]`, picksJSON(r.picks))
		assert.Equal(t, []int{0, 1, 2}, qs)
		p.Done("→ PostgreSQL\n→ Auth\n→ Bo")
		assert.True(t, strings.HasSuffix(f.screen.String(), "→ PostgreSQL\n→ Auth\n→ Bo\n"))
	})
}

// Output written by others while the picker is up goes above it: erase,
// the text, the picker again; after Done it is plain.
func TestPickerOverlay(t *testing.T) {
	noLeaks(t)
	f := newFakeTerm(t, 80, 24)
	p, ch := f.start(t, context.Background(), layoutSingle, nil)
	f.screen.waitFor(t, "PostgreSQL")
	before := len(f.screen.String())

	_, err := f.term.Out.WriteString("model text without newline")
	require.NoError(t, err)
	out := f.screen.String()[before:]
	assert.True(t, strings.HasPrefix(out, "\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8model text without newline\n\r"), "%q", out)
	assert.Contains(t, out, "❯ 1. PostgreSQL", "the picker is drawn again below the text")
	assert.True(t, strings.HasSuffix(out, "\x1b[6A\r"), "the cursor is parked on the picker's first line: %q", out)

	// A second stream on the same terminal (stderr beside stdout) shares
	// the lock and the picker: its lines go above the picker too.
	stderr := newScreen()
	_, err = f.term.Out.Also(stderr).WriteString("an error line\n")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(stderr.String(), "\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8an error line\n\r"), "%q", stderr.String())
	assert.Contains(t, stderr.String(), "❯ 1. PostgreSQL")

	f.keys.typ("\r")
	require.NoError(t, wait(t, ch).err)
	// Between Run and Done the picker is still on screen and still
	// overlaid.
	before = len(f.screen.String())
	_, _ = f.term.Out.WriteString("late\n")
	assert.Contains(t, f.screen.String()[before:], "PostgreSQL")
	p.Done("→ PostgreSQL")
	p.Done("twice does nothing")
	before = len(f.screen.String())
	_, _ = f.term.Out.WriteString("after\n")
	assert.Equal(t, "after\n", f.screen.String()[before:])
	assert.NotContains(t, f.screen.String(), "twice")
}

// A resize draws the picker again for the new size.
func TestPickerResize(t *testing.T) {
	noLeaks(t)
	f := newFakeTerm(t, 80, 24)
	p, ch := f.start(t, context.Background(), bigLayout(64, false), nil)
	f.screen.waitFor(t, "PostgreSQL 1")
	before := len(f.screen.String())
	f.resize(30, 8)
	out := f.screen.waitFor(t, "↓ ")[before:]
	for _, l := range strings.Split(plainSGR(out), "\r\n") {
		l = strings.TrimPrefix(l, "\r")
		if i := strings.Index(l, "\x1b["); i >= 0 {
			l = l[:i]
		}
		assert.LessOrEqual(t, textWidth(l), 29, "%q", l)
	}
	f.keys.typ("\x1b")
	assert.ErrorIs(t, wait(t, ch).err, ErrDeclined)
	p.Done("")
}

// BenchmarkPickerFirstPaint measures Run's start to its first frame
// written (raw mode, terminal size, the layout drawn, the write), the time
// a picker adds before a person sees the question. The layout is the
// database question of docs/terminal.md's picker example; "64" is the largest question the core
// allows (64 options with descriptions).
func BenchmarkPickerFirstPaint(b *testing.B) {
	for _, bc := range []struct {
		name, layout string
		cols, rows   int
	}{
		{"single", layoutSingle, 80, 24},
		{"64", bigLayout(64, false), 80, 24},
		// Previews: two code layouts beside the list and below it, and the
		// largest the core allows: 64 options, each with a preview of
		// MaxPreviewChars (every preview is wrapped for the first frame).
		{"preview-120x30", layoutPreview, 120, 30},
		{"preview-60x24", layoutPreview, 60, 24},
		{"preview-64x8000-120x40", hugePreviewLayout(), 120, 40},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := mustLayout(b, bc.layout)
			var total time.Duration
			for b.Loop() {
				keys := newFeed()
				lines := NewLines(keys)
				t := Terminal{
					In:      lines,
					Out:     NewSyncWriter(io.Discard),
					MakeRaw: func() (func() error, error) { return func() error { return nil }, nil },
					Size:    func() (int, int, error) { return bc.cols, bc.rows, nil },
				}
				p, err := NewPicker(t, l)
				if err != nil {
					b.Fatal(err)
				}
				keys.typ("\x03")
				if _, err := p.Run(context.Background(), nil); !errors.Is(err, ErrInterrupted) {
					b.Fatal(err)
				}
				p.Done("")
				total += p.FirstPaint()
				lines.Close()
				keys.Close()
				<-lines.Done()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-paint")
		})
	}
}

// BenchmarkPickerPreviewScroll measures a frame after Shift-↓ on a
// 200-line preview, and after ↓ between two of the 64 largest previews:
// what each key costs once the previews are wrapped.
func BenchmarkPickerPreviewScroll(b *testing.B) {
	for _, bc := range []struct {
		name, layout string
		k            key
	}{
		{"200-lines-shift-down", previewLayout(numberedLines(200), false), key{kind: keyShiftDown}},
		{"64x8000-down", hugePreviewLayout(), key{kind: keyDown}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := mustLayout(b, bc.layout)
			s := newPickerState(&l)
			s.render(120, 40, Style{Color: true})
			for b.Loop() {
				if s.apply(bc.k, 5) == actNone {
					s.st().pvTop, s.st().cursor = 0, 0
				}
				s.render(120, 40, Style{Color: true})
			}
		})
	}
}

// hugePreviewLayout has 64 options, each with a preview of the core's
// largest size: 8000 characters in 100 lines of code-like text.
func hugePreviewLayout() string {
	line := strings.Repeat("x := compute(a, b) // 中文 ", 3)
	var p []string
	for len(strings.Join(p, "\n")) < 8000-80 {
		p = append(p, line)
	}
	var es []map[string]any
	for i := range 64 {
		es = append(es, map[string]any{"index": i, "label": fmt.Sprintf("Option %d", i+1), "preview": strings.Join(p, "\n")})
	}
	b, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"question": "Which?", "multiSelect": false, "entries": es, "cursor": 0, "help": "h"}}})
	return withCoreTexts(string(b))
}
