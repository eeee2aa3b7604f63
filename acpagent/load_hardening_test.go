package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hostgo"
)

// TestLoadManyConcurrentSessions: one askcore-acp connection (acp-go-sdk's
// client side over in-memory pipes) with 200+ sessions prompting at once.
// Each session's scripted model asks a question; the client holds every
// elicitation until all sessions are asking, then answers them all
// concurrently in random order, each with an answer derived from the
// session id on the wire. Every answer must reach its own session (none
// crossed), none may be lost, the heap stays bounded, and no goroutine is
// left once the connection closes.
func TestLoadManyConcurrentSessions(t *testing.T) {
	t.Run("native", func(t *testing.T) { loadSessions(t, "native", 200) })
	wasmSessions := 200
	if raceEnabled {
		wasmSessions = 50 // see raceEnabled
	}
	t.Run("wasm", func(t *testing.T) { loadSessions(t, "wasm", wasmSessions) })
}

func answerFor(sessionID string) string { return "answer for " + sessionID + " ✓" }

func loadSessions(t *testing.T, engineName string, n int) {
	before := goleak.IgnoreCurrent()
	type pending struct {
		scope wireScope
		reply chan acp.UnstableCreateElicitationResponse
	}
	asked := make(chan pending, n)
	var elicited atomic.Int64
	settings := testSettings(t, "")
	settings.Engine = engineName
	h := newHarness(t, harnessOptions{build: func(ctx context.Context) (*frontdoor.Runtime, error) {
		return frontdoor.Build(ctx, settings, noEnv)
	}}, func(ctx context.Context, scope wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		elicited.Add(1)
		p := pending{scope: scope, reply: make(chan acp.UnstableCreateElicitationResponse, 1)}
		asked <- p
		select {
		case r := <-p.reply:
			return r, nil
		case <-ctx.Done():
			return acp.UnstableCreateElicitationResponse{}, ctx.Err()
		}
	})
	h.initialize(true)
	// The engine builds in the background (a wazero compile for wasm);
	// wait for it here so that session/new does not time out on it.
	buildCtx, cancelBuild := context.WithTimeout(context.Background(), 3*time.Minute)
	rt, err := h.rt.get(buildCtx)
	cancelBuild()
	require.NoError(t, err)
	// The wasm engine opens at the first call that needs it: open it now,
	// so that the heap's base holds the compiled module, as the bound
	// below assumes (the fixed allowance is for instances and buffers).
	_, err = rt.Core.Normalize(context.Background(), `{"question":"warm?"}`)
	require.NoError(t, err)
	ids := make([]acp.SessionId, n)
	for i := range ids {
		ids[i] = h.newSession()
	}

	var heapBase runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapBase)
	start := time.Now()

	type outcome struct {
		id      acp.SessionId
		stop    acp.StopReason
		err     error
		updates []acp.SessionUpdate
	}
	outcomes := make(chan outcome, n)
	for _, id := range ids {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			resp, err := h.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
			outcomes <- outcome{id: id, stop: resp.StopReason, err: err, updates: h.client.takeUpdates(id)}
		}()
	}

	// Hold every question until all sessions are asking at once.
	held := make([]pending, 0, n)
	deadline := time.After(patience)
	for len(held) < n {
		select {
		case p := <-asked:
			held = append(held, p)
		case <-deadline:
			t.Fatalf("only %d of %d sessions asked", len(held), n)
		}
	}
	asking := time.Since(start)
	// What the pending questions hold, not the garbage left by getting
	// there (which a GC cycle may or may not have collected yet): collect,
	// then read, as for the base.
	var heapPeak runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapPeak)
	goroutinesPeak := runtime.NumGoroutine()

	// Answer all of them concurrently, in random order.
	rand.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
	var wg sync.WaitGroup
	for _, p := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			p.reply <- acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{
				Action: "accept", Content: map[string]any{"custom_answer": answerFor(p.scope.SessionID)}}}
		}()
	}
	wg.Wait()

	got := map[acp.SessionId]bool{}
	for range n {
		var o outcome
		select {
		case o = <-outcomes:
		case <-time.After(patience):
			t.Fatalf("%d of %d prompts ended", len(got), n)
		}
		require.NoError(t, o.err, "session %s", o.id)
		require.False(t, got[o.id], "session %s ended twice", o.id)
		got[o.id] = true
		assert.Equal(t, acp.StopReasonEndTurn, o.stop, "session %s", o.id)
		texts, tools := summarize(t, o.updates)
		want := answerFor(string(o.id))
		assert.Equal(t, []string{"Let me ask.", "You chose " + want + "."}, texts, "session %s: its model saw another session's answer", o.id)
		if assert.Len(t, tools, 2, "session %s", o.id) {
			assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
			assert.JSONEq(t, fmt.Sprintf(`{"answer":%q}`, want), string(tools[1].rawOutput), "session %s: crossed answer", o.id)
		}
	}
	elapsed := time.Since(start)
	var heapEnd runtime.MemStats
	runtime.ReadMemStats(&heapEnd)

	// Every elicitation on the wire was scoped to a session of this
	// connection, once per session.
	perSession := map[string]int{}
	for _, p := range h.tap.elicitations() {
		var sid string
		require.NoError(t, json.Unmarshal(p["sessionId"], &sid))
		perSession[sid]++
	}
	assert.Len(t, perSession, n)
	for _, id := range ids {
		assert.Equal(t, 1, perSession[string(id)], "session %s", id)
	}
	assert.EqualValues(t, n, elicited.Load())

	t.Logf("%s engine: %d sessions all asking after %v, all answered after %v; heap in use %.1f MiB before, %.1f MiB with %d questions pending (%.1f KiB each), %.1f MiB after; %d goroutines at the peak",
		engineName, n, asking.Round(time.Millisecond), elapsed.Round(time.Millisecond),
		mib(heapBase.HeapInuse), mib(heapPeak.HeapInuse), n, float64(heapPeak.HeapInuse-min(heapPeak.HeapInuse, heapBase.HeapInuse))/1024/float64(n), mib(heapEnd.HeapInuse),
		goroutinesPeak)
	// Bounded: a fixed allowance (compiled code, buffers) plus 128 KiB per
	// pending question, and on wasm what the engine may hold by design
	// beyond the one instance of the base: its pool (an instance per CPU)
	// at the size that recycles an instance. How many instances the load
	// makes, and whether the tiered start's compiled module arrived
	// before the base, is the machine's timing: at a load of 16-29 the
	// growth was 46 MiB for 50 questions under -race, 18 MiB after.
	allowance := uint64(32 << 20)
	if engineName == frontdoor.EngineWasm {
		allowance += uint64(runtime.GOMAXPROCS(0)) * hostgo.DefaultRecyclePages * 64 << 10
	}
	assert.Less(t, heapPeak.HeapInuse-min(heapPeak.HeapInuse, heapBase.HeapInuse), allowance+uint64(n)*128<<10,
		"the heap grew beyond %d MiB + 128 KiB per pending question", allowance>>20)

	h.close()
	verifyNoLeaks(t, before)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// The client disconnects while 200 sessions each have a question pending:
// every prompt ends, every elicitation's ctx is cancelled, serve returns
// and no goroutine is left.
func TestLoadDisconnectWithManyPendingQuestions(t *testing.T) {
	const n = 200
	before := goleak.IgnoreCurrent()
	asked := make(chan context.Context, n)
	h := newHarness(t, harnessOptions{}, func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		asked <- ctx
		<-ctx.Done()
		return acp.UnstableCreateElicitationResponse{}, ctx.Err()
	})
	h.initialize(true)
	ids := make([]acp.SessionId, n)
	for i := range ids {
		ids[i] = h.newSession()
	}
	ended := make(chan error, n)
	for _, id := range ids {
		go func() {
			resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
			if err == nil && resp.StopReason != acp.StopReasonCancelled {
				err = fmt.Errorf("session %s: stop reason %q after a disconnect", id, resp.StopReason)
			} else {
				err = nil // a closed connection is a fine way to end
			}
			ended <- err
		}()
	}
	pending := make([]context.Context, 0, n)
	for len(pending) < n {
		select {
		case ctx := <-asked:
			pending = append(pending, ctx)
		case <-time.After(patience):
			t.Fatalf("only %d of %d sessions asked", len(pending), n)
		}
	}
	start := time.Now()
	h.close()
	for range n {
		select {
		case err := <-ended:
			assert.NoError(t, err)
		case <-time.After(patience):
			t.Fatal("a prompt did not end with the connection")
		}
	}
	for _, ctx := range pending {
		select {
		case <-ctx.Done():
		case <-time.After(patience):
			t.Fatal("an elicitation was not cancelled by the disconnect")
		}
	}
	t.Logf("%d pending questions ended %v after the disconnect", n, time.Since(start).Round(time.Millisecond))
	verifyNoLeaks(t, before)
}
