// Package termui is the terminal side of askcore: a line reader that owns
// stdin, the keyboard picker, and the provider that asks a person on a
// terminal or through a pipe.
//
// Open gives the provider ready to register on an askcore.Service, on the
// process's terminal (stdin and stderr) or on the readers and writers its
// options name, in the mode the core's terminal op chooses:
//
//	prov, err := termui.Open(ctx, svc.Core())
//	defer prov.Close()
//	dispose, err := svc.Register(prov)
//
// Every rule and every word comes from the core. The keyboard picker
// (Config.Picker) draws the core's picker layout for the whole call, with
// the preview of the option under the cursor and a notes line (Ctrl-N), has
// the core check each pick on Enter (Call.CheckPick) and hands the picks
// back; Esc declines, Ctrl-C interrupts. Line mode (pipes, TERM=dumb,
// --plain, the screen-reader mode) prints the core's present text for each
// question, has the core judge each typed line (Call.CheckLine: an
// INVALID_ANSWER is the re-prompt) and hands the lines back. The seam has
// the core write the answer the model receives. docs/SPEC.md ("Typed lines
// and picks", "Keyboard picker") states the rules, PICKER.md the picker's
// design.
//
// Calls are served one at a time in arrival order (a batch keeps the turn
// for all its questions), so only one prompt owns the input. A pending call
// fails whole when its ctx is done, when the provider is closed, when the
// person interrupts it (Interrupt, wired to Ctrl-C by the front door) and
// when the input ends: the provider prints the core's message and returns
// the situation (an askcore.Failure), which the core words for the model.
package termui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/askcore/askcore"
)

// Config sets up a Provider (Open sets one up for the common case).
type Config struct {
	// Lines is the input. The provider takes lines from it only while a
	// call owns the turn.
	Lines *Lines
	// Out is where questions are shown. Wrap a writer shared with other
	// output in a SyncWriter.
	Out io.Writer
	// Style decorates the question block (colour only when the core's
	// terminal op allows it).
	Style Style
	// Echoed says the input is a terminal that echoes what the person
	// types, newline included. When false (a pipe), the provider ends the
	// prompt line itself so the output stays one item per line.
	Echoed bool
	// Picker, when set, is the terminal the keyboard picker answers calls
	// on: set it when the core's terminal op says so
	// (askcore.TerminalMode.Picker). Its In must be Lines and its Out the
	// SyncWriter every other writer to that terminal goes through. Nil:
	// line mode, on Lines and Out.
	Picker *Terminal
}

// Provider is the terminal askcore.Provider.
type Provider struct {
	cfg Config
	q   queue

	closed      context.Context
	closeCancel context.CancelCauseFunc
	release     func() // what Open set up, released by Close

	mu     sync.Mutex
	active context.CancelCauseFunc // cancels the call owning the turn

	// inAsk is read-held by every call in Ask; Close takes it to wait for
	// them (a call arriving meanwhile fails at once: the provider is
	// closed).
	inAsk sync.RWMutex
}

var (
	errInterrupted    = errors.New("interrupted")
	errProviderClosed = errors.New("provider closed")
)

// NewProvider returns a provider asking through cfg.
func NewProvider(cfg Config) *Provider {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Provider{cfg: cfg, closed: ctx, closeCancel: cancel, release: func() {}}
}

// Close rejects every pending call with ASK_ABORTED, and every later one,
// and returns once none is in Ask any more: a picker on screen has been
// erased and the terminal's mode restored. It releases what Open set up
// (not the Lines of a Config of your own). Calling it again does nothing.
func (p *Provider) Close() {
	p.closeCancel(errProviderClosed)
	// Taking the write lock waits for every call still in Ask (each holds
	// it for reading) to return.
	p.inAsk.Lock()
	//lint:ignore SA2001 the empty critical section is the wait for the calls in Ask
	p.inAsk.Unlock()
	p.mu.Lock()
	release := p.release
	p.release = func() {}
	p.mu.Unlock()
	release()
}

// Interrupt aborts the call that owns the terminal, all its questions
// (queued calls keep their place), and reports whether there was one. The
// front door calls it on Ctrl-C.
func (p *Provider) Interrupt() bool {
	p.mu.Lock()
	cancel := p.active
	p.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(errInterrupted)
	return true
}

// Ask asks call's questions in turn and returns what the person gave.
func (p *Provider) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	p.inAsk.RLock()
	defer p.inAsk.RUnlock()
	if p.closed.Err() != nil {
		// Closed already: fail at once, before showing anything. (The
		// AfterFunc below cancels from a goroutine of its own, and Close
		// may have closed the input Open set up: the read would fail
		// first, as the input closed.)
		return askcore.Reply{}, abortFailure(p.closed, nil)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(p.closed, func() { cancel(context.Cause(p.closed)) })
	defer stop()

	if err := p.q.acquire(ctx); err != nil {
		return askcore.Reply{}, abortFailure(ctx, nil)
	}
	defer p.q.release()
	p.setActive(cancel)
	defer p.setActive(nil)

	if p.cfg.Picker != nil {
		return p.askPicker(ctx, call)
	}
	return p.askLines(ctx, call)
}

// askPicker asks every question of call with the keyboard picker and has
// the core answer the call from the picks.
func (p *Provider) askPicker(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	raw, err := call.Picker(ctx)
	if err != nil {
		return askcore.Reply{}, coreError(ctx, err)
	}
	layout, err := DecodeLayout(raw)
	if err != nil {
		return askcore.Reply{}, &askcore.EngineError{Err: err}
	}
	pk, err := NewPicker(*p.cfg.Picker, layout)
	if err != nil {
		return askcore.Reply{}, &askcore.EngineError{Err: err}
	}
	picks, err := pk.Run(ctx, func(ctx context.Context, i int, pick askcore.Pick) error {
		_, err := call.CheckPick(ctx, i, pick)
		var e *askcore.Error
		if err == nil || errors.As(err, &e) && e.Code == askcore.CodeInvalidAnswer {
			return err // nil, or the core's message for the person
		}
		return EndPicker(err)
	})
	if err != nil {
		var e *askcore.Error
		var ee *askcore.EngineError
		words, withdrawn := withdrawnWords(ctx)
		switch {
		case withdrawn:
			pk.Done(words)
			return askcore.Reply{}, abortFailure(ctx, err)
		case errors.Is(err, ErrDeclined):
			pk.Done(layout.Declined)
			return askcore.Decline(), nil
		case errors.Is(err, ErrInterrupted):
			pk.Done(layout.Interrupted)
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationInterrupted}
		case errors.As(err, &ee), errors.As(err, &e):
			pk.Done("")
			return askcore.Reply{}, coreError(ctx, err) // the core could not judge the pick
		}
		// ctx (Interrupt: Ctrl-C as a signal), the input's end or failure,
		// the terminal's failure.
		line := ""
		if errors.Is(context.Cause(ctx), errInterrupted) {
			line = layout.Interrupted
		}
		pk.Done(line)
		return askcore.Reply{}, abortFailure(ctx, err)
	}
	answer, err := call.Resolve(ctx, askcore.Picks(picks...))
	if err != nil {
		pk.Done("")
		return askcore.Reply{}, coreError(ctx, err)
	}
	summary, err := call.Summary(ctx, answer)
	if err != nil {
		pk.Done("")
		return askcore.Reply{}, coreError(ctx, err)
	}
	// One line per question: each an echo line, as in line mode.
	pk.Done("→ " + strings.ReplaceAll(summary, "\n", "\n→ "))
	return askcore.Answered(answer), nil
}

// askLines asks each question of call until a typed line fits, then hands
// the lines back for the seam to resolve.
func (p *Provider) askLines(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	lines := make([]string, len(call.Questions))
	for i := range lines {
		line, err := p.askOne(ctx, call, i)
		if err != nil {
			return askcore.Reply{}, err
		}
		lines[i] = line
	}
	return askcore.Lines(lines...), nil
}

// askOne shows question i and reads lines until one fits; it returns that
// line.
func (p *Provider) askOne(ctx context.Context, call *askcore.Call, i int) (string, error) {
	pres, err := call.Present(ctx, i)
	if err != nil {
		return "", coreError(ctx, err)
	}
	st := p.cfg.Style
	p.write("\n" + st.Rule() + "\n" + strings.TrimRight(pres.Text, "\n") + "\n")
	for {
		p.write(st.Prompt("? "))
		line, err := p.cfg.Lines.Next(ctx)
		if err != nil {
			f := abortFailure(ctx, err)
			// The core's words for why the question ended (on a terminal,
			// ^C leaves the cursor after the prompt).
			words, ok := withdrawnWords(ctx)
			if !ok {
				words = call.Core().Fail(ctx, f).Message
			}
			p.write("\n" + st.Dim(words) + "\n")
			return "", f
		}
		if !p.cfg.Echoed {
			p.write("\n")
		}
		summary, err := call.CheckLine(ctx, i, line)
		var e *askcore.Error
		if errors.As(err, &e) && e.Code == askcore.CodeInvalidAnswer {
			p.write(st.Warn(e.Message) + "\n")
			continue
		}
		if err != nil {
			return "", coreError(ctx, err)
		}
		p.write(st.Dim("→ "+summary) + "\n")
		return line, nil
	}
}

// Notice shows text to the person on a line of its own (above a picker on
// screen; in line mode, the prompt is written again below it): what
// happens elsewhere while the terminal asks, such as a hub that cannot be
// reached (frontdoor.Noticer).
func (p *Provider) Notice(text string) {
	st := p.cfg.Style
	p.mu.Lock()
	asking := p.active != nil
	p.mu.Unlock()
	if p.cfg.Picker != nil || !asking {
		p.write(st.Dim(text) + "\n")
		return
	}
	p.write("\n" + st.Dim(text) + "\n" + st.Prompt("? "))
}

func (p *Provider) setActive(c context.CancelCauseFunc) {
	p.mu.Lock()
	p.active = c
	p.mu.Unlock()
}

func (p *Provider) write(s string) { _, _ = io.WriteString(p.cfg.Out, s) }

// coreError passes on an error of a core call, unless the call ended
// because the ask did: then it says why.
func coreError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return abortFailure(ctx, nil)
	}
	return err
}

// withdrawnWords are the core's words for a question withdrawn because
// another surface ended it (askcore.FirstReply cancels the others with
// the core's answered_elsewhere error as the cause): what the terminal
// leaves in place of the question.
func withdrawnWords(ctx context.Context) (string, bool) {
	var e *askcore.Error
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &e) {
		return "", false
	}
	return e.Message, true
}

// abortFailure is why a call ended without an answer: the provider's own
// reasons (Ctrl-C, closed, the input's end or failure). When the ask's own
// ctx (the service's) is done, the service reports its reason whatever
// this returns.
func abortFailure(ctx context.Context, readErr error) askcore.Failure {
	f := askcore.Failure{Situation: askcore.SituationAborted}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errInterrupted):
		f.Situation = askcore.SituationInterrupted
	case errors.Is(cause, errProviderClosed):
		f.Situation = askcore.SituationWithdrawn
	case ctx.Err() != nil:
	case errors.Is(readErr, io.EOF):
		f.Situation = askcore.SituationEOF
	case errors.Is(readErr, ErrClosed):
		f.Situation = askcore.SituationInputClosed
	case readErr != nil:
		f.Situation, f.Detail = askcore.SituationReadFailed, readErr.Error()
	}
	return f
}
