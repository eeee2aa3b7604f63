package termui

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/askcore/askcore"
)

// The keyboard picker (docs/SPEC.md, "Keyboard picker"). Design notes: PICKER.md.

var (
	// ErrDeclined: the person pressed Esc (the host reports ASK_DECLINED).
	ErrDeclined = errors.New("termui: the person declined to answer (Esc)")
	// ErrInterrupted: the person pressed Ctrl-C (the host reports
	// ASK_ABORTED).
	ErrInterrupted = errors.New("termui: the person dismissed the question (Ctrl-C)")
)

// escWait is how long a lone ESC byte waits for the rest of an escape
// sequence before it counts as the Esc key. Terminals write a key's
// sequence in one go, so this only delays Esc itself.
const escWait = 50 * time.Millisecond

// Terminal is where a picker runs: the input owner, the output, and the
// terminal's controls. NewTerminal fills it for a real terminal; tests set
// the functions they need.
type Terminal struct {
	// In owns the input; the picker takes key bytes from it and leaves
	// the rest for the next reader.
	In *Lines
	// Out is where the picker draws: the SyncWriter every other writer to
	// this terminal goes through too, so their output goes above the
	// picker (see SyncWriter).
	Out *SyncWriter
	// Style: colour only when allowed (never when NO_COLOR is set).
	Style Style
	// MakeRaw puts the input terminal in raw mode and returns what
	// restores it; nil: leave the mode alone.
	MakeRaw func() (restore func() error, err error)
	// Pending, called right after MakeRaw, says how many bytes typed
	// before the picker showed the terminal still holds; nil: none.
	Pending func() int
	// Size reports the output terminal's columns and rows; nil or an
	// error: 80x24.
	Size func() (cols, rows int, err error)
	// WatchResize, when set, reports size changes until stop is called;
	// the size is also asked again before every frame.
	WatchResize func() (changes <-chan struct{}, stop func())
}

// NewTerminal returns the Terminal for a real one: in reads from inFile
// (the terminal put in raw mode while a picker runs), out draws on outFile
// (whose size is the picker's; stdin's when outFile is not a terminal).
func NewTerminal(in *Lines, inFile *os.File, out *SyncWriter, outFile *os.File, st Style) Terminal {
	inFd := fdOf(inFile)
	sizeFd := inFd
	if IsTerminal(outFile) {
		sizeFd = fdOf(outFile)
	}
	return Terminal{
		In:          in,
		Out:         out,
		Style:       st,
		MakeRaw:     func() (func() error, error) { return makeRaw(inFd) },
		Pending:     func() int { return pendingInput(inFd) },
		Size:        func() (int, int, error) { return term.GetSize(sizeFd) },
		WatchResize: watchResize,
	}
}

// TerminalInput returns the file a keyboard picker's Lines should read
// from for the terminal f, and what releases it. On Linux it is a new open
// file of the same terminal, read without blocking in the kernel (the Go
// runtime waits for input instead): a read the kernel started while the
// picker had the terminal raw would keep raw mode's rules after the picker
// gave the terminal back, and an end of input (Ctrl-D) typed next at a
// line prompt would be lost. Its O_NONBLOCK is its own: f's open file,
// shared with the shell, is untouched. Elsewhere, and when the terminal
// cannot be opened again, it is f itself (and done does nothing).
func TerminalInput(f *os.File) (in *os.File, done func()) {
	g, err := reopenTerminal(f)
	if err != nil {
		return f, func() {}
	}
	return g, func() { _ = g.Close() }
}

// Picker asks the questions of one layout with the keyboard:
//
//	p := termui.NewPicker(t, layout)
//	picks, err := p.Run(ctx, check) // the picker stays on screen
//	... the host resolves picks with the core, asks for the summary ...
//	p.Done(summary)                  // the picker gives way to that line
//
// Always call Done once Run returned (with "" to just erase the picker).
type Picker struct {
	t  Terminal
	st *pickerState

	// Drawn state, guarded by t.Out's lock.
	drawn  []string // the lines on screen
	cols   int
	active bool // drawn and attached as the overlay

	firstPaint time.Duration
	doneOnce   sync.Once
	escWait    time.Duration // how long a lone ESC waits: the const, longer in a test that splits a sequence
}

// NewPicker prepares a picker for layout (see Layout.Validate).
func NewPicker(t Terminal, layout Layout) (*Picker, error) {
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	return &Picker{t: t, st: newPickerState(&layout), escWait: escWait}, nil
}

// EndPicker wraps an error a check function returns to end Run with it
// (for example when the core cannot be reached), instead of showing its
// message and staying on the question.
func EndPicker(err error) error { return endPicker{err} }

type endPicker struct{ err error }

func (e endPicker) Error() string { return e.err.Error() }
func (e endPicker) Unwrap() error { return e.err }

// Run shows the picker and reads keys until every question is confirmed
// (it returns one Pick per question, in question order), or the person
// leaves: Esc returns ErrDeclined, Ctrl-C ErrInterrupted; a done ctx
// returns its cause; the end of the input its error (io.EOF).
//
// check (nil: accept every pick) is called on Enter with the question's
// index and pick: nil accepts it (the picker goes on to the next question
// not confirmed yet, or returns once none is left); an error is shown
// under the question (an *askcore.Error by its message) and the person
// stays on it; an error wrapped by EndPicker ends Run with that error.
//
// Run is called once per Picker. The terminal is raw only while Run runs.
// Keys typed before the picker showed are not applied to it; they and the
// keys typed after the last one Run used stay in t.In for the next reader.
// The picker stays on screen when Run returns, until Done.
func (p *Picker) Run(ctx context.Context, check func(ctx context.Context, question int, pick askcore.Pick) error) ([]askcore.Pick, error) {
	start := time.Now()
	if check == nil {
		check = func(context.Context, int, askcore.Pick) error { return nil }
	}
	in := p.t.In
	// Keys typed before the picker showed (a prompt typed ahead while the
	// model was busy, an Enter pressed twice) must not answer a question
	// the person has not seen: they are set aside, and given back to the
	// next reader of the input, in front, when Run returns.
	early := in.takeAll()
	defer func() { in.unread(early) }()
	if p.t.MakeRaw != nil {
		restore, err := p.t.MakeRaw()
		if err != nil {
			return nil, err
		}
		in.sawRaw()
		defer func() { _ = restore() }()
	}
	earlyLeft := 0 // typed before, still in the terminal
	if p.t.Pending != nil {
		earlyLeft = p.t.Pending()
	}
	var resized <-chan struct{}
	if p.t.WatchResize != nil {
		ch, stop := p.t.WatchResize()
		resized = ch
		defer stop()
	}
	if err := p.paint(true); err != nil {
		return nil, err
	}
	p.firstPaint = time.Since(start)
	// Leave the terminal as it was (cursor shown, no bracketed paste); the
	// frame stays until Done.
	defer p.t.Out.draw(func(*overlay) string { return modesOff })

	var escTimer *time.Timer
	var escFired <-chan time.Time
	stopTimer := func() {
		if escTimer != nil {
			escTimer.Stop()
			escTimer, escFired = nil, nil
		}
	}
	defer stopTimer()
	final := false // the bytes left are all that will come in time
	for {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		b, rerr := in.peekBytes()
		if n := min(earlyLeft, len(b)); n > 0 {
			early = append(early, b[:n]...)
			in.discard(n)
			b, earlyLeft = b[n:], earlyLeft-n
		}
		if rerr != nil {
			final = true
		}
		dirty := false
		for len(b) > 0 {
			k, n := decodeKey(b, final)
			if n == 0 {
				break
			}
			b = b[n:]
			in.discard(n)
			switch p.st.apply(k, p.pageSize()) {
			case actRedraw:
				dirty = true
			case actDecline:
				return nil, ErrDeclined
			case actInterrupt:
				return nil, ErrInterrupted
			case actConfirm:
				if dirty {
					if err := p.paint(false); err != nil {
						return nil, err
					}
					dirty = false
				}
				i := p.st.cur
				err := check(ctx, i, p.st.pick(i))
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				var end endPicker
				switch {
				case errors.As(err, &end):
					return nil, end.err
				case err != nil:
					p.st.reject(checkMessage(err))
				case p.st.accept():
					return p.st.picks(), nil
				}
				dirty = true
			}
		}
		final = false
		if dirty {
			if err := p.paint(false); err != nil {
				return nil, err
			}
		}
		if len(b) == 0 {
			stopTimer()
			if rerr != nil {
				return nil, rerr
			}
		} else if escTimer == nil {
			escTimer = time.NewTimer(p.escWait)
			escFired = escTimer.C
		}
		select {
		case <-in.await(len(b)):
		case <-escFired:
			escTimer, escFired = nil, nil
			final = true
		case <-resized:
			if err := p.paint(false); err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-in.closed():
			return nil, ErrClosed
		}
	}
}

// checkMessage is what the picker shows for a rejected Enter.
func checkMessage(err error) string {
	var he *askcore.Error
	if errors.As(err, &he) {
		return he.Message
	}
	return err.Error()
}

// FirstPaint is how long Run took from its start to the first frame
// written (raw mode, size, layout and the write included).
func (p *Picker) FirstPaint() time.Duration { return p.firstPaint }

// Done ends the picker: it erases the frame and leaves line in its place
// (the summary of the answer, or what the host shows after Esc or Ctrl-C;
// "" leaves nothing). Other output then goes on below. Call it once Run
// returned; later calls do nothing.
func (p *Picker) Done(line string) {
	p.doneOnce.Do(func() {
		_ = p.t.Out.draw(func(ov *overlay) string {
			var sb strings.Builder
			if p.active {
				sb.WriteString(p.erase())
				p.active = false
				p.drawn = nil
				if *ov == overlay(p) {
					*ov = nil
				}
			}
			if line = strings.TrimRight(line, "\n"); line != "" {
				for l := range strings.SplitSeq(line, "\n") {
					sb.WriteString(p.t.Style.Dim(cleanText(l)) + "\n")
				}
			}
			return sb.String()
		})
	})
}

const (
	modesOn  = "\x1b[?25l\x1b[?2004h" // hide the cursor, bracketed paste on
	modesOff = "\x1b[?2004l\x1b[?25h"
)

// size is the terminal's size now.
func (p *Picker) size() (int, int) {
	if p.t.Size != nil {
		if c, r, err := p.t.Size(); err == nil && c > 0 && r > 0 {
			return c, r
		}
	}
	return 80, 24
}

func (p *Picker) pageSize() int {
	return max(p.st.page-1, 1)
}

// paint draws the current state in place of the previous frame (first:
// the first frame, which also attaches the picker as the overlay).
func (p *Picker) paint(first bool) error {
	cols, rows := p.size()
	f := p.st.render(cols, rows, p.t.Style)
	p.st.page = f.page
	return p.t.Out.draw(func(ov *overlay) string {
		var sb strings.Builder
		if first {
			sb.WriteString(modesOn)
			*ov = p
		}
		p.drawn, p.cols, p.active = f.lines, cols, true
		sb.WriteString(p.redraw())
		return sb.String()
	})
}

// erase (overlay) erases the frame. The cursor is parked at its first
// line, column 0: that line is cleared, and everything below from the next
// line on (also what a resize reflowed there). The clear to the end of the
// screen never starts at the top-left corner, where tmux would first copy
// the whole screen into the scrollback.
func (p *Picker) erase() string { return "\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8" }

// redraw (overlay) draws the frame from the cursor's line, each line
// clearing what was left of the previous frame on it, then clears what is
// below (from the end of the last line: never the top-left corner), and
// parks the cursor back at the first line.
func (p *Picker) redraw() string {
	if len(p.drawn) == 0 {
		return ""
	}
	var sb strings.Builder
	for i, l := range p.drawn {
		if i > 0 {
			sb.WriteString("\r\n")
		} else {
			sb.WriteString("\r")
		}
		sb.WriteString("\x1b[2K")
		sb.WriteString(l)
	}
	sb.WriteString("\x1b[J")
	if n := len(p.drawn) - 1; n > 0 {
		sb.WriteString("\x1b[" + strconv.Itoa(n) + "A")
	}
	sb.WriteString("\r")
	return sb.String()
}
