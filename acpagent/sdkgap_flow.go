package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, which ends the
// connection when 1,024 notifications wait to be handled ("notification
// queue overflow"). Upstream: none filed; the issue text is
// docs/upstream/acp-go-sdk-notification-queue.md. Delete this file (and
// the flowMethod case of HandleExtensionMethod) when the SDK applies
// backpressure instead; TestBinaryNotificationFloodWithAQuestionPending
// pins the behaviour either way.

import (
	"encoding/json"
	"fmt"
)

// Flow control. acp-go-sdk queues each notification for a goroutine that
// handles them one at a time, and ends the connection when 1,024 wait
// ("notification queue overflow"): a client that writes notifications
// faster than they are handled (20,000 unknown ones, or 200,000
// session/cancel, at once) ended the agent. The guard lets at most two
// windows of flowWindow notifications be queued: after each window it
// queues a barrier of its own (an extension notification, flowMethod,
// which the server hands back with flowPassed when the SDK handles it) and
// reads no further notification while two barriers are still queued.
const (
	flowWindow = 256
	flowMethod = "_askcore-acp/flow"
)

// admitNotification waits until the SDK's queue has room for line, and
// returns line (followed by a barrier at the end of a window).
func (g *lineGuard) admitNotification(line []byte) []byte {
	g.flowMu.Lock()
	for g.flowSeq-g.flowDone >= 2 {
		g.flowCond.Wait()
	}
	g.flowSent++
	if g.flowSent < flowWindow {
		g.flowMu.Unlock()
		return line
	}
	g.flowSent = 0
	g.flowSeq++
	seq := g.flowSeq
	g.flowMu.Unlock()
	barrier := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"seq":%d}}`+"\n", flowMethod, seq)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line, '\n') // a last line without a newline
	}
	return append(line, barrier...)
}

// flowPassed records that the SDK handled the barrier with params.
func (g *lineGuard) flowPassed(params json.RawMessage) {
	var p struct {
		Seq uint64 `json:"seq"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	g.flowMu.Lock()
	if p.Seq > g.flowDone && p.Seq <= g.flowSeq {
		g.flowDone = p.Seq
		g.flowCond.Broadcast()
	}
	g.flowMu.Unlock()
}
