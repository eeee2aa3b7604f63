package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/pagetest"
)

// pickFirstInInbox replies to a as the hub's inbox does for the person's
// pick of the first option (its POST /inbox/reply calls Server.Reply).
func pickFirstInInbox(t *testing.T, h *hubtest.Hub, a store.Ask) {
	t.Helper()
	h.Reply(t, a, `{"picks":[{"options":[0],"text":""}]}`, "the inbox")
}

// answeredInInbox is the core's words for a question withdrawn because
// the person answered it in the hub's inbox.
func answeredInInbox() string {
	return native.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the hub's inbox"}).Message
}

// TestHubChatWithoutTerminal: "askcore-stdio --hub" (the chat) with no
// terminal puts the model's question in the hub's inbox too. The person
// answers there, and the model receives the core's answer, byte for byte.
// With stdin at its end the terminal drops out and the question waits in
// the inbox; with stdin open the question is also asked on it, and is
// withdrawn there in the core's answered-elsewhere words.
func TestHubChatWithoutTerminal(t *testing.T) {
	pick := askcore.Pick{Options: []int{0}}
	withdrawn := answeredInInbox()
	for _, tc := range []struct {
		name       string
		closeStdin bool // before the question: the terminal cannot take an answer
	}{
		{"stdin at its end", true},
		{"stdin open", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hubtest.Start(t)
			model := newFakeModel(t, askRequest)
			p := start(t, append(model.env(), "ASKCORE_HUB_TOKEN="+h.Token), true, "--engine", "native", "--hub", h.URL)
			p.send("deploy it\n")
			if tc.closeStdin {
				require.NoError(t, p.stdin.Close())
			}
			a := h.Ask(t, store.StatePending)
			assert.JSONEq(t, askRequest, a.Arguments, "the model's arguments reach the hub")
			// What the terminal says the hub holds, before the person
			// answers there (as they would read it first).
			says := "\nThis question waits in the hub's inbox (" + h.URL + "): answer it there.\n"
			if !tc.closeStdin {
				says = "\nThis question is also in the hub's inbox (" + h.URL + "): answer it here or there.\n"
			}
			p.waitOut("the hub's notice", func(out string) bool { return strings.Contains(out, says) })
			// What the inbox sends for the person's pick of the first
			// option (its POST /inbox/reply calls Server.Reply).
			pickFirstInInbox(t, h, a)
			p.waitOut("the model's next reply", func(out string) bool { return strings.Contains(out, "Thanks.\n") })
			answer, _ := pickSummary(t, askRequest, pick)
			assert.Equal(t, answer, model.received(), "the model receives the core's answer to the inbox's reply")
			if tc.closeStdin {
				assert.NotContains(t, p.stdout.String(), withdrawn, "no question was left on the terminal to withdraw")
			} else {
				assert.Contains(t, p.stdout.String(), "\n"+withdrawn+"\n", "the terminal says, in the core's words, where the question was answered")
				require.NoError(t, p.stdin.Close())
			}
			require.Equal(t, exitOK, p.wait(), "stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
			assert.Empty(t, p.stderr.String())
			asks, err := h.Store.Asks(context.Background(), store.AskFilter{PersonID: h.Person})
			require.NoError(t, err)
			require.Len(t, asks, 1)
			assert.Equal(t, store.StateReplied, asks[0].State)
		})
	}
}

// TestHubTokenFileRefused: a token file that holds no token is a usage
// error in the chat and in ask alike (ask writes the core's usage error),
// before anything is asked.
func TestHubTokenFileRefused(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	says := "--hub-token-file: the file " + empty + " is empty"
	hubArgs := []string{"--engine", "native", "--hub", "http://127.0.0.1:9", "--hub-token-file", empty}

	stdout, stderr, code := runWith(t, baseEnv(), "", hubArgs...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, says)
	assert.Empty(t, stdout)

	stdout, _, code = runWith(t, baseEnv(), "", append(append([]string{"ask"}, hubArgs...), "--request", askRequest)...)
	assert.Equal(t, askExitInvalidRequest, code)
	assert.Equal(t, askcore.CodeInvalidRequest, askcore.Code(errorObject(t, stdout)))
	assert.Contains(t, stdout, says)
}

// TestHubChatAnswerPage: the chat's answer page beside the hub. With
// --web the question is on the page and in the inbox; answered on the
// page, the inbox records that it was answered there. Without --web, a
// question the terminal cannot take (stdin ended, no controlling
// terminal) waits in the inbox, even where a browser could open the page.
func TestHubChatAnswerPage(t *testing.T) {
	script := func(t *testing.T) string {
		return writeScript(t, reply{Content: "asking", ToolCalls: ask("q1", colors(false))}, reply{Content: "A1={{answer}}"})
	}

	t.Run("--web: answered on the page", func(t *testing.T) {
		h := hubtest.Start(t)
		p := start(t, baseEnv("ASKCORE_HUB_TOKEN="+h.Token), false, "--web", "--no-browser", "--engine", "native", "--hub", h.URL, "--script", script(t))
		p.send("go\n")
		w := chatPage(t, p)
		id, _ := w.question()
		h.Ask(t, store.StatePending)
		status, body := w.post(id, pickOf(2))
		require.Equal(t, http.StatusOK, status, body)
		p.waitOut("A1", func(out string) bool { return strings.Contains(out, "A1=green\n") })
		a := h.Ask(t, store.StateWithdrawn)
		assert.Equal(t, "the answer page", a.RepliedWhere, "the inbox shows where the question was answered")
		require.NoError(t, p.stdin.Close())
		require.Equal(t, exitOK, p.wait(), p.stderr.String())
	})

	t.Run("no terminal: the inbox, not the page", func(t *testing.T) {
		h := hubtest.Start(t)
		browser := pagetest.NewBrowser(t)
		p := start(t, baseEnv(browser.Env(), "ASKCORE_HUB_TOKEN="+h.Token), true, "--engine", "native", "--hub", h.URL, "--script", script(t))
		p.send("go\n")
		require.NoError(t, p.stdin.Close())
		a := h.Ask(t, store.StatePending)
		pickFirstInInbox(t, h, a)
		require.Equal(t, exitOK, p.wait(), p.stderr.String())
		assert.Contains(t, p.stdout.String(), "A1=red\n")
		assert.NotContains(t, p.stderr.String(), "answer at", "no page was served")
		assert.Empty(t, browser.Opened(), "no browser was opened")
	})
}
