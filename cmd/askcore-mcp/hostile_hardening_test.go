package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/signaltest"
)

// hugeCall is a tools/call of more than maxLineBytes, keys in the order
// the TypeScript SDK writes them: method and params first, jsonrpc and id
// last.
func hugeCall(id int) string {
	return `{"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"` +
		strings.Repeat("q", maxLineBytes) + `"}},"jsonrpc":"2.0","id":` + itoa(id) + `}`
}

// TestHostileLinesNeverEndTheServer writes, byte by byte, every kind of
// line go-sdk's own transport ended the session on, while a question is
// pending: each gets the JSON-RPC error the spec gives (or is dropped with
// a log line), the server answers the next ping, and the pending question
// is still answered at the end.
func TestHostileLinesNeverEndTheServer(t *testing.T) {
	p := startProc(t, "--engine", "native")
	// Before initialize: a proper code, not 0.
	p.sendSlowly(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"early?"}}}`)
	m := p.recv()
	require.NotNil(t, m.Error, "%s", m.raw)
	assert.Equal(t, `1`, string(m.ID))
	assert.Equal(t, int64(-32600), m.Error.Code, "a call before initialize is an invalid request: %s", m.raw)

	p.handshake("2025-11-25", `{"elicitation":{"form":{}}}`)
	el := p.ask(10, openArgs)

	cases := []struct {
		name, line string
		code       int64  // 0: no reply
		id         string // the id of the reply
		contains   string
	}{
		{"not JSON", `not json`, -32700, "null", "Parse error"},
		{"cut JSON", `{"jsonrpc":"2.0","id":3,"method":"pi`, -32700, "null", "Parse error"},
		{"a bare number", `42`, -32600, "null", "got a number"},
		{"a bare string", `"hello"`, -32600, "null", "got a string"},
		{"null", `null`, -32600, "null", "got null"},
		{"no method and no id", `{"jsonrpc":"2.0"}`, -32600, "null", "neither a method nor an id"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5", `"jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":5,"method":"ping"}`, -32600, "5", `"jsonrpc" must be "2.0"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", "got an object"},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null", "got an array"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", "got a number"},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", "not null"},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, -32600, "null", "out of range"},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":7,"method":5}`, -32600, "7", "the method must be a string"},
		{"params that are a number", `{"jsonrpc":"2.0","id":8,"method":"ping","params":5}`, -32600, "8", "params must be an object"},
		{"a notification with params that are a number", `{"jsonrpc":"2.0","method":"notifications/progress","params":5}`, 0, "", ""},
		{"a response to nothing", `{"jsonrpc":"2.0","id":9999,"result":{}}`, 0, "", ""},
		{"an empty batch", `[]`, -32600, "null", "an empty batch"},
		{"a blank line", `   `, 0, "", ""},
		{"keys in another case", `{"JSONRPC":"2.0","ID":5,"METHOD":"ping"}`, -32600, "null", "neither a method nor an id"},
		{"tools/call params of the wrong type", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":5,"arguments":{"question":"MARKER-` + strings.Repeat("m", 2000) + `"}}}`,
			-32602, "13", "invalid params for tools/call: name is a number, not a string"},
		{"an unknown method", `{"jsonrpc":"2.0","id":"u","method":"no/such/method"}`, -32601, `"u"`, ""},
		{"the id of the call in progress", `{"jsonrpc":"2.0","id":10,"method":"ping"}`, -32600, "10", "already in use"},
		{"a malformed inputResponses", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"MARKER-` + strings.Repeat("m", 2000) + `"},"inputResponses":{"ask_user_question":{"action":7}}}}`,
			-32602, "11", `inputResponses["ask_user_question"]: action is a number, not a string`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.sendSlowly(tc.line)
			if tc.code != 0 {
				m := p.recv()
				require.NotNil(t, m.Error, "%s", m.raw)
				assert.Equal(t, tc.code, m.Error.Code, "%s", m.raw)
				assert.Equal(t, tc.id, string(m.ID), "%s", m.raw)
				assert.Contains(t, m.Error.Message, tc.contains)
				assert.NotContains(t, m.Error.Message, "MARKER", "the error does not echo the request")
				assert.Less(t, len(m.Error.Message), 400)
			}
			p.ping("after-" + itoa(i))
		})
	}

	t.Run("a batch after initialize", func(t *testing.T) {
		p.sendSlowly(`[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":{},"method":"ping"}]`)
		var replies []msg
		m := p.recv()
		require.NoError(t, json.Unmarshal(m.raw, &replies), "%s", m.raw)
		require.Len(t, replies, 2, "one reply per request: %s", m.raw)
		assert.Equal(t, "20", string(replies[0].ID))
		assert.Equal(t, int64(-32600), replies[0].Error.Code)
		assert.Contains(t, replies[0].Error.Message, "JSON-RPC batches are not part of MCP 2025-06-18 and later (this session: 2025-11-25)")
		assert.Equal(t, "null", string(replies[1].ID))
		p.ping("after-batch")
	})

	t.Run("a line over the limit", func(t *testing.T) {
		p.sendInChunks(hugeCall(12))
		m := p.recv()
		require.NotNil(t, m.Error, "%.300s", m.raw)
		assert.Equal(t, "12", string(m.ID), "the id at the end of the line was read")
		assert.Equal(t, int64(-32600), m.Error.Code)
		assert.Contains(t, m.Error.Message, "over askcore-mcp's limit of 4194304 bytes per message")
		// Without a readable id: a null one.
		p.sendInChunks(`{"params":"` + strings.Repeat("z", maxLineBytes) + `"`)
		m = p.recv()
		require.NotNil(t, m.Error, "%.300s", m.raw)
		assert.Equal(t, "null", string(m.ID))
		p.ping("after-huge")
	})

	// The question asked before all this is still pending, and answered.
	reply := `{"action":"accept","content":{"answer":"Hardy"}}`
	p.sendSlowly(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":` + reply + `}`)
	want, isErr := coretest.FormAnswer(t, openArgs, reply)
	require.False(t, isErr)
	assert.Equal(t, string(want), p.toolText(p.recv(), 10))

	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderr.String())
	assert.True(t, p.logged("discarded a message over askcore-mcp's line limit", "limit=4194304", "id=12"), p.stderr.String())
	assert.True(t, p.logged("dropped a response to no pending request", "id=9999"), p.stderr.String())
	assert.True(t, p.logged("dropped a notification whose params are not an object"), p.stderr.String())
}

// TestClientRepliesThatCannotBeRead: a client's response to
// elicitation/create that go-sdk could not decode (or decoded into Go's
// words) fails its question with the core's bytes; the server goes on to
// the next question.
func TestClientRepliesThatCannotBeRead(t *testing.T) {
	ctx := context.Background()
	fail := func(s askcore.Situation, detail string) string {
		return string(nativeCore.Fail(ctx, askcore.Failure{Situation: s, Detail: detail}).JSON())
	}
	judged := func(reply string) string {
		b, _ := coretest.FormAnswer(t, openArgs, reply)
		return string(b)
	}
	cases := []struct {
		name, response string // with ID for the id
		want           string
	}{
		{"error code a string", `"error":{"code":"x","message":"no"}`, fail(askcore.SituationClientReplyInvalid, `its error code is a string ("x"), not an integer`)},
		{"error code a fraction", `"error":{"code":1.5,"message":"no"}`, fail(askcore.SituationClientReplyInvalid, `its error code is a number (1.5), not an integer`)},
		{"error without a code", `"error":{"message":"no"}`, fail(askcore.SituationClientReplyInvalid, `its error has no code`)},
		{"error a string", `"error":"boom"`, fail(askcore.SituationClientReplyInvalid, `its error is a string ("boom"), not an object with a code and a message`)},
		{"error message a number", `"error":{"code":-32000,"message":5}`, fail(askcore.SituationClientReplyInvalid, `its error message is a number (5), not a string`)},
		{"error without a message", `"error":{"code":-32000}`, fail(askcore.SituationClientError, `(JSON-RPC error -32000)`)},
		{"error with an empty message", `"error":{"code":-32000,"message":""}`, fail(askcore.SituationClientError, `(JSON-RPC error -32000)`)},
		{"error with data", `"error":{"code":-32603,"message":"busy","data":{"why":"x"}}`, fail(askcore.SituationClientError, `busy {"why":"x"} (JSON-RPC error -32603)`)},
		{"result and error", `"result":{"action":"decline"},"error":{"code":1,"message":"no"}`, fail(askcore.SituationClientReplyInvalid, `it has both a result and an error`)},
		{"jsonrpc 1.0", `"result":{"action":"decline"},"jsonrpc":"1.0"`, fail(askcore.SituationClientReplyInvalid, `its "jsonrpc" is a string ("1.0"), not "2.0"`)},
		{"no result", ``, fail(askcore.SituationClientNoResult, "")},
		{"result null", `"result":null`, fail(askcore.SituationClientNoResult, "")},
		{"action a number", `"result":{"action":7}`, judged(`{"action":7}`)},
		{"result a string", `"result":"x"`, judged(`"x"`)},
		// The core cannot read this reply as an answer: the form goes back
		// to the person with its message (want "": asked again).
		{"content an array", `"result":{"action":"accept","content":[1]}`, ""},
		{"content a nested object", `"result":{"action":"accept","content":{"answer":{"x":1}}}`, ""},
	}
	p := startProc(t, "--engine", "native")
	p.handshake("2025-11-25", `{"elicitation":{"form":{}}}`)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := 100 + i
			el := p.ask(id, openArgs)
			resp := `{"jsonrpc":"2.0","id":` + string(el.ID)
			if tc.response != "" {
				resp += "," + tc.response
			}
			if !strings.Contains(tc.response, `"jsonrpc"`) {
				resp = resp + "}"
			} else {
				resp = strings.Replace(resp, `"jsonrpc":"2.0",`, "", 1) + "}"
			}
			p.sendSlowly(resp)
			m := p.recv()
			if tc.want == "" {
				require.Equal(t, "elicitation/create", m.Method, "%s", m.raw)
				assert.Contains(t, string(m.Params), `"message":"The form's`, "led by the core's message for the person")
				good := `{"action":"accept","content":{"answer":"fixed"}}`
				p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + good + `}`)
				assert.Equal(t, judged(good), p.toolText(p.recv(), id))
				return
			}
			text := p.toolText(m, id)
			assert.Equal(t, tc.want, text)
			for _, sdk := range []string{"json:", "cannot unmarshal", "EOF", "calling \\\"elicitation/create\\\""} {
				assert.NotContains(t, text, sdk, "go-sdk's words never reach the model")
			}
		})
	}
	t.Run("a reply over the limit", func(t *testing.T) {
		el := p.ask(200, openArgs)
		p.sendInChunks(`{"result":{"action":"accept","content":{"answer":"` + strings.Repeat("a", maxLineBytes) + `"}},"jsonrpc":"2.0","id":` + string(el.ID) + `}`)
		size := len(`{"result":{"action":"accept","content":{"answer":""}},"jsonrpc":"2.0","id":}`) + maxLineBytes + len(el.ID)
		assert.Equal(t, fail(askcore.SituationClientReplyInvalid, "it is "+itoa(size)+" bytes long, over the limit of 4194304 bytes"), p.toolText(p.recv(), 200))
	})
	t.Run("and the next question is answered", func(t *testing.T) {
		el := p.ask(300, openArgs)
		reply := `{"action":"accept","content":{"answer":"still here"}}`
		p.send(`{"jsonrpc":"2.0","id":` + string(el.ID) + `,"result":` + reply + `}`)
		assert.Equal(t, judged(reply), p.toolText(p.recv(), 300))
	})
}

// TestSignalsWithdrawPendingQuestions sends SIGTERM, SIGINT and SIGHUP to
// askcore-mcp with two questions pending, on both engines: each call is
// answered with the core's stopped error naming the signal, each form is
// withdrawn (notifications/cancelled), and the process exits with 128 plus
// the signal's number within the documented 2 s.
func TestSignalsWithdrawPendingQuestions(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}[sig]
			t.Run(engine+"/"+name, func(t *testing.T) {
				p := startProc(t, "--engine", engine)
				p.handshake("2025-11-25", `{"elicitation":{"form":{}}}`)
				forms := map[string]bool{}
				for _, id := range []int{2, 3} {
					forms[string(p.ask(id, openArgs).ID)] = true
				}
				signalled := time.Now()
				require.NoError(t, p.cmd.Process.Signal(sig))
				want := string(nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationStopped, Detail: name}).JSON())
				answered, cancelled := map[string]bool{}, map[string]bool{}
				for len(answered) < 2 || len(cancelled) < 2 {
					m := p.recv()
					switch {
					case m.Method == "notifications/cancelled":
						var params struct {
							RequestID json.RawMessage `json:"requestId"`
							Reason    string          `json:"reason"`
						}
						require.NoError(t, json.Unmarshal(m.Params, &params))
						require.True(t, forms[string(params.RequestID)], "cancelled %s", m.raw)
						require.False(t, cancelled[string(params.RequestID)], "cancelled twice: %s", m.raw)
						cancelled[string(params.RequestID)] = true
					default:
						id := string(m.ID)
						var n int
						require.NoError(t, json.Unmarshal(m.ID, &n), "%s", m.raw)
						assert.Equal(t, want, p.toolText(m, n))
						answered[id] = true
					}
				}
				status := p.wait()
				elapsed := time.Since(signalled)
				assert.Equal(t, 128+int(sig), status, "stderr:\n%s", p.stderr.String())
				assert.Less(t, elapsed, signaltest.ExitBound, "exit bounded by the program's own timers")
				t.Logf("%s %s: exited %d after %s", engine, name, status, elapsed.Round(time.Millisecond))
			})
		}
	}
}

// TestInputRequiredResultOnTheWire: a 2026-07-28 client gets the form in
// an input-required result without "content": null beside it.
func TestInputRequiredResultOnTheWire(t *testing.T) {
	p := startProc(t, "--engine", "native")
	p.handshake("2026-07-28", `{"elicitation":{"form":{}}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + openArgs + `}}`)
	m := p.recv()
	require.Nil(t, m.Error, "%s", m.raw)
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Result, &res))
	assert.Equal(t, `"input_required"`, string(res["resultType"]), "%s", m.raw)
	assert.Contains(t, string(res["inputRequests"]), `"ask_user_question"`)
	_, hasContent := res["content"]
	assert.False(t, hasContent, "no content in an input-required result: %s", m.raw)
	// The retry with the reply is answered with the core's bytes.
	reply := `{"action":"accept","content":{"answer":"Hardy"}}`
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + openArgs + `,"inputResponses":{"ask_user_question":` + reply + `}}}`)
	want, _ := coretest.FormAnswer(t, openArgs, reply)
	assert.Equal(t, string(want), p.toolText(p.recv(), 3))
}

// TestBatchesOnProtocol20250326: MCP 2025-03-26 had JSON-RPC batches, and
// a session on it still gets them: one array of responses, in the order of
// the requests, none for a notification.
func TestBatchesOnProtocol20250326(t *testing.T) {
	p := startProc(t, "--engine", "native")
	p.handshake("2025-03-26", `{"elicitation":{}}`)
	p.sendSlowly(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":"b","method":"tools/list"},"junk"]`)
	var replies []msg
	m := p.recv()
	require.NoError(t, json.Unmarshal(m.raw, &replies), "%s", m.raw)
	require.Len(t, replies, 3, "%s", m.raw)
	ids := map[string]msg{}
	for _, r := range replies {
		ids[string(r.ID)] = r
	}
	assert.Nil(t, ids[`"a"`].Error)
	assert.Contains(t, string(ids[`"b"`].Result), `"ask_user_question"`)
	require.NotNil(t, ids["null"].Error, "%s", m.raw)
	assert.Equal(t, int64(-32600), ids["null"].Error.Code)
	p.ping("after")
	// A batch of notifications only gets no reply.
	p.send(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}]`)
	p.ping("after-notifications")
}
