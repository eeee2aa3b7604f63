package acpagent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/frontdoor"
)

// A signal with questions pending in two sessions: each question is
// withdrawn (the client sees $/cancel_request), its tool card fails with
// ASK_ABORTED naming the signal, each prompt ends with stopReason
// cancelled, and serve returns the signal once every response is out;
// nothing is left running.
func TestSignalWithdrawsPendingQuestions(t *testing.T) {
	before := goleak.IgnoreCurrent()
	asked := make(chan context.Context, 2)
	h := newHarness(t, harnessOptions{}, func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		asked <- ctx
		<-ctx.Done()
		return acp.UnstableCreateElicitationResponse{}, ctx.Err()
	})
	h.initialize(true)
	type result struct {
		stop    acp.StopReason
		err     error
		updates []acp.SessionUpdate
	}
	var sessions []acp.SessionId
	var done []chan result
	for range 2 {
		sid := h.newSession()
		ch := make(chan result, 1)
		go func() {
			resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
			ch <- result{resp.StopReason, err, h.client.takeUpdates(sid)}
		}()
		sessions, done = append(sessions, sid), append(done, ch)
	}
	var questions []context.Context
	for range 2 {
		select {
		case ctx := <-asked:
			questions = append(questions, ctx)
		case <-time.After(patience):
			t.Fatal("not asking")
		}
	}

	h.stop(frontdoor.Stopped{Signal: syscall.SIGTERM})
	for i, ch := range done {
		var r result
		select {
		case r = <-ch:
		case <-time.After(patience):
			t.Fatal("the prompt did not end after the signal")
		}
		require.NoError(t, r.err)
		assert.Equal(t, acp.StopReasonCancelled, r.stop)
		_, tools := summarize(t, r.updates)
		require.Len(t, tools, 2, "session %s", sessions[i])
		assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
		var e struct{ Code, Message string }
		require.NoError(t, json.Unmarshal(tools[1].rawOutput, &e))
		assert.Equal(t, "ASK_ABORTED", e.Code)
		assert.Contains(t, e.Message, "the agent received SIGTERM")
		assert.Equal(t, []string{e.Message}, tools[1].content, "the card shows the core's message")
	}
	for _, ctx := range questions {
		select {
		case <-ctx.Done(): // $/cancel_request reached the client
		case <-time.After(patience):
			t.Fatal("the elicitation was not cancelled")
		}
	}
	select {
	case <-h.returned:
	case <-time.After(patience):
		t.Fatal("serve did not return after the signal")
	}
	assert.Equal(t, frontdoor.Stopped{Signal: syscall.SIGTERM}, h.stopped)
	h.close()
	verifyNoLeaks(t, before)
}

// Hurrying a stop that waits for answers that do not come ends the wait at
// once, long before StopGrace.
func TestHurriedStopEndsTheWait(t *testing.T) {
	s := newServer(&Agent{log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	out := newOutput(&syncBuffer{})
	out.track(parseID(t, `7`)) // a request the SDK never answers
	in, client := io.Pipe()
	s.attach(acp.NewAgentSideConnection(s, out, in))
	hurry := make(chan struct{})
	close(hurry)
	start := time.Now()
	s.stop(frontdoor.Stopped{Signal: syscall.SIGTERM}, out, hurry)
	assert.Less(t, time.Since(start), StopGrace)
	assert.Equal(t, 1, out.unanswered())
	client.Close()
	<-s.conn.Done()
	out.closeReplies()
	<-out.done
}
