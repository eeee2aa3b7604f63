package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
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
		a := h.Ask(t, store.StatePending)
		assert.JSONEq(t, askRequest, a.Arguments, "the model's arguments reach the hub")
		// What the inbox sends for the person's pick of Staging (its
		// POST /inbox/reply calls Server.Reply).
		_, err := h.Server.Reply(context.Background(), h.Person, a.ID, json.RawMessage(`{"picks":[{"options":[0],"text":""}]}`), "the inbox")
		require.NoError(t, err)
		tm.WaitFor("inbox", "[exit 0]")
		answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out), "the person's answer, byte for byte")
		withdrawn := askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the hub's inbox"})
		assert.Contains(t, tm.All("inbox", false), withdrawn.Message, "the terminal says, in the core's words, where the question was answered")
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
}
