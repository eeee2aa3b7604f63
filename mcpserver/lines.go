package mcpserver

// lines.go is the stdio connection: it replaces go-sdk's stdio transport
// (mcp.IOTransport, mcp.StdioTransport) with one that reads lines through
// the JSON-RPC line guard (internal/rpcline) and hands go-sdk only what it
// can take. Each gap it closes is in a file of its own, named sdkgap_*,
// headed by the upstream issue it waits for. What the connection does on
// the wire is described in docs/mcp.md ("Lines").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore/internal/rpcline"
)

// maxLineBytes is the longest message askcore-mcp reads: 4 MiB, the
// core's input limit (askcore.MaxInputBytes). Nothing longer can be
// answered: the core refuses tool arguments over 256 KiB and any reply
// that makes its input longer than 4 MiB. A longer line is discarded as
// it is read (sdkgap_linelimit.go).
const maxLineBytes = 4 << 20

// lineTransport is an mcp.Transport over a newline-delimited stream.
// Connect may be called once; conn is the connection it made.
type lineTransport struct {
	r io.Reader
	w io.Writer
	// closeReader, when set, is called by Close to unblock a pending read
	// (stdin cannot be; a test's pipe can).
	closeReader func() error
	log         *slog.Logger
	limit       int // 0: maxLineBytes

	conn *lineConn
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	if t.conn != nil {
		return nil, errors.New("lineTransport: Connect called twice")
	}
	limit := t.limit
	if limit == 0 {
		limit = maxLineBytes
	}
	log := t.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &lineConn{
		lines:       rpcline.NewReader(t.r, limit),
		w:           t.w,
		closeReader: t.closeReader,
		log:         log,
		incoming:    make(chan readResult),
		closed:      make(chan struct{}),
		inFlight:    map[string]string{},
		outgoing:    map[string]string{},
		cancelled:   map[string]bool{},
		batches:     map[string]*rpcline.Batch{},
		changed:     make(chan struct{}),
		big:         map[string]bool{},
	}
	t.conn = c
	go c.readLoop()
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is the mcp.Connection of a lineTransport.
type lineConn struct {
	lines       *rpcline.Reader
	w           io.Writer
	closeReader func() error
	log         *slog.Logger

	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once

	writeMu sync.Mutex // one line at a time on w

	mu sync.Mutex
	// inFlight: the client's requests go-sdk has not answered yet, by id
	// key (idKey), with their method.
	inFlight map[string]string
	// outgoing: our requests to the client not answered yet, with their
	// method; cancelled: those cancelled since (true: by withdraw), whose
	// response may still come.
	outgoing  map[string]string
	cancelled map[string]bool
	// batches: the batch of each request in flight that came in one.
	batches map[string]*rpcline.Batch
	// version is the negotiated protocol version, read from our answer to
	// initialize ("" before).
	version string
	// initializing: an initialize reached go-sdk (sdkgap_handshake.go).
	initializing bool
	// changed is closed (and replaced) whenever inFlight shrinks.
	changed chan struct{}
	// big: the requests in flight that came on lines of bigLine or more.
	big map[string]bool
}

// SessionID implements mcp.Connection (stdio has no session id).
func (c *lineConn) SessionID() string { return "" }

// Read implements mcp.Connection: the next message accepted by readLoop.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Close implements mcp.Connection. It does not close the writer: stdout
// stays open for the process.
func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.closeReader != nil {
			err = c.closeReader()
		}
	})
	return err
}

// deliver hands msg to go-sdk; false once the connection is closed.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLoop reads every line until the input ends or fails, and gives
// go-sdk what it accepts.
func (c *lineConn) readLoop() {
	for {
		line, err := c.lines.Next()
		var tl *rpcline.TooLong
		switch {
		case errors.As(err, &tl):
			c.tooLong(tl)
			releaseMemory()
			continue
		case err != nil:
			// The end of the input (or a read error) ends the session.
			c.deliver(readResult{err: err})
			return
		}
		line = rpcline.TrimEOL(line)
		if len(line) >= bigLine {
			c.markBig(line)
		}
		if !c.line(line) {
			return
		}
	}
}

// line handles one line; false once the connection is closed.
func (c *lineConn) line(line []byte) bool {
	switch trimmed := bytes.TrimSpace(line); {
	case len(trimmed) == 0:
		return true // blank lines are not messages
	case rpcline.IsBatch(trimmed):
		return c.batch(trimmed)
	}
	msg, rep := c.message(line, nil)
	if rep != nil {
		_ = c.writeLine(rep)
	}
	if msg == nil {
		return true
	}
	return c.deliver(readResult{msg: msg})
}

func (c *lineConn) protocol() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// bigLine is the length from which a message's memory is given back to
// the system once it is answered (or discarded): a client that sent one
// large call should not leave the server that much larger for minutes.
const bigLine = 1 << 20

// markBig remembers the id of a large request, to release its memory
// once it has been answered.
func (c *lineConn) markBig(line []byte) {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &env) != nil {
		return
	}
	if id, err := rpcline.ParseID(env.ID); id.Key != "" && err == nil {
		c.mu.Lock()
		c.big[id.Key] = true
		c.mu.Unlock()
	}
}

func (c *lineConn) takeBig(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	big := c.big[key]
	delete(c.big, key)
	return big
}

// releaseAfter is how long after answering a large request its memory is
// released: go-sdk drops the request once the response is written.
const releaseAfter = 250 * time.Millisecond

// releaseMemory returns the memory of a large message to the system at
// once (a forced collection: a few milliseconds, only after such a
// message). Go would return it too, over minutes.
func releaseMemory() { debug.FreeOSMemory() }

// Write implements mcp.Connection: go-sdk's messages, one per line, with
// the bookkeeping the reader needs and go-sdk's responses repaired
// (sdkgap_responses.go).
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key := idKey(m.ID)
		c.mu.Lock()
		method, known := c.inFlight[key]
		delete(c.inFlight, key)
		b := c.batches[key]
		delete(c.batches, key)
		initialized := c.version != ""
		if known {
			close(c.changed)
			c.changed = make(chan struct{})
		}
		c.mu.Unlock()
		m = repairResponse(m, method, initialized)
		if c.takeBig(key) {
			// After go-sdk and the handler have let go of the request.
			defer time.AfterFunc(releaseAfter, releaseMemory)
		}
		if method == "initialize" && m.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Result, &r) == nil {
				c.mu.Lock()
				c.version = r.ProtocolVersion
				c.mu.Unlock()
			}
		}
		data, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return err
		}
		if b != nil {
			if flush := b.Reply(data); flush != nil {
				return c.writeLine(flush)
			}
			return nil
		}
		return c.writeLine(data)
	case *jsonrpc.Request:
		if m.IsCall() {
			c.mu.Lock()
			c.outgoing[idKey(m.ID)] = m.Method
			c.mu.Unlock()
		} else if m.Method == "notifications/cancelled" && c.cancelSent(m.Params) {
			return nil // withdraw already sent it
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// cancelSent records go-sdk's cancellation of one of our requests and
// reports whether withdraw already sent one for it.
func (c *lineConn) cancelSent(params json.RawMessage) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, err := rpcline.ParseID(p.RequestID)
	if id.Key == "" || err != nil {
		return false
	}
	key := id.Key
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, pending := c.outgoing[key]; pending {
		delete(c.outgoing, key)
		c.cancelled[key] = false
	}
	return c.cancelled[key]
}

// withdraw tells the client that every request of ours still pending is
// cancelled (notifications/cancelled, with reason), so that it closes the
// forms nobody will wait for. go-sdk's own cancellation of the same
// request, if it comes later, is not sent again.
func (c *lineConn) withdraw(reason string) {
	c.mu.Lock()
	var ids []string
	for key := range c.outgoing {
		ids = append(ids, key)
		c.cancelled[key] = true
	}
	clear(c.outgoing)
	c.mu.Unlock()
	for _, key := range ids {
		n, err := rpcline.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": rpcline.KeyValue(key), "reason": reason},
		})
		if err == nil {
			_ = c.writeLine(n)
		}
	}
}

// waitAnswered returns once every request of the client has been answered,
// or when ctx ends (false).
func (c *lineConn) waitAnswered(ctx context.Context) bool {
	for {
		c.mu.Lock()
		n, ch := len(c.inFlight), c.changed
		c.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// writeLine writes data and a newline, one writer at a time.
func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	_, err := c.w.Write(buf)
	return err
}
