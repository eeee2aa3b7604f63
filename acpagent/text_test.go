package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// replyText is a long reply of the kinds a model writes: paragraphs, blank
// lines, CRLF, lists, code, multibyte text, and escape sequences and
// controls inside lines.
func replyText(r *rand.Rand, n int) string {
	words := []string{"the", "database", "é", "naïve", "日本語", "🦀", "`code`", "- item", "1.", "ok,", "\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\u202eevil", "bell\a", "nul\x00", "tab\there"}
	var b strings.Builder
	for b.Len() < n {
		for w := r.IntN(12) + 1; w > 0; w-- {
			b.WriteString(words[r.IntN(len(words))])
			if w > 1 {
				b.WriteByte(' ')
			}
		}
		switch r.IntN(6) {
		case 0:
			b.WriteString("\n\n")
		case 1:
			b.WriteString("\r\n")
		case 2:
			b.WriteString(" ")
		default:
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Cleaned in pieces and sent in chunks, a reply reads on the client as the
// core cleans it whole: the cuts lose nothing and add nothing. Small limits
// make many cuts; each chunk respects its limit.
func TestCleanChunksMatchesTheCoreWhole(t *testing.T) {
	ctx := context.Background()
	c := askcore.NewCore(nil)
	r := rand.New(rand.NewPCG(21, 1))
	texts := []string{
		replyText(r, 20_000),
		replyText(r, 3_000),
		"\n\n  leading and trailing  \n\n",
		strings.Repeat("word ", 4_000),     // no line break: cut at spaces
		strings.Repeat("日本語🦀é", 2_000),     // no space: cut between characters
		strings.Repeat("a\r\n", 3_000),     // CRLF at every cut
		strings.Repeat("x\n\n\n", 2_000),   // blank lines at the cuts
		strings.Repeat("\x1b[2J\n", 1_000), // nothing survives
		"",
	}
	for range 30 {
		texts = append(texts, replyText(r, 1+r.IntN(6_000)))
	}
	for i, text := range texts {
		whole, err := c.Sanitize(ctx, text)
		require.NoError(t, err)
		for _, limits := range [][2]int{{97, 31}, {1000, 64}, {sanitizePieceBytes, messageChunkBytes}} {
			var got strings.Builder
			chunks := 0
			require.NoError(t, cleanChunks(ctx, c, text, limits[0], limits[1], func(chunk string) {
				chunks++
				assert.LessOrEqual(t, len(chunk), limits[1])
				assert.NotEmpty(t, chunk)
				got.WriteString(chunk)
			}))
			if g := got.String(); g != whole {
				at := 0
				for at < min(len(g), len(whole)) && g[at] == whole[at] {
					at++
				}
				from := max(at-60, 0)
				t.Errorf("text %d, limits %v: %d bytes in %d chunks, want the core's %d bytes; from byte %d:\n got %.120q\nwant %.120q",
					i, limits, len(g), chunks, len(whole), from, g[from:], whole[from:])
			}
		}
	}
}

// A reply of 5 MiB (over what the core cleans in one envelope, 4 MiB) and
// one of 300 KiB reach the client whole, in agent_message_chunk updates of
// at most 64 KiB. Before, a reply over the core's envelope limit was
// dropped whole with a log line.
func TestLongRepliesReachTheClient(t *testing.T) {
	skipBytesUnderRace(t)
	r := rand.New(rand.NewPCG(21, 2))
	for _, size := range []int{300 << 10, 5 << 20} {
		t.Run(fmt.Sprintf("%d KiB", size>>10), func(t *testing.T) {
			text := replyText(r, size)
			line, err := jsonLine(map[string]any{"content": text})
			require.NoError(t, err)
			h := newHarness(t, harnessOptions{script: line}, nil)
			h.initialize(true)
			sid := h.newSession()
			stop, updates := h.prompt(sid, "talk")
			assert.Equal(t, acp.StopReasonEndTurn, stop)
			var got strings.Builder
			for _, u := range updates {
				require.NotNil(t, u.AgentMessageChunk)
				chunk := u.AgentMessageChunk.Content.Text.Text
				assert.LessOrEqual(t, len(chunk), messageChunkBytes)
				got.WriteString(chunk)
			}
			var want strings.Builder
			require.NoError(t, cleanChunks(context.Background(), askcore.NewCore(nil), text, 97<<10, 1<<30, func(s string) { want.WriteString(s) }))
			assert.True(t, want.String() == got.String(), "got %d bytes in %d updates, want %d", got.Len(), len(updates), want.Len())
			assert.GreaterOrEqual(t, len(updates), got.Len()/messageChunkBytes)
			assert.NotContains(t, got.String(), "\x1b")
			t.Logf("a %d-byte reply: %d bytes in %d updates", len(text), got.Len(), len(updates))
		})
	}
}

// jsonLine is v as one JSON line of a script.
func jsonLine(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b) + "\n", err
}

// Arguments over maxRawInputBytes leave the tool card without rawInput
// (the core refuses them: INVALID_REQUEST), so that no line the agent
// writes comes near a client's line limit; shorter ones are shown as they
// came.
func TestHugeArgumentsLeaveTheCardWithoutRawInput(t *testing.T) {
	over := `{"question":"` + strings.Repeat("q", 2*maxRawInputBytes) + `"}`
	under := `{"question":"` + strings.Repeat("q", 300<<10) + `"}`
	line, err := jsonLine(map[string]any{"tool_calls": []map[string]any{
		{"id": "over", "name": "ask_user_question", "arguments": over},
		{"id": "under", "name": "ask_user_question", "arguments": under},
	}})
	require.NoError(t, err)
	h := newHarness(t, harnessOptions{script: line + `{"content":"after"}` + "\n"}, nil)
	h.initialize(true)
	sid := h.newSession()
	stop, updates := h.prompt(sid, "go")
	assert.Equal(t, acp.StopReasonEndTurn, stop)
	_, tools := summarize(t, updates)
	require.Len(t, tools, 4)
	assert.Nil(t, tools[0].rawInput)
	assert.JSONEq(t, under, string(tools[2].rawInput))
	for _, ev := range []toolEvent{tools[1], tools[3]} {
		assert.Equal(t, acp.ToolCallStatusFailed, ev.status)
		assert.Equal(t, "INVALID_REQUEST", errorCode(t, ev.rawOutput))
	}
	h.tap.mu.Lock()
	defer h.tap.mu.Unlock()
	for _, l := range h.tap.lines {
		assert.Less(t, len(l), 2*maxRawInputBytes)
	}
}
