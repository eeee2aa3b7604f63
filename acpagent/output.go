package acpagent

// output is askcore's own, not a workaround: the one writer of a
// connection, which counts the client's requests still unanswered so
// that a stop can wait for their responses (Serve).

import (
	"io"
	"sync"
	"time"

	"github.com/askcore/askcore/internal/rpcline"
)

// output is the writer the SDK and the guard write to: one line per Write
// (the SDK writes each message whole, connection.go sendMessage), under a
// lock. It counts the client's requests that have no response yet.
type output struct {
	w       io.Writer
	mu      sync.Mutex
	replies chan []byte
	closed  sync.Once
	done    chan struct{} // closed once the replies are written

	tmu   sync.Mutex
	open  map[string]int // request id -> requests with that id unanswered
	quiet chan struct{}  // closed when open becomes empty, while waited on
}

func newOutput(w io.Writer) *output {
	o := &output{w: w, replies: make(chan []byte, maxQueuedReplies), done: make(chan struct{}), open: make(map[string]int)}
	go o.writeReplies()
	return o
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	n, err := o.w.Write(p)
	o.mu.Unlock()
	o.answered(p) // once written: waitAnswered then means "on the wire"
	return n, err
}

// reply queues one of the guard's answers; false when the queue is full.
func (o *output) reply(line []byte) bool {
	if line == nil {
		return true
	}
	select {
	case o.replies <- line:
		return true
	default:
		return false
	}
}

func (o *output) writeReplies() {
	defer close(o.done)
	for line := range o.replies {
		o.mu.Lock()
		_, err := o.w.Write(line)
		o.mu.Unlock()
		if err != nil {
			for range o.replies { // the client is gone: drain
			}
			return
		}
	}
}

// closeReplies ends writeReplies once the queued answers are written (the
// client's input ended).
func (o *output) closeReplies() { o.closed.Do(func() { close(o.replies) }) }

// track counts a request the SDK is about to read.
func (o *output) track(id rpcline.ID) {
	if len(id.Raw) > rpcline.MaxScannedBytes { // answered() reads ids that long
		return
	}
	o.tmu.Lock()
	o.open[id.Key]++
	o.tmu.Unlock()
}

// scanStep is how many bytes of a response answered scans at a time.
const scanStep = 64

// answered uncounts the request a response line answers.
func (o *output) answered(line []byte) {
	o.tmu.Lock()
	defer o.tmu.Unlock()
	if len(o.open) == 0 {
		return
	}
	// The SDK writes "jsonrpc", then "id", then "result" or "error": the
	// scan stops there, before a long result.
	var s rpcline.Scanner
	for i := 0; i < len(line) && !s.Settled(); i += scanStep {
		s.Feed(line[i:min(i+scanStep, len(line))])
	}
	env := s.Envelope()
	if env.Request || env.ID == nil {
		return
	}
	id, err := rpcline.ParseID(env.ID)
	key := id.Key
	if err != nil || o.open[key] == 0 {
		return
	}
	if o.open[key]--; o.open[key] == 0 {
		delete(o.open, key)
	}
	if len(o.open) == 0 && o.quiet != nil {
		close(o.quiet)
		o.quiet = nil
	}
}

// waitAnswered waits until every request the client sent has its
// response written, until the deadline, or until gone is closed; it
// reports whether every request was answered.
func (o *output) waitAnswered(deadline time.Time, gone <-chan struct{}) bool {
	o.tmu.Lock()
	if len(o.open) == 0 {
		o.tmu.Unlock()
		return true
	}
	if o.quiet == nil {
		o.quiet = make(chan struct{})
	}
	quiet := o.quiet
	o.tmu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-quiet:
		return true
	case <-gone:
	case <-t.C:
	}
	return false
}

// unanswered is the number of the client's requests without a response.
func (o *output) unanswered() int {
	o.tmu.Lock()
	defer o.tmu.Unlock()
	n := 0
	for _, c := range o.open {
		n += c
	}
	return n
}
