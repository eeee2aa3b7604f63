package acpagent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
)

// lastElicitationID is the JSON-RPC id of the latest elicitation/create the
// agent wrote.
func (t *tap) lastElicitationID() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.lines) - 1; i >= 0; i-- {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(t.lines[i], &msg) == nil && msg.Method == acp.ClientMethodElicitationCreate {
			return msg.ID
		}
	}
	return nil
}

// TestGarbageAnswerMidQuestion: while a question is pending, the client
// answers elicitation/create with garbage on the wire (written straight
// into the connection, as a broken client would). Each time the question
// fails with a structured error, the turn still ends normally, nothing
// hangs and no goroutine is left.
func TestGarbageAnswerMidQuestion(t *testing.T) {
	cases := []struct {
		name string
		// raw returns the lines the broken client writes; id is the
		// elicitation's JSON-RPC id.
		raw  func(id string) []string
		code string
		// again: the reply does not answer, and the form goes back to
		// the person (who then answers it).
		again bool
	}{
		{"result a string", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":"garbage"}`}
		}, "ASK_FAILED", false},
		{"result an array", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":[1,2,3]}`}
		}, "ASK_FAILED", false},
		{"result a number", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":-0.5e3}`}
		}, "ASK_FAILED", false},
		{"result null", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":null}`}
		}, "ASK_FAILED", false},
		{"action a number", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":7}}`}
		}, "ASK_FAILED", false},
		{"unknown action", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"explode"}}`}
		}, "ASK_FAILED", false},
		{"content wrong types", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"choice":42,"custom_answer":{"a":1}}}}`}
		}, "", true},
		{"content escape sequences", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"choice":"\u001b]8;;http://evil\u0007sqlite\u001b]8;;\u0007"}}}`}
		}, "", true},
		{"error with wrong types", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":"boom","message":42,"data":[1]}}`}
		}, "ASK_FAILED", false},
		{"jsonrpc a number", func(id string) []string {
			return []string{`{"jsonrpc":2,"id":` + id + `,"result":{"action":"accept","content":{"choice":"sqlite"}}}`}
		}, "ASK_FAILED", false},
		{"error with escapes", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"\u001b[2J\u202eno"}}`}
		}, "ASK_FAILED", false},
		{"not JSON, then a valid answer", func(id string) []string {
			return []string{`this is not JSON {{{`, "\x00\x01\x02", `{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"choice":"sqlite"}}}`}
		}, "", false},
		{"wrong id, then a valid answer", func(id string) []string {
			return []string{`{"jsonrpc":"2.0","id":999999,"result":{"action":"accept","content":{"choice":"postgres"}}}`,
				`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"choice":"sqlite"}}}`}
		}, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			asking := make(chan struct{}, 1)
			release := make(chan struct{})
			h := newHarness(t, harnessOptions{}, func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
				asking <- struct{}{}
				select { // the SDK's own answer comes too late to count
				case <-release:
				case <-ctx.Done():
				}
				return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
			})
			h.initialize(true)
			sid := h.newSession()
			type result struct {
				stop    acp.StopReason
				err     error
				updates []acp.SessionUpdate
			}
			done := make(chan result, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), patience)
				defer cancel()
				resp, err := h.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
				done <- result{resp.StopReason, err, h.client.takeUpdates(sid)}
			}()
			select {
			case <-asking:
			case <-time.After(patience):
				t.Fatal("no question")
			}
			id := h.tap.lastElicitationID()
			require.NotNil(t, id)
			for _, line := range tc.raw(string(id)) {
				_, err := h.toAgent.Write([]byte(line + "\n"))
				require.NoError(t, err)
			}
			if tc.again {
				select {
				case <-asking:
				case <-time.After(patience):
					t.Fatal("the form did not go back to the person")
				}
				id := h.tap.lastElicitationID()
				_, err := h.toAgent.Write([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"choice":"sqlite"}}}` + "\n"))
				require.NoError(t, err)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(patience):
				t.Fatal("the prompt hangs after a garbage answer")
			}
			close(release)
			require.NoError(t, r.err)
			assert.Equal(t, acp.StopReasonEndTurn, r.stop)
			texts, tools := summarize(t, r.updates)
			require.Len(t, tools, 2)
			if tc.code == "" {
				assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
				assert.JSONEq(t, `{"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}`, string(tools[1].rawOutput))
			} else {
				assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
				assert.Equal(t, tc.code, errorCode(t, tools[1].rawOutput), "%s", tools[1].rawOutput)
				assert.Equal(t, "You chose "+tc.code+".", texts[len(texts)-1])
				for _, c := range []string{"\x1b", "\u202e", "\a"} {
					assert.NotContains(t, string(tools[1].rawOutput), c)
				}
			}
			// The connection still works: the next prompt's question is
			// answered normally.
			h.client.elicit = accept(map[string]any{"answer": "next"})
			stop, updates := h.prompt(sid, "again")
			assert.Equal(t, acp.StopReasonEndTurn, stop)
			_, tools = summarize(t, updates)
			if assert.Len(t, tools, 2) {
				assert.JSONEq(t, `{"answer":"next"}`, string(tools[1].rawOutput))
			}
			h.close()
			verifyNoLeaks(t, before)
		})
	}
}

// A model that calls tools whose names carry escape sequences: the client's
// tool card gets the title the core makes of the name (one clean, short
// line). A name longer than the core's envelope limit (core.MaxInputBytes)
// is more than the core takes: that card has no title rather than text the
// core did not clean.
func TestHostileToolNameReachesTheClientClean(t *testing.T) {
	short := "ask_user_question\x1b]8;;http://evil\a\u202e" + strings.Repeat("x", 100)
	huge := "ask_user_question\x1b]8;;http://evil\a\u202e" + strings.Repeat("x", core.MaxInputBytes)
	line, err := json.Marshal(map[string]any{"tool_calls": []map[string]any{
		{"id": "evil", "name": short, "arguments": map[string]any{}},
		{"id": "evil_huge", "name": huge, "arguments": map[string]any{}},
	}})
	require.NoError(t, err)
	h := newHarness(t, harnessOptions{script: string(line) + "\n" + `{"content":"after"}` + "\n"}, nil)
	h.initialize(true)
	sid := h.newSession()
	stop, updates := h.prompt(sid, "go")
	assert.Equal(t, acp.StopReasonEndTurn, stop)
	texts, tools := summarize(t, updates)
	assert.Equal(t, []string{"after"}, texts)
	require.Len(t, tools, 4)
	for _, ev := range tools {
		for _, s := range []string{ev.title, string(ev.rawOutput)} {
			assert.NotContains(t, s, "\x1b")
			assert.NotContains(t, s, "\u202e")
			assert.NotContains(t, s, "\a")
		}
	}
	title, err := nativeCore.SanitizeTitle(context.Background(), short)
	require.NoError(t, err)
	assert.Equal(t, title, tools[0].title, "the core makes the title")
	assert.Equal(t, "", tools[2].title)
	for _, ev := range []toolEvent{tools[1], tools[3]} {
		assert.Equal(t, acp.ToolCallStatusFailed, ev.status)
		assert.Less(t, len(ev.rawOutput), 1024)
		var e struct{ Code string }
		require.NoError(t, json.Unmarshal(ev.rawOutput, &e))
		assert.Equal(t, "UNKNOWN_TOOL", e.Code, "%s", ev.rawOutput)
	}
}

// TestHostileModelTextReachesTheClientClean: the model's own reply text is
// sanitized before it becomes an agent_message_chunk.
func TestHostileModelTextReachesTheClientClean(t *testing.T) {
	line, err := json.Marshal(map[string]any{"content": "safe\x1b[2J\x1b]8;;http://evil\a link\x1b]8;;\a\rEVIL \u202egnp.exe\u202c"})
	require.NoError(t, err)
	h := newHarness(t, harnessOptions{script: string(line) + "\n"}, nil)
	h.initialize(true)
	sid := h.newSession()
	stop, updates := h.prompt(sid, "go")
	assert.Equal(t, acp.StopReasonEndTurn, stop)
	texts, _ := summarize(t, updates)
	assert.Equal(t, []string{"safe link\nEVIL gnp.exe"}, texts)
}
