// Package termui is the terminal side of askcore: a line reader that owns
// stdin, and the provider that asks a person on a terminal or through a
// pipe.
//
// Every rule and every text comes from the core. In line mode (contract
// sections 4 and 7) the provider asks the questions of a call one after
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
// wired to Ctrl-C by the front door), and when the input ends (EOF). Every
// error is the core's: the fail op writes the situations.
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
	// Picker is the core's choice of the keyboard picker (contract section
	// 9; core.TerminalMode.Picker from the terminal op), set by the front
	// door. The picker is not plugged in yet: calls are asked in line mode
	// whatever it says (see Provider.Ask).
	Picker bool
}

// Provider is the terminal interaction.Provider.
type Provider struct {
	cfg Config
	q   queue

	closed      context.Context
	closeCancel context.CancelCauseFunc

	mu     sync.Mutex
	active context.CancelCauseFunc // cancels the call owning the turn
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

// Close rejects every pending call with ASK_ABORTED, and every later one.
// It does not close the Lines.
func (p *Provider) Close() { p.closeCancel(errProviderClosed) }

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

// Asking reports whether a call owns the terminal now.
func (p *Provider) Asking() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.active != nil
}

// Ask asks q's questions in turn and returns the core's answer to the
// whole call.
func (p *Provider) Ask(ctx context.Context, q interaction.Question) (engine.Result, error) {
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

	// The keyboard picker goes here, for p.cfg.Picker (the core's
	// terminal op said so). Until it exists, every call is asked in line
	// mode, which is also the mode for pipes, --plain and screen readers.
	return p.askLines(ctx, q)
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
