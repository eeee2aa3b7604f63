// Package termui is the terminal side of askcore: a line reader that owns
// stdin, the keyboard picker, and the provider that asks a person on a
// terminal or through a pipe.
//
// Every rule and every text comes from the core. With the keyboard picker
// (contract section 9; Config.Picker, set when the core's terminal op says
// so), the provider draws the core's picker op layout for the whole call
// (PICKER.md), has the core's resolve op check each question's pick on
// Enter (an INVALID_ANSWER message is shown under the question), resolves
// the call from the picks, and leaves "→ " and the core's summary in place
// of the picker. Esc is the core's declined situation (ASK_DECLINED),
// Ctrl-C its interrupted one (ASK_ABORTED), and the picker leaves the
// layout's declined or interrupted line.
//
// In line mode (contract sections 4 and 7: pipes, TERM=dumb, --plain, the
// screen-reader mode) the provider asks the questions of a call one after
// another: it prints the core's present text for question i as it is (a
// batch's starts with "Question i of n"; options numbered in display order,
// recommended first, each description on the next line) and hands each
// typed line to the core's resolve op for question i (empty line = the
// recommended option(s), number, label or value, free text; for a
// multi-select question, comma-separated choices). An INVALID_ANSWER from
// resolve is printed as the re-prompt and the question is asked again; a
// line that resolves is echoed as "→ " and the core's summary of it. Once
// every question has its line, resolve with all the lines writes the
// answer the model receives.
//
// Calls are served one at a time in arrival order (a batch keeps the turn
// for all its questions), so only one prompt owns the input. A pending
// call (asking or queued) fails whole with ASK_ABORTED when its ctx is
// done (abort, session end, provider disposed by the interaction service),
// when the provider is closed, when the person interrupts it (Interrupt,
// wired to Ctrl-C by the front door; Ctrl-C typed in the picker), and when
// the input ends (EOF). Every error is the core's: the fail op writes the
// situations.
package termui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

// Config sets up a Provider.
type Config struct {
	// Client runs the core's present, resolve, summary and fail ops.
	Client engine.Client
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
	// Picker, when set, is the terminal the keyboard picker (contract
	// section 9) answers calls on: the front door sets it when the core's
	// terminal op says so (core.TerminalMode.Picker). Its In must be Lines
	// and its Out the SyncWriter every other writer to that terminal goes
	// through. Nil: line mode, on Lines and Out.
	Picker *Terminal
}

// Provider is the terminal interaction.Provider.
type Provider struct {
	cfg Config
	q   queue

	closed      context.Context
	closeCancel context.CancelCauseFunc

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
	return &Provider{cfg: cfg, closed: ctx, closeCancel: cancel}
}

// Close rejects every pending call with ASK_ABORTED, and every later one,
// and returns once none is in Ask any more: a picker on screen has been
// erased and the terminal's mode restored. It does not close the Lines.
func (p *Provider) Close() {
	p.closeCancel(errProviderClosed)
	p.inAsk.Lock()
	p.inAsk.Unlock()
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

// Ask asks q's questions in turn and returns the core's answer to the
// whole call.
func (p *Provider) Ask(ctx context.Context, q interaction.Question) (engine.Result, error) {
	p.inAsk.RLock()
	defer p.inAsk.RUnlock()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(p.closed, func() { cancel(context.Cause(p.closed)) })
	defer stop()

	if err := p.q.acquire(ctx); err != nil {
		return engine.Result{}, p.abortError(ctx, nil)
	}
	defer p.q.release()
	p.setActive(cancel)
	defer p.setActive(nil)

	if p.cfg.Picker != nil {
		return p.askPicker(ctx, q)
	}
	return p.askLines(ctx, q)
}

// askPicker asks every question of q with the keyboard picker and has the
// core answer the call from the picks.
func (p *Provider) askPicker(ctx context.Context, q interaction.Question) (engine.Result, error) {
	c := p.cfg.Client
	raw, err := c.Picker(ctx, q.Raw)
	if err != nil {
		return engine.Result{}, p.coreError(ctx, err)
	}
	layout, err := DecodeLayout(raw)
	if err != nil {
		return engine.Result{}, &engine.HostError{Err: err}
	}
	pk, err := NewPicker(*p.cfg.Picker, layout)
	if err != nil {
		return engine.Result{}, &engine.HostError{Err: err}
	}
	picks, err := pk.Run(ctx, func(ctx context.Context, i int, pick Pick) error {
		_, err := c.Resolve(ctx, q.Raw, i, pickInput(pick))
		var he *core.HarnessError
		if err == nil || errors.As(err, &he) && he.Code == core.CodeInvalidAnswer {
			return err // nil, or the core's message for the person
		}
		return EndPicker(err)
	})
	if err != nil {
		var line string
		var ferr error
		var he *core.HarnessError
		var host *engine.HostError
		switch {
		case errors.Is(err, ErrDeclined):
			line, ferr = layout.Declined, c.Fail(ctx, core.Failure{Situation: core.SituationDeclined})
		case errors.Is(err, ErrInterrupted):
			line, ferr = layout.Interrupted, c.Fail(ctx, core.Failure{Situation: core.SituationInterrupted})
		case errors.As(err, &host), errors.As(err, &he):
			ferr = p.coreError(ctx, err) // from check: the core could not judge the pick
		default:
			// ctx (Interrupt: Ctrl-C as a signal), the input's end or
			// failure, the terminal's failure.
			if errors.Is(context.Cause(ctx), errInterrupted) {
				line = layout.Interrupted
			}
			ferr = p.abortError(ctx, err)
		}
		pk.Done(line)
		return engine.Result{}, ferr
	}
	inputs := make([]engine.Input, len(picks))
	for i, pick := range picks {
		inputs[i] = pickInput(pick)
	}
	res, err := c.ResolveAll(ctx, q.Raw, inputs)
	if err != nil {
		pk.Done("")
		return engine.Result{}, p.coreError(ctx, err)
	}
	summary, err := c.Summary(ctx, q.Raw, res.Raw)
	if err != nil {
		pk.Done("")
		return engine.Result{}, p.coreError(ctx, err)
	}
	// One line per question: each an echo line, as in line mode.
	pk.Done("→ " + strings.ReplaceAll(summary, "\n", "\n→ "))
	return res, nil
}

func pickInput(p Pick) engine.Input {
	return engine.Input{Pick: &core.Pick{Options: p.Options, Text: p.Text}}
}

// askLines asks each question of q until a typed line resolves, then has
// the core answer the call from those lines.
func (p *Provider) askLines(ctx context.Context, q interaction.Question) (engine.Result, error) {
	inputs := make([]engine.Input, len(q.Questions))
	for i := range inputs {
		line, err := p.askOne(ctx, q.Raw, i)
		if err != nil {
			return engine.Result{}, err
		}
		inputs[i] = engine.Input{Line: line}
	}
	res, err := p.cfg.Client.ResolveAll(ctx, q.Raw, inputs)
	if err != nil {
		return engine.Result{}, p.coreError(ctx, err)
	}
	return res, nil
}

// askOne shows question i and reads lines until one resolves; it returns
// that line.
func (p *Provider) askOne(ctx context.Context, call json.RawMessage, i int) (string, error) {
	c := p.cfg.Client
	pres, err := c.Present(ctx, call, i)
	if err != nil {
		return "", p.coreError(ctx, err)
	}
	st := p.cfg.Style
	p.write("\n" + st.Rule() + "\n" + strings.TrimRight(pres.Text, "\n") + "\n")
	for {
		p.write(st.Prompt("? "))
		line, err := p.cfg.Lines.Next(ctx)
		if err != nil {
			note := "(question aborted)"
			if errors.Is(err, io.EOF) {
				note = "(input ended: question aborted)"
			}
			// On a terminal, ^C leaves the cursor after the prompt.
			p.write("\n" + st.Dim(note) + "\n")
			return "", p.abortError(ctx, err)
		}
		if !p.cfg.Echoed {
			p.write("\n")
		}
		res, err := c.Resolve(ctx, call, i, engine.Input{Line: line})
		var he *core.HarnessError
		if errors.As(err, &he) && he.Code == core.CodeInvalidAnswer {
			p.write(st.Warn(he.Message) + "\n")
			continue
		}
		if err != nil {
			return "", p.coreError(ctx, err)
		}
		summary, err := c.SummaryOf(ctx, call, i, res.Raw)
		if err != nil {
			return "", p.coreError(ctx, err)
		}
		p.write(st.Dim("→ "+summary) + "\n")
		return line, nil
	}
}

func (p *Provider) setActive(c context.CancelCauseFunc) {
	p.mu.Lock()
	p.active = c
	p.mu.Unlock()
}

func (p *Provider) write(s string) { _, _ = io.WriteString(p.cfg.Out, s) }

// coreError passes on an error of a core call, unless the call ended
// because the ask did: then it says why.
func (p *Provider) coreError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return p.abortError(ctx, nil)
	}
	return err
}

// abortError is the core's error for why a call ended without an answer:
// the provider's own reasons (Ctrl-C, closed, the input's end or failure).
// When the ask's own ctx (the interaction service's) is done, the service
// reports its reason whatever this returns.
func (p *Provider) abortError(ctx context.Context, readErr error) *core.HarnessError {
	f := core.Failure{Situation: core.SituationAborted}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errInterrupted):
		f.Situation = core.SituationInterrupted
	case errors.Is(cause, errProviderClosed):
		f.Situation = core.SituationWithdrawn
	case ctx.Err() != nil:
	case errors.Is(readErr, io.EOF):
		f.Situation = core.SituationEOF
	case errors.Is(readErr, ErrClosed):
		f.Situation = core.SituationInputClosed
	case readErr != nil:
		f.Situation, f.Detail = core.SituationReadFailed, readErr.Error()
	}
	return p.cfg.Client.Fail(ctx, f)
}
