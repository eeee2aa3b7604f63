package answerpage

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// The shared test client reads the line this package writes.
func TestLogPrefixOfTheTestClient(t *testing.T) {
	assert.Equal(t, LogPrefix, pagetest.LogPrefix)
	assert.Equal(t, "http://127.0.0.1:1/t/", pagetest.FindURL("x\n"+LogPrefix+"http://127.0.0.1:1/t/\n"))
}

// Lazy makes one page, on the first question, for every question after
// it; Shutdown waits for the questions on it to end by themselves (their
// ctx: the page hears why), and later questions are withdrawn at once.
func TestLazyOnePageAndShutdown(t *testing.T) {
	log := &syncbuf.Buffer{}
	core := askcore.NewCore(nil)
	lazy := NewLazy(core, WithLog(log), WithEnv(func(string) string { return "" }))
	svc := askcore.NewService(core)
	dispose, err := svc.Register(lazy)
	require.NoError(t, err)
	defer dispose()

	ask := func(ctx context.Context) <-chan error {
		ch := make(chan error, 1)
		go func() {
			_, err := svc.Ask(ctx, dbArgs, askcore.AskOptions{})
			ch <- err
		}()
		return ch
	}
	first := ask(context.Background())
	b := pagetest.Open(t, pagetest.WaitURL(t, log.String, nil))
	s := b.Events()
	q := s.Question()
	status, v := b.Answer(q.ID, pagetest.Picks(pick(0)))
	require.Equal(t, 200, status)
	assert.Equal(t, "answered", v.State)
	require.NoError(t, <-first)

	ctx, cancel := context.WithCancelCause(context.Background())
	second := ask(ctx)
	q = s.Added()
	srv, end, err := lazy.Begin()
	require.NoError(t, err)
	end()
	assert.Equal(t, b.URL().String(), srv.URL(), "one page for the process")

	shut := make(chan error, 1)
	go func() { shut <- lazy.Shutdown(context.Background()) }()
	cancel(errors.New("the agent received SIGTERM"))
	e := s.Ended()
	assert.Equal(t, pagetest.End{ID: q.ID, State: "aborted", Message: e.Message}, e)
	assert.Contains(t, e.Message, "SIGTERM", "the page says why, not withdrawn")
	assert.Equal(t, askcore.CodeAskAborted, askcore.AsError(<-second).Code)
	require.NoError(t, <-shut)

	_, _, err = lazy.Begin()
	var f askcore.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, askcore.SituationWithdrawn, f.Situation)
}

// OpensBrowser is the page's own rule: WithBrowser(true) where a browser
// opens in the page's environment, the last option winning, extra after
// NewLazy's.
func TestLazyOpensBrowser(t *testing.T) {
	command := WithEnv(func(k string) string {
		if k == EnvBrowser {
			return "firefox"
		}
		return ""
	})
	none := WithEnv(func(k string) string {
		if k == EnvBrowser {
			return "none"
		}
		return ""
	})
	for _, c := range []struct {
		name  string
		opts  []Option
		extra []Option
		want  bool
	}{
		{"off by default", []Option{command}, nil, false},
		{"on, a browser command", []Option{command, WithBrowser(true)}, nil, true},
		{"on, ASKCORE_BROWSER=none", []Option{none, WithBrowser(true)}, nil, false},
		{"on, turned off by extra", []Option{command, WithBrowser(true)}, []Option{WithBrowser(false)}, false},
		{"off, turned on by extra", []Option{command, WithBrowser(false)}, []Option{WithBrowser(true)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, NewLazy(nil, c.opts...).OpensBrowser(c.extra...))
		})
	}
}
