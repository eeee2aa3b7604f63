package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	hubserver "github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// TestHubAsk: "askcore-stdio ask --hub" in a real terminal with a real hub:
// the question is on the terminal's picker and in the inbox at once.
// Answered in the inbox, the picker is withdrawn with the core's words and
// the answer is the person's; answered on the terminal, the hub's ask is
// withdrawn and records that it was answered in the terminal.
func TestHubAsk(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	command := func(h *hubtest.Hub, out string) string {
		return fmt.Sprintf(`ASKCORE_HUB_TOKEN=%s %s ask --engine native --hub %s --request "$(cat %s)" > %s`,
			tmuxtest.Quote(h.Token), bin, tmuxtest.Quote(h.URL), req, out)
	}

	t.Run("answered in the inbox", func(t *testing.T) {
		h := hubtest.Start(t)
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "inbox.json"))
		tm.Session("inbox", 120, 40, command(h, out))
		tm.WaitCursor("inbox", "1. Production")
		tm.WaitFor("inbox", "This question is also in the hub's inbox ("+h.URL+"): answer it here or there.")
		a := h.Ask(t, store.StatePending)
		assert.JSONEq(t, askRequest, a.Arguments, "the model's arguments reach the hub")
		// What the inbox sends for the person's pick of Staging (its
		// POST /inbox/reply calls Server.Reply).
		pickFirstInInbox(t, h, a)
		tm.WaitFor("inbox", "[exit 0]")
		answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out), "the person's answer, byte for byte")
		assert.Contains(t, tm.All("inbox", false), answeredInInbox(), "the terminal says, in the core's words, where the question was answered")
		assert.NotContains(t, tm.Screen("inbox", false), "1. Production", "the picker is gone")
	})

	t.Run("answered in the terminal", func(t *testing.T) {
		h := hubtest.Start(t)
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "terminal.json"))
		tm.Session("terminal", 120, 40, command(h, out))
		tm.WaitCursor("terminal", "1. Production")
		h.Ask(t, store.StatePending)
		tm.Keys("terminal", "Enter")
		tm.WaitFor("terminal", "[exit 0]")
		answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{1}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		a := h.Ask(t, store.StateWithdrawn)
		assert.Equal(t, "the terminal", a.RepliedWhere, "the inbox shows it was answered in the terminal")
	})

	// The person's own decline ends the ask, hub or no hub: Esc on the
	// picker is the core's ASK_DECLINED, and the inbox no longer offers
	// the question.
	t.Run("declined on the terminal", func(t *testing.T) {
		h := hubtest.Start(t)
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "declined.json"))
		tm.Session("declined", 120, 40, command(h, out))
		tm.WaitCursor("declined", "1. Production")
		h.Ask(t, store.StatePending)
		tm.Keys("declined", "Escape")
		tm.WaitFor("declined", fmt.Sprintf("[exit %d]", askExitDeclined))
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationDeclined}), readOut(t, out), "the core's ASK_DECLINED, byte for byte")
		// Withdrawn as its program's, not as answered on the terminal: the
		// inbox says withdrawn, never answered elsewhere, for a decline.
		assert.Equal(t, store.WhereAgent, h.Ask(t, store.StateWithdrawn).RepliedWhere)
	})
}

// TestHubAskTruth: what the terminal says about the hub is what happened,
// on either store. A token the hub refuses and a hub that cannot be
// reached are each said in words of their own, never "answered
// elsewhere", and the picker stays: the person's answer on the terminal
// is the outcome. A hub that comes up at the unreachable address is said
// to be reached again, and then holds the question too.
func TestHubAskTruth(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	// ask runs "askcore-stdio ask --hub url" in session, wide enough for
	// the notices to stay on one line each, and waits for its picker.
	ask := func(t *testing.T, tm *tmuxtest.Server, session, url, token string, says ...string) (out string) {
		out = filepath.Join(dir, session+".json")
		tm.Session(session, 300, 40, fmt.Sprintf(`ASKCORE_HUB_TOKEN=%s %s ask --engine native --hub %s --request "$(cat %s)" > %s`,
			tmuxtest.Quote(token), bin, tmuxtest.Quote(url), req, tmuxtest.Quote(out)))
		tm.WaitFor(session, says...)
		tm.WaitCursor(session, "1. Production")
		return out
	}
	// answer answers on the terminal and checks the outcome is that
	// answer, and that the terminal never said answered elsewhere.
	answer := func(t *testing.T, tm *tmuxtest.Server, session, out string) {
		assert.NotContains(t, tm.All(session, false), "answered elsewhere", "the terminal never says answered elsewhere when nobody answered")
		tm.Keys(session, "Enter")
		tm.WaitFor(session, "[exit 0]")
		answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{1}})
		assert.Equal(t, answer+"\n", readOut(t, out), "the person's answer on the terminal is the outcome")
	}

	t.Run("refused token", func(t *testing.T) {
		hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
			tm := server.With(t)
			session := "refused-" + path.Base(t.Name())
			out := ask(t, tm, session, h.URL, "askcore_wrong",
				"The hub's inbox does not have this question: the hub refused the ask: UNAUTHORIZED: a valid agent token is required: Authorization: Bearer TOKEN (askcore-hub agent add NAME prints one). Answer it here.")
			answer(t, tm, session, out)
		})
	})

	t.Run("unreachable hub, then reached", func(t *testing.T) {
		hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
			tm := server.With(t)
			session := "unreachable-" + path.Base(t.Name())
			addr := freeAddr(t)
			url := "http://" + addr
			out := ask(t, tm, session, url, h.Token, fmt.Sprintf(
				"The hub at %s cannot be reached (Post %q: dial tcp %s: connect: connection refused); still trying. Meanwhile the question is asked here.",
				url, url+"/v1/asks", addr))
			// A hub comes up at that address, on the same store (a
			// replica of h): the agent's token is known there.
			hubtest.Serve(t, hubserver.Config{Addr: addr, Options: hubserver.Options{Store: h.Store}})
			reached := "The hub at " + url + " is reached again."
			held := "This question is also in the hub's inbox (" + url + "): answer it here or there."
			screen := tm.WaitFor(session, reached, held)
			assert.Less(t, strings.Index(screen, reached), strings.Index(screen, held), "reached again, then held")
			h.Ask(t, store.StatePending)
			answer(t, tm, session, out)
			assert.Equal(t, "the terminal", h.Ask(t, store.StateWithdrawn).RepliedWhere, "the hub's ask is withdrawn, answered in the terminal")
		})
	})
}

// freeAddr is a loopback address nothing listens on (the port was free a
// moment ago).
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// TestHubAskWithoutTerminal: with --hub, a run that cannot show the
// question (no terminal at all; stdin at its end) waits for the inbox, on
// either store, and says so on stderr; the inbox's answer is the outcome.
// With a token the hub refuses as well, nobody saw the question: the
// core's ASK_FAILED says so, and nothing says "answered elsewhere".
func TestHubAskWithoutTerminal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		waits string // the line on stderr that says the question waits in the inbox (URL: the hub's)
	}{
		{"request on stdin, no terminal", nil, askRequest, "askcore: This question waits in the hub's inbox (URL): answer it there."},
		{"stdin at its end", []string{"--request", askRequest}, "", "This question waits in the hub's inbox (URL): answer it there."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
				p := start(t, baseEnv("ASKCORE_HUB_TOKEN="+h.Token), true, append([]string{"ask", "--engine", "native", "--hub", h.URL}, tc.args...)...)
				p.send(tc.stdin)
				require.NoError(t, p.stdin.Close())
				a := h.Ask(t, store.StatePending)
				waits := strings.ReplaceAll(tc.waits, "URL", h.URL)
				p.waitStderr("where the question waits", func(stderr string) bool { return slices.Contains(strings.Split(stderr, "\n"), waits) })
				pickFirstInInbox(t, h, a)
				require.Equal(t, 0, p.wait(), "stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
				answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
				assert.Equal(t, answer+"\n", p.stdout.String())
			})
		})
	}

	t.Run("a token the hub refuses, no terminal", func(t *testing.T) {
		hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
			p := start(t, baseEnv("ASKCORE_HUB_TOKEN=askcore_wrong"), true, "ask", "--engine", "native", "--hub", h.URL)
			p.send(askRequest)
			require.NoError(t, p.stdin.Close())
			assert.Equal(t, askExitFailed, p.wait(), "stderr:\n%s", p.stderr)
			var e askcore.Error
			require.NoError(t, json.Unmarshal([]byte(p.stdout.String()), &e), p.stdout.String())
			assert.Equal(t, askcore.CodeAskFailed, e.Code)
			assert.Contains(t, e.Message, "Nobody saw the question: no surface could show it")
			assert.Contains(t, e.Message, "the hub's inbox: the hub refused the ask: UNAUTHORIZED")
			for _, w := range []string{p.stdout.String(), p.stderr.String()} {
				assert.NotContains(t, w, "answered elsewhere")
			}
		})
	})
}

// TestHubAskID: a run killed while it waits leaves its ask in the inbox;
// a re-run with the same --ask-id attaches to it (no second question) and
// gets the answer given meanwhile, on either store.
func TestHubAskID(t *testing.T) {
	hubtest.EachStore(t, func(t *testing.T, h *hubtest.Hub) {
		env := baseEnv("ASKCORE_HUB_TOKEN=" + h.Token)
		args := []string{"ask", "--engine", "native", "--hub", h.URL, "--ask-id", "deploy-1", "--request", askRequest}
		first := start(t, env, true, args...)
		a := h.Ask(t, store.StatePending)
		require.NoError(t, first.cmd.Process.Kill())
		first.wait()
		pickFirstInInbox(t, h, a)
		second := start(t, env, true, args...)
		require.NoError(t, second.stdin.Close())
		require.Equal(t, 0, second.wait(), "stdout:\n%s\nstderr:\n%s", second.stdout, second.stderr)
		answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", second.stdout.String(), "the answer given while nobody waited")
		asks, err := h.Store.Asks(context.Background(), store.AskFilter{PersonID: h.Person})
		require.NoError(t, err)
		assert.Len(t, asks, 1, "the re-run attached to the same ask")
	})
}

// TestHubChat: the chat with --hub in a real terminal with a real hub:
// the model's question is on the picker and in the inbox at once. The
// person answers in the inbox; the picker is withdrawn, leaving the
// core's answered-elsewhere words, and the model receives the core's
// answer to the inbox's reply, byte for byte.
func TestHubChat(t *testing.T) {
	server := newTmux(t)
	h := hubtest.Start(t)
	model := newFakeModel(t, askRequest)
	tm := server.With(t)
	tm.Session("chat", 120, 40, "ASKCORE_HUB_TOKEN="+tmuxtest.Quote(h.Token)+" "+chatCommand(model, "--engine native --hub "+tmuxtest.Quote(h.URL)))
	tm.WaitFor("chat", "Esc declines.", "\n>")
	tm.Line("chat", "deploy it")
	tm.WaitCursor("chat", "1. Production")
	tm.WaitFor("chat", "This question is also in the hub's inbox ("+h.URL+"): answer it here or there.")
	a := h.Ask(t, store.StatePending)
	assert.JSONEq(t, askRequest, a.Arguments, "the model's arguments reach the hub")
	pickFirstInInbox(t, h, a)
	tm.WaitFor("chat", "Thanks.")
	answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
	assert.Equal(t, answer, model.received(), "the person's answer, byte for byte")
	assert.Contains(t, tm.All("chat", false), answeredInInbox()+"\nThanks.", "the terminal says, in the core's words, where the question was answered")
	assert.NotContains(t, tm.Screen("chat", false), "1. Production", "the picker is gone")
	tm.Keys("chat", "C-d")
	tm.WaitFor("chat", "[exit 0]")
}
