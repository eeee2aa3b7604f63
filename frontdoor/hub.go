package frontdoor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
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

// Provider returns the provider a front door registers: local alone when no
// hub is set; else the question goes to local and to the hub at once
// (askcore.FirstReply), the first reply wins and the other is withdrawn
// with the core's words. When local answered first, the hub's inbox says
// the question was answered there (local.Name: "the terminal", "the
// form"). A local surface that cannot show the question (no terminal, a
// client without forms) drops out and the hub keeps it.
func (h Hub) Provider(local askcore.Surface, getenv func(string) string, opts ...hub.Option) (askcore.Provider, error) {
	url := h.URL
	if url == "" {
		url = getenv("ASKCORE_HUB_URL")
	}
	if url == "" {
		if h.TokenFile != "" {
			return nil, errors.New("--hub-token-file needs --hub URL (or ASKCORE_HUB_URL)")
		}
		return local.Provider, nil
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("--hub %q: the hub's URL starts with http:// or https://", url)
	}
	token := getenv("ASKCORE_HUB_TOKEN")
	if h.TokenFile != "" {
		b, err := os.ReadFile(h.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("--hub-token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		return nil, errors.New("--hub needs the agent's token: set ASKCORE_HUB_TOKEN or pass --hub-token-file FILE (askcore-hub agent add prints it)")
	}
	return withHub{local: local, hub: hub.New(url, token, opts...)}, nil
}

// withHub asks through a local surface and a hub at once.
type withHub struct {
	local askcore.Surface
	hub   *hub.Provider
}

// withdrawWithin bounds the wait for the hub's withdrawal once the local
// surface answered (the provider's own DELETE gives up after 5 s).
const withdrawWithin = 6 * time.Second

func (w withHub) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	hubDone := make(chan struct{})
	inbox := askcore.ProviderFunc(func(hctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		defer close(hubDone)
		// FirstReply withdraws the hub's ask with the core's
		// answered_elsewhere error naming the local surface when that
		// surface ended the ask first; any other end is a plain withdrawal.
		answeredIn := func() string {
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
		return w.hub.AnsweredIn(answeredIn).Ask(hctx, call)
	})
	r, err := askcore.FirstReply(
		w.local,
		askcore.Surface{Name: "the hub's inbox", Provider: inbox},
	).Ask(ctx, call)
	// FirstReply does not wait for the surfaces it withdrew: wait for the
	// hub's, so that a front door that exits right after the answer
	// (askcore-stdio ask) has told the hub first, and the inbox does not
	// keep offering a question answered in the terminal.
	t := time.NewTimer(withdrawWithin)
	defer t.Stop()
	select {
	case <-hubDone:
	case <-t.C:
	}
	return r, err
}
