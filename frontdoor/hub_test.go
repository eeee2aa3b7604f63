package frontdoor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hub"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
)

const hubQuestion = `{"question":"Which database?","options":[{"label":"SQLite"},{"label":"PostgreSQL","recommended":true}]}`

type outcome struct {
	answer askcore.Answer
	err    error
}

func askThrough(t *testing.T, p askcore.Provider) <-chan outcome {
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(p)
	require.NoError(t, err)
	out := make(chan outcome, 1)
	go func() {
		defer dispose()
		a, err := svc.Ask(context.Background(), hubQuestion, askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: "call_1"}})
		out <- outcome{a, err}
	}()
	return out
}

// TestHubAnsweredInInbox: the person answers in the hub; the local surface
// is withdrawn with the core's answered_elsewhere words, and has ended
// (said them) before the answer is returned; the answer is the person's.
func TestHubAnsweredInInbox(t *testing.T) {
	h := hubtest.Start(t)
	withdrawn := make(chan error, 1)
	local := askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		<-ctx.Done()
		withdrawn <- context.Cause(ctx)
		return askcore.Reply{}, context.Cause(ctx)
	})
	p, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the terminal", Provider: local}, h.Env, hub.WithPollSeconds(1))
	require.NoError(t, err)
	res := askThrough(t, p)
	a := h.Ask(t, store.StatePending)
	h.Reply(t, a, `{"lines":["SQLite"]}`, "phone")
	r := <-res
	require.NoError(t, r.err)
	assert.Contains(t, string(r.answer.JSON()), `"SQLite"`)
	var cause error
	select {
	case cause = <-withdrawn:
	default:
		t.Fatal("the answer was returned before the withdrawn local surface ended")
	}
	var e *askcore.Error
	require.True(t, errors.As(cause, &e), "%v", cause)
	assert.Equal(t, askcore.CodeAskAborted, e.Code)
	assert.Contains(t, e.Message, "answered elsewhere (the hub's inbox)")
}

// TestHubAnsweredLocally: the person answers on the local surface; the
// hub's ask is withdrawn, and records where it was answered.
func TestHubAnsweredLocally(t *testing.T) {
	h := hubtest.Start(t)
	release := make(chan struct{})
	local := askcore.ProviderFunc(func(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
		<-release
		return askcore.Lines("SQLite"), nil
	})
	p, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the terminal", Provider: local}, h.Env, hub.WithPollSeconds(1))
	require.NoError(t, err)
	res := askThrough(t, p)
	h.Ask(t, store.StatePending)
	close(release)
	r := <-res
	require.NoError(t, r.err)
	assert.Contains(t, string(r.answer.JSON()), `"SQLite"`)
	a := h.Ask(t, store.StateWithdrawn)
	assert.Equal(t, "the terminal", a.RepliedWhere)
}

// TestHubKeepsWhatLocalCannotShow: a surface that cannot show the question
// drops out; the hub keeps the ask and the person's answer arrives.
func TestHubKeepsWhatLocalCannotShow(t *testing.T) {
	h := hubtest.Start(t)
	local := askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoTerminal}
	})
	p, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the terminal", Provider: local}, h.Env, hub.WithPollSeconds(1))
	require.NoError(t, err)
	res := askThrough(t, p)
	a := h.Ask(t, store.StatePending)
	h.Reply(t, a, `{"lines":["PostgreSQL"]}`, "phone")
	r := <-res
	require.NoError(t, r.err)
	assert.Contains(t, string(r.answer.JSON()), `"PostgreSQL"`)
}

// TestHubSaysWhereTheQuestionWaits: once the local surface could not
// show the question, the person is told it waits in the hub's inbox, and
// never to answer it "here": whether the surface dropped out before the
// hub held the question or after.
func TestHubSaysWhereTheQuestionWaits(t *testing.T) {
	noTerminal := func(context.Context) (askcore.Reply, error) {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoTerminal}
	}
	for _, tc := range []struct {
		name  string
		local *noticed
		want  func(url string) []string
	}{
		{"dropped out before the hub held it", &noticed{ask: noTerminal, now: true}, func(url string) []string {
			return []string{"This question waits in the hub's inbox (" + url + "): answer it there."}
		}},
		{"dropped out after", &noticed{ask: noTerminal}, func(url string) []string {
			return []string{
				"This question is also in the hub's inbox (" + url + "): answer it here or there.",
				"This question waits in the hub's inbox (" + url + "): answer it there.",
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hubtest.Start(t)
			p, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the terminal", Provider: tc.local}, h.Env, hub.WithPollSeconds(1))
			require.NoError(t, err)
			res := askThrough(t, p)
			a := h.Ask(t, store.StatePending)
			// The person reads where the question waits before answering
			// there (a reply before the hub's answer to the ask's creation
			// would leave nothing to say).
			want := strings.Join(tc.want(h.URL), "\n")
			deadline := time.Now().Add(30 * time.Second)
			for tc.local.notices() != want && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond) // polling a condition
			}
			require.Equal(t, want, tc.local.notices())
			h.Reply(t, a, `{"lines":["SQLite"]}`, "phone")
			select {
			case r := <-res:
				require.NoError(t, r.err)
				assert.Contains(t, string(r.answer.JSON()), `"SQLite"`)
			case <-time.After(30 * time.Second):
				t.Fatal("the ask did not end after the inbox's reply")
			}
			assert.Equal(t, want, tc.local.notices(), "nothing more is said once the inbox answered")
		})
	}
}

func TestHubSettings(t *testing.T) {
	local := askcore.Surface{Name: "the terminal", Provider: askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) { return askcore.Decline(), nil })}
	none := func(string) string { return "" }
	for _, tc := range []struct {
		name string
		hub  frontdoor.Hub
		env  func(string) string
		err  string
	}{
		{"no hub", frontdoor.Hub{}, none, ""},
		{"no token", frontdoor.Hub{URL: "http://127.0.0.1:1"}, none, "ASKCORE_HUB_TOKEN"},
		{"not a URL", frontdoor.Hub{URL: "127.0.0.1:1"}, none, "http://"},
		{"token file without hub", frontdoor.Hub{TokenFile: "x"}, none, "needs --hub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.hub.Provider(local, tc.env)
			if tc.err == "" {
				require.NoError(t, err)
				assert.NotNil(t, p)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestHubTokenFile: --hub-token-file gives the agent's token from a file,
// and wins over ASKCORE_HUB_TOKEN; a file that cannot be read or holds no
// token is a usage error naming the flag, before anything is asked.
func TestHubTokenFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		content  *string // the file's content; nil: no file at all
		dir      bool    // the file is a directory
		envToken string  // "right": the agent's token
		err      string  // the usage error (after "--hub-token-file: "); "": the hub takes the ask
	}{
		{name: "the token and a newline", content: ptr("right\n")},
		{name: "wins over the environment", content: ptr("right"), envToken: "askcore_wrong"},
		{name: "a missing file", envToken: "right", err: "open "},
		{name: "an empty file", content: ptr(""), envToken: "right", err: "the file FILE is empty"},
		{name: "only blanks", content: ptr(" \n\t\n"), envToken: "right", err: "the file FILE is empty"},
		{name: "a directory", dir: true, envToken: "right", err: "read "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hubtest.Start(t)
			right := func(s string) string { return strings.ReplaceAll(s, "right", h.Token) }
			path := filepath.Join(t.TempDir(), "token")
			switch {
			case tc.dir:
				require.NoError(t, os.Mkdir(path, 0o700))
			case tc.content != nil:
				require.NoError(t, os.WriteFile(path, []byte(right(*tc.content)), 0o600))
			}
			env := func(k string) string {
				if k == "ASKCORE_HUB_TOKEN" {
					return right(tc.envToken)
				}
				return h.Env(k)
			}
			// The terminal cannot show the question: the hub alone asks,
			// with the token the file gave.
			local := askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
				return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoTerminal}
			})
			p, err := frontdoor.Hub{TokenFile: path}.Provider(askcore.Surface{Name: "the terminal", Provider: local}, env, hub.WithPollSeconds(1))
			if tc.err != "" {
				require.ErrorContains(t, err, "--hub-token-file: "+strings.ReplaceAll(tc.err, "FILE", path))
				assert.NotContains(t, err.Error(), h.Token, "the error never shows the token")
				assert.Nil(t, p)
				return
			}
			require.NoError(t, err)
			res := askThrough(t, p)
			a := h.Ask(t, store.StatePending)
			h.Reply(t, a, `{"lines":["PostgreSQL"]}`, "phone")
			select {
			case r := <-res:
				require.NoError(t, r.err)
				assert.Contains(t, string(r.answer.JSON()), `"PostgreSQL"`)
			case <-time.After(30 * time.Second):
				t.Fatal("the ask did not end after the inbox's reply")
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestHubRefusedKeepsLocal: a hub that refuses the token is not an
// answer: the local surface keeps the question (and hears why the inbox
// does not have it), and the model hears the refusal only when the local
// surface could not show the question either.
func TestHubRefusedKeepsLocal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		local    func(context.Context) (askcore.Reply, error)
		wantErr  string
		wantJSON string
	}{
		{"local answers", func(context.Context) (askcore.Reply, error) { return askcore.Lines("SQLite"), nil }, "", `"SQLite"`},
		{"local input at its end", func(context.Context) (askcore.Reply, error) {
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationEOF}
		}, "the hub's inbox: the hub refused the ask: UNAUTHORIZED", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
				local := &noticed{ask: tc.local}
				env := func(k string) string {
					if k == "ASKCORE_HUB_TOKEN" {
						return "askcore_wrong"
					}
					return h.Env(k)
				}
				p, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the terminal", Provider: local}, env, hub.WithPollSeconds(1))
				require.NoError(t, err)
				r := <-askThrough(t, p)
				if tc.wantErr != "" {
					var e *askcore.Error
					require.True(t, errors.As(r.err, &e), "%v", r.err)
					assert.Equal(t, askcore.CodeAskFailed, e.Code)
					assert.Contains(t, e.Message, tc.wantErr)
					assert.NotContains(t, e.Message, "answered elsewhere")
					return
				}
				require.NoError(t, r.err)
				assert.Contains(t, string(r.answer.JSON()), tc.wantJSON)
				assert.Contains(t, local.notices(), "the hub refused the ask: UNAUTHORIZED")
			})
		})
	}
}

// noticed is a local surface that records what it is told.
type noticed struct {
	ask  func(context.Context) (askcore.Reply, error)
	now  bool // ends its ask at once, not after the first notice
	mu   sync.Mutex
	text []string
}

func (n *noticed) Ask(ctx context.Context, _ *askcore.Call) (askcore.Reply, error) {
	// Answer once the hub's first notice was told, as a person reads it
	// first.
	deadline := time.Now().Add(30 * time.Second)
	for !n.now && n.notices() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
	return n.ask(ctx)
}

func (n *noticed) Notice(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.text = append(n.text, text)
}

func (n *noticed) notices() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.text, "\n")
}
