package acpagent

// The answer page (package answerpage) takes the questions the client
// shows no form for (Options.Web): its URL is written to the page's log
// ("askcore: answer at URL"), sent to the session as agent message text,
// and opened in the default browser where answerpage.BrowserOpens.

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
)

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
	srv, end, err := pv.page.Begin()
	if err != nil {
		return askcore.Reply{}, err
	}
	defer end()
	url, err := srv.Start()
	if err != nil {
		return askcore.Reply{}, err
	}
	if n, ok := p.(noticer); ok {
		n.notice(sessionID, pageNotice(url))
	}
	return srv.Ask(ctx, call)
}

// notice implements noticer: text (the page's URL, a hub's notice), made
// safe by the core (op sanitize) as every text the client is shown, goes
// to the session as one agent_message_chunk, set apart by blank lines
// from the agent's text before and after it (clients join a turn's
// chunks: the URL must not run into the next word).
func (s *server) notice(sessionID, text string) {
	s.mu.Lock()
	sess := s.sessions[sessionID]
	s.mu.Unlock()
	if sess == nil {
		return
	}
	clean, err := sess.core.Sanitize(context.Background(), text)
	if err != nil {
		s.agent.log.Warn("a notice not sent to the session: the core could not sanitize it", "session", sessionID, "err", err)
		return
	}
	s.update(sessionID, acp.UpdateAgentMessageText("\n\n"+clean+"\n\n"))
}
