package frontdoor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
)

// Hub says whether a front door also puts its questions to an askcore-hub,
// so the person can answer them in the hub's inbox, on any device: --hub
// URL (or ASKCORE_HUB_URL) and the agent's token from ASKCORE_HUB_TOKEN or
// --hub-token-file FILE. The token is never a flag's value, which every
// user of the machine could read in the process list.
type Hub struct {
	URL       string
	TokenFile string
}

// AddFlags registers --hub and --hub-token-file on fs.
func (h *Hub) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&h.URL, "hub", "", "also ask through the askcore-hub at `URL` (default $ASKCORE_HUB_URL); the agent's token comes from $ASKCORE_HUB_TOKEN or --hub-token-file")
	fs.StringVar(&h.TokenFile, "hub-token-file", "", "read the hub's agent token from `FILE` (default: $ASKCORE_HUB_TOKEN)")
}

// On reports whether a hub is configured (--hub or ASKCORE_HUB_URL).
func (h Hub) On(getenv func(string) string) bool {
	return h.URL != "" || getenv("ASKCORE_HUB_URL") != ""
}

// Provider returns the provider a front door registers: local alone when no
// hub is set; else the question goes to local and to the hub at once
// (askcore.FirstReply), the first reply wins and the other is withdrawn
// with the core's words. When local answered first, the hub's inbox says
// the question was answered there (local.Name: "the terminal", "the
// form"). A local surface that cannot show the question (no terminal, a
// client without forms, a host that declines unseen, an input at its end)
// drops out and the hub keeps it; a hub that refuses the ask drops out and
// the local surface keeps it. Only when both dropped out does the model
// hear why (the core's no_surface). A local provider that is a Noticer
// (or an AskNoticer) hears what happens with the hub, for the person: held, refused,
// unreachable (and reached again); the core's answered_elsewhere words
// reach it as its ctx's cause, as FirstReply does for every surface.
func (h Hub) Provider(local askcore.Surface, getenv func(string) string, opts ...hub.Option) (askcore.Provider, error) {
	beside, err := h.Beside(getenv, opts...)
	if err != nil {
		return nil, err
	}
	return beside(local), nil
}

// Beside checks the settings and reads the token once, and returns what
// makes a local surface's provider as Provider does: for a front door
// that makes one per session (askcore-acp), so that the token file is
// read at start, where a bad one is a usage error, and never again. Its
// errors are usage errors, naming the flag or variable to fix.
func (h Hub) Beside(getenv func(string) string, opts ...hub.Option) (func(local askcore.Surface) askcore.Provider, error) {
	url := h.URL
	if url == "" {
		url = getenv("ASKCORE_HUB_URL")
	}
	if url == "" {
		if h.TokenFile != "" {
			return nil, errors.New("--hub-token-file needs --hub URL (or ASKCORE_HUB_URL)")
		}
		return func(local askcore.Surface) askcore.Provider { return local.Provider }, nil
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("--hub %q: the hub's URL starts with http:// or https://", url)
	}
	token := getenv("ASKCORE_HUB_TOKEN")
	if h.TokenFile != "" {
		// The file, named on purpose, wins over the environment.
		b, err := os.ReadFile(h.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("--hub-token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return nil, fmt.Errorf("--hub-token-file: the file %s is empty: it holds the agent's token (askcore-hub agent add prints it)", h.TokenFile)
		}
	}
	if token == "" {
		return nil, errors.New("--hub needs the agent's token: set ASKCORE_HUB_TOKEN or pass --hub-token-file FILE (askcore-hub agent add prints it)")
	}
	p := hub.New(url, token, opts...)
	return func(local askcore.Surface) askcore.Provider { return withHub{local: local, url: url, hub: p} }, nil
}

// Noticer is a local surface that can tell the person something while it
// asks (the terminal prints the line above its question).
type Noticer interface {
	Notice(text string)
}

// AskNoticer is a local surface that asks many questions at once (an
// editor's sessions, an MCP client's tool calls): it hears which ask a
// notice is about (ctx and call, the ask's own), to tell the person where
// that question is asked. A surface that is both hears it this way.
type AskNoticer interface {
	NoticeAsk(ctx context.Context, call *askcore.Call, text string)
}

// withHub asks through a local surface and a hub at once.
type withHub struct {
	local askcore.Surface
	url   string
	hub   *hub.Provider
}

// notice tells the person text on the local surface, when it can, about
// the ask of ctx and call.
func (w withHub) notice(ctx context.Context, call *askcore.Call, text string) {
	switch n := w.local.Provider.(type) {
	case AskNoticer:
		n.NoticeAsk(ctx, call, text)
	case Noticer:
		n.Notice(text)
	}
}

// localDropsOut turns the local surface's end of input (a pipe with
// nothing more, a closed input) into a drop-out while the hub asks: the
// person did not end the question there, the input did. Only a decline,
// Esc or Ctrl-C of the person's own ends the ask.
func localDropsOut(ctx context.Context, call *askcore.Call, err error) error {
	var f askcore.Failure
	if errors.As(err, &f) && (f.Situation == askcore.SituationEOF || f.Situation == askcore.SituationInputClosed) {
		return askcore.Failure{Situation: askcore.SituationNotShown, Detail: call.Core().Fail(ctx, f).Message}
	}
	return err
}

// withdrawWithin bounds the wait for the withdrawn surface to end once
// the other one ended the ask (the hub provider's own DELETE gives up
// after 5 s).
const withdrawWithin = 6 * time.Second

func (w withHub) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	hubDone, localDone := make(chan struct{}), make(chan struct{})
	// What the person is told the hub holds depends on whether the local
	// surface still asks: "answer it here or there" only while it does.
	// Either may happen first: the hub taking the question, or the local
	// surface dropping out.
	var (
		mu       sync.Mutex // held while a notice is written, so notices keep their order
		held     bool       // the hub holds the question
		localOut bool       // the local surface could not show it
		// localAnswered: the local surface ended with the person's answer,
		// not a decline, Esc or Ctrl-C. Set before that surface returns,
		// so before FirstReply withdraws the hub's ask; read on the hub
		// surface's goroutine.
		localAnswered atomic.Bool
	)
	waitsThere := fmt.Sprintf("This question waits in the hub's inbox (%s): answer it there.", w.url)
	// Every notice is about this ask, told while it lasts (ctx, not a
	// surface's own, which ends with that surface).
	notice := func(text string) { w.notice(ctx, call, text) }
	inbox := askcore.ProviderFunc(func(hctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		defer close(hubDone)
		// FirstReply withdraws the hub's ask with the core's
		// answered_elsewhere error naming the local surface when that
		// surface ended the ask first; any other end is a plain withdrawal.
		// So is the person's own decline there: the inbox must not say
		// answered (it says withdrawn) when nobody answered.
		answeredIn := func() string {
			if !localAnswered.Load() {
				return ""
			}
			var e *askcore.Error
			if !errors.As(context.Cause(hctx), &e) {
				return ""
			}
			won := call.Core().Fail(context.WithoutCancel(hctx), askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: w.local.Name})
			if e.Message != won.Message {
				return ""
			}
			return w.local.Name
		}
		r, err := w.hub.Watched(hub.Watch{
			AnsweredIn: answeredIn,
			Unreachable: func(err error) {
				mu.Lock()
				defer mu.Unlock()
				text := fmt.Sprintf("The hub at %s cannot be reached (%v); still trying.", w.url, err)
				if !localOut {
					text += " Meanwhile the question is asked here."
				}
				notice(text)
			},
			Reached: func() {
				notice(fmt.Sprintf("The hub at %s is reached again.", w.url))
			},
			Held: func() {
				mu.Lock()
				defer mu.Unlock()
				held = true
				if localOut {
					notice(waitsThere)
					return
				}
				notice(fmt.Sprintf("This question is also in the hub's inbox (%s): answer it here or there.", w.url))
			},
		}).Ask(hctx, call)
		var refused hub.Refused
		if hctx.Err() == nil && errors.As(err, &refused) {
			// Not an answer: the hub could not take the question. The
			// local surface keeps it; the model hears this only if no
			// surface is left.
			mu.Lock()
			if !localOut {
				notice("The hub's inbox does not have this question: " + refused.Failure.Detail + ". Answer it here.")
			}
			mu.Unlock()
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNotShown, Detail: refused.Failure.Detail}
		}
		return r, err
	})
	local := askcore.Surface{Name: w.local.Name, Provider: askcore.ProviderFunc(func(lctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		defer close(localDone)
		if w.local.Provider == nil {
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoProvider}
		}
		r, err := w.local.Provider.Ask(lctx, call)
		if lctx.Err() == nil {
			err = localDropsOut(lctx, call, err)
		}
		if err == nil {
			// Whether the person answered there is the core's to say: a
			// decline (a Decline reply, a form declined or cancelled) ends
			// the ask too, and is no answer.
			_, rerr := call.Resolve(lctx, r)
			localAnswered.Store(rerr == nil)
		}
		if askcore.DroppedOut(err) {
			mu.Lock()
			defer mu.Unlock()
			localOut = true
			if held {
				notice(waitsThere)
			}
		}
		return r, err
	})}
	r, err := askcore.FirstReply(
		local,
		askcore.Surface{Name: "the hub's inbox", Provider: inbox},
	).Ask(ctx, call)
	// FirstReply does not wait for the surfaces it withdrew: wait for
	// them, so that a front door that exits right after the answer
	// (askcore-stdio ask) has told the hub first, and the inbox does not
	// keep offering a question answered in the terminal; and so that the
	// local surface has said how the question ended there (the core's
	// answered-elsewhere words) before the front door goes on (the chat's
	// model replies).
	t := time.NewTimer(withdrawWithin)
	defer t.Stop()
	for _, done := range []chan struct{}{hubDone, localDone} {
		select {
		case <-done:
		case <-t.C:
			return r, err
		}
	}
	return r, err
}
