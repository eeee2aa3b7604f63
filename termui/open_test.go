package termui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// TestOpen: on an input and an output that are no terminal (a pipe and a
// buffer), Open gives the provider in the mode the core's terminal op
// chooses for those facts, whatever TERM says: the line mode, without
// colour, ending the prompt line itself. It answers a call through a
// service, and Close releases the input Open set up: later calls are
// withdrawn and the reader is gone.
func TestOpen(t *testing.T) {
	noLeaks(t) // registered first: checked after every cleanup below
	ctx := context.Background()
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = pw.Close()
		_ = pr.Close()
	})
	env := map[string]string{"TERM": "xterm-256color"}
	out := &syncbuf.Buffer{}
	prov, err := Open(ctx, native, WithInput(pr), WithOutput(out), WithEnv(func(k string) string { return env[k] }))
	require.NoError(t, err)
	t.Cleanup(prov.Close)

	mode, err := native.Terminal(ctx, askcore.TerminalFacts{Term: "xterm-256color"})
	require.NoError(t, err)
	require.False(t, mode.Picker, "the core's verdict for a pipe")
	assert.Nil(t, prov.cfg.Picker, "the line mode")
	assert.Equal(t, mode.Color, prov.cfg.Style.Color)
	assert.False(t, prov.cfg.Style.Color, "no colour on a writer that is no terminal")
	assert.False(t, prov.cfg.Echoed, "a pipe does not echo")

	svc := askcore.NewService(native)
	dispose, err := svc.Register(prov)
	require.NoError(t, err)
	t.Cleanup(dispose)
	h := &harness{t: t, out: out}
	ch := make(chan askResult, 1)
	go func() {
		res, err := svc.Ask(ctx, `{"question":"Name?"}`, askcore.AskOptions{})
		ch <- askResult{res, err}
	}()
	h.waitPrompts(1)
	_, err = pw.WriteString("Ada\n")
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"Ada"}`, answered(t, ch))
	assert.True(t, strings.HasSuffix(out.String(), "\n? \n→ Ada\n"), "%q", out.String())

	lines := prov.cfg.Lines
	prov.Close()
	_, err = svc.Ask(ctx, `{"question":"Again?"}`, askcore.AskOptions{})
	requireFailure(t, err, askcore.Failure{Situation: askcore.SituationWithdrawn})
	assert.NotContains(t, out.String(), "Again?", "a call after Close is not shown")
	_, err = lines.Next(ctx)
	require.ErrorIs(t, err, ErrClosed, "Close closed the Lines Open made")
	require.NoError(t, pw.Close()) // the pump's read in progress returns
	select {
	case <-lines.Done():
	case <-time.After(patience):
		t.Fatal("the reader Open started did not return")
	}
}
