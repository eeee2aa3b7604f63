// Package termui is the terminal side of askcore: a line reader that owns
// stdin, and the readline provider that asks a person on a terminal or
// through a pipe.
//
// Every rule comes from the core: the provider prints the core's present
// text as it is (options numbered in display order, recommended first, each
// description on the next line), and hands each typed line to the core's
// resolve op (empty line = the first recommended option, number, label or
// value, free text). An INVALID_ANSWER from resolve is printed as the
// re-prompt and the question is asked again.
//
// Questions are served one at a time in arrival order, so only one prompt
// owns the input. A pending question (asking or queued) is rejected with
// ASK_ABORTED when its ctx is done (abort, session end, provider disposed
// by the interaction service), when the provider is closed, when the person
// interrupts it (Interrupt, wired to Ctrl-C by the front door), and when the
// input ends (EOF).
package termui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

// Config sets up a Provider.
type Config struct {
	// Client runs the core's present and resolve ops.
	Client engine.Client
	// Lines is the input. The provider takes lines from it only while a
	// question owns the turn.
	Lines *Lines
	// Out is where questions are shown. Wrap a writer shared with other
	// output in a SyncWriter.
	Out io.Writer
	// Style decorates the question block (colour only on a terminal).
	Style Style
	// Echoed says the input is a terminal that echoes what the person
	// types, newline included. When false (a pipe), the provider ends the
	// prompt line itself so the output stays one item per line.
	Echoed bool
}

// Provider is the readline interaction.Provider.
type Provider struct {
	cfg Config
	q   queue

	closed      context.Context
	closeCancel context.CancelCauseFunc

	mu     sync.Mutex
	active context.CancelCauseFunc // cancels the question owning the turn
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

// Close rejects every pending question with ASK_ABORTED, and every later
// one. It does not close the Lines.
func (p *Provider) Close() { p.closeCancel(errProviderClosed) }

// Interrupt aborts the question that owns the terminal (queued questions
// keep their place) and reports whether there was one. The front door calls
// it on Ctrl-C.
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

// Asking reports whether a question owns the terminal now.
func (p *Provider) Asking() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.active != nil
}

// Ask shows q and returns the core's answer for the first line that
// resolves.
func (p *Provider) Ask(ctx context.Context, q interaction.Question) (engine.Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(p.closed, func() { cancel(context.Cause(p.closed)) })
	defer stop()

	if err := p.q.acquire(ctx); err != nil {
		return engine.Result{}, abortError(ctx, nil)
	}
	defer p.q.release()
	p.setActive(cancel)
	defer p.setActive(nil)

	pres, err := p.cfg.Client.Present(ctx, q.Raw)
	if err != nil {
		if ctx.Err() != nil {
			return engine.Result{}, abortError(ctx, nil)
		}
		return engine.Result{}, err
	}
	st := p.cfg.Style
	p.write("\n" + st.Rule() + "\n" + strings.TrimRight(pres.Text, "\n") + "\n")

	for {
		p.write(st.Prompt("? "))
		line, err := p.cfg.Lines.Next(ctx)
		if err != nil {
			herr := abortError(ctx, err)
			note := "(question aborted)"
			if errors.Is(err, io.EOF) {
				note = "(input ended: question aborted)"
			}
			// On a terminal, ^C leaves the cursor after the prompt.
			p.write("\n" + st.Dim(note) + "\n")
			return engine.Result{}, herr
		}
		if !p.cfg.Echoed {
			p.write("\n")
		}
		res, err := p.cfg.Client.Resolve(ctx, q.Raw, line)
		if err == nil {
			p.write(st.Dim("→ "+core.SanitizeText(chosen(res.Answer))) + "\n")
			return res, nil
		}
		var he *core.HarnessError
		if errors.As(err, &he) && he.Code == core.CodeInvalidAnswer {
			p.write(st.Warn(he.Message) + "\n")
			continue
		}
		if ctx.Err() != nil {
			return engine.Result{}, abortError(ctx, nil)
		}
		return engine.Result{}, err
	}
}

func chosen(a core.Answer) string {
	if a.Selected != nil {
		return a.Selected.Label
	}
	return a.Answer
}

func (p *Provider) setActive(c context.CancelCauseFunc) {
	p.mu.Lock()
	p.active = c
	p.mu.Unlock()
}

func (p *Provider) write(s string) { _, _ = io.WriteString(p.cfg.Out, s) }

// abortError says why a question ended without an answer. When the ask's
// own ctx (the interaction service's) is done, the service reports its
// reason whatever we return; these messages cover the provider's own
// reasons.
func abortError(ctx context.Context, readErr error) *core.HarnessError {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errInterrupted):
		return core.NewError(core.CodeAskAborted,
			"the person dismissed the question (Ctrl-C) without answering; nothing was chosen")
	case errors.Is(cause, errProviderClosed):
		return core.NewError(core.CodeAskAborted,
			"the question was withdrawn: the terminal provider was closed")
	case ctx.Err() != nil:
		return core.NewError(core.CodeAskAborted, "the question was aborted")
	case errors.Is(readErr, io.EOF):
		return core.NewError(core.CodeAskAborted,
			"the input ended (EOF) before an answer was given; nothing was chosen")
	case errors.Is(readErr, ErrClosed):
		return core.NewError(core.CodeAskAborted, "the question was withdrawn: the input was closed")
	default:
		return core.NewError(core.CodeAskAborted, fmt.Sprintf("reading the answer failed: %v", readErr))
	}
}
