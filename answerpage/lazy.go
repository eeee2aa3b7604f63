package answerpage

import (
	"context"
	"sync"

	"github.com/askcore/askcore"
)

// Lazy is a process's one answer page, made on the first question that goes
// there: one port and one token for every session and connection of the
// process. A front door makes one Lazy at start-up and asks through it
// (Ask, or Begin where it needs the URL first); Shutdown stops it.
type Lazy struct {
	core *askcore.Core
	opts []Option

	mu     sync.Mutex
	srv    *Server
	closed bool
	asks   sync.WaitGroup // the questions on the page
}

// NewLazy returns the page New(core, opts...) makes on the first Begin.
func NewLazy(core *askcore.Core, opts ...Option) *Lazy {
	return &Lazy{core: core, opts: opts}
}

// Begin returns the page, making it with the options of NewLazy and then
// extra if it is the first question, and counts a question on it until end
// is called. After Shutdown it fails with the withdrawn situation.
func (l *Lazy) Begin(extra ...Option) (srv *Server, end func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, nil, askcore.Failure{Situation: askcore.SituationWithdrawn}
	}
	if l.srv == nil {
		l.srv = New(l.core, append(append([]Option(nil), l.opts...), extra...)...)
	}
	l.asks.Add(1)
	return l.srv, l.asks.Done, nil
}

// OpensBrowser reports whether the page, made with the options of
// NewLazy and then extra, opens itself in a browser on its first question
// (WithBrowser(true) and BrowserOpens in its environment, WithEnv): where
// it does not, a question on the page reaches the person only through an
// address printed where they read it.
func (l *Lazy) OpensBrowser(extra ...Option) bool {
	return newConfig(append(append([]Option(nil), l.opts...), extra...)).opensBrowser()
}

// Ask implements askcore.Provider: the question waits on the page.
func (l *Lazy) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	srv, end, err := l.Begin()
	if err != nil {
		return askcore.Reply{}, err
	}
	defer end()
	return srv.Ask(ctx, call)
}

// Shutdown refuses new questions and waits, until ctx is done, for the
// questions on the page to end by themselves (a signal or a cancel ended
// them: the page then says why, rather than "withdrawn"), then withdraws
// what is left and stops the page.
func (l *Lazy) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	srv := l.srv
	l.mu.Unlock()
	if srv == nil {
		return nil
	}
	ended := make(chan struct{})
	go func() {
		l.asks.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	return srv.Close()
}
