package main

// web.go asks on the answer page (package answerpage) where the client
// shows no form: the client did not advertise form elicitation
// (--web=auto, the default), or every question (--web=always). The page's
// URL is written on stderr by the page ("askcore: answer at URL"), sent to
// the session as agent message text, and opened in the default browser
// when a desktop session is detected (unless --no-browser or
// ASKCORE_BROWSER=none).

import (
	"context"
	"errors"
	"io"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// webSettings configure the answer page. The zero value is --web=auto on
// 127.0.0.1 and a free port, the browser opened on a desktop, the page's
// lines discarded.
type webSettings struct {
	mode frontdoor.WebMode
	// noBrowser: never open a browser (--no-browser); ASKCORE_BROWSER=none
	// does the same.
	noBrowser bool
	// addr is where the page listens ("": answerpage.DefaultAddr).
	addr string
	// log receives the page's "askcore: answer at URL" line and its
	// warnings (nil: discarded; askcore-acp passes stderr).
	log io.Writer
	// getenv reads ASKCORE_BROWSER, DISPLAY and WAYLAND_DISPLAY (nil: the
	// process's environment).
	getenv func(string) string
	// open, when set, replaces the system's browser opener (tests).
	open func(ctx context.Context, url string) error
}

// pages is the process's answer page, made on the first question asked
// there: one page (one port, one token) for every session.
type pages struct {
	core *askcore.Core
	o    webSettings

	mu     sync.Mutex
	srv    *answerpage.Server
	closed bool
	asks   sync.WaitGroup // the questions on the page
}

func newPages(c *askcore.Core, o webSettings) *pages {
	if o.log == nil {
		o.log = io.Discard
	}
	return &pages{core: c, o: o}
}

// use reports whether a question goes to the page, for a client that
// advertised form elicitation (form) or not. A nil pages never does.
func (p *pages) use(form bool) bool {
	if p == nil {
		return false
	}
	return p.o.mode == frontdoor.WebAlways || p.o.mode == frontdoor.WebAuto && !form
}

// errPageClosed: askcore-acp is stopping, the page takes no question.
var errPageClosed = errors.New("askcore-acp is stopping")

// begin returns the page, making it if needed, and counts a question on
// it (end uncounts it).
func (p *pages) begin() (*answerpage.Server, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errPageClosed
	}
	if p.srv == nil {
		opts := []answerpage.Option{
			answerpage.WithBrowser(!p.o.noBrowser),
			answerpage.WithLog(p.o.log),
		}
		if p.o.addr != "" {
			opts = append(opts, answerpage.WithAddr(p.o.addr))
		}
		if p.o.getenv != nil {
			opts = append(opts, answerpage.WithEnv(p.o.getenv))
		}
		if p.o.open != nil {
			opts = append(opts, answerpage.WithOpener(p.o.open))
		}
		p.srv = answerpage.New(p.core, opts...)
	}
	p.asks.Add(1)
	return p.srv, nil
}

func (p *pages) end() { p.asks.Done() }

// close waits (until ctx is done) for the questions on the page to end,
// so that the page says why each ended (a signal's cause, a cancel), then
// withdraws what is left and stops the page.
func (p *pages) close(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	srv := p.srv
	p.mu.Unlock()
	if srv == nil {
		return
	}
	ended := make(chan struct{})
	go func() {
		p.asks.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	_ = srv.Close()
}

// noticer is a peer that can show text in a session (the server does; the
// provider tests' fake peer does not need to).
type noticer interface {
	// notice sends text to the session as agent message text.
	notice(sessionID, text string)
}

// pageNotice is the agent message that names the page: the very line the
// page writes on stderr, "askcore: answer at URL" (the core has no words
// for it; this is the one place it is put together for the session).
func pageNotice(url string) string { return answerpage.LogPrefix + url }

// askPage asks call on the answer page: the URL goes to the session first,
// then the question waits on the page. What the person gives there (picks,
// or a decline) goes back to the seam, which has the core resolve it. When
// ctx is done (session/cancel, a signal, the connection's end) the page
// withdraws the question, saying why, and the ask is ASK_ABORTED.
func (pv *provider) askPage(ctx context.Context, sessionID string, p peer, call *askcore.Call) (askcore.Reply, error) {
	srv, err := pv.web.begin()
	if err != nil {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationWithdrawn}
	}
	defer pv.web.end()
	url, err := srv.Start()
	if err != nil {
		return askcore.Reply{}, err
	}
	if n, ok := p.(noticer); ok {
		n.notice(sessionID, pageNotice(url))
	}
	return srv.Ask(ctx, call)
}

// notice implements noticer: text, made safe by the core (op sanitize) as
// every text the client is shown, goes to the session as one
// agent_message_chunk, set apart by blank lines from the agent's text
// before and after it (clients join a turn's chunks: the URL must not run
// into the next word).
func (s *server) notice(sessionID, text string) {
	s.mu.Lock()
	sess := s.sessions[sessionID]
	s.mu.Unlock()
	if sess == nil {
		return
	}
	clean, err := sess.core.Sanitize(context.Background(), text)
	if err != nil {
		s.app.log.Warn("the answer page's URL not sent to the session: the core could not sanitize it", "session", sessionID, "err", err)
		return
	}
	s.update(sessionID, acp.UpdateAgentMessageText("\n\n"+clean+"\n\n"))
}
