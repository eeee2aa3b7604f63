package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0, whose line reader
// (Connection.receive) is a bufio.Scanner with a 10 MiB buffer:
//
//   - a longer line ends the connection: receive returns "bufio.Scanner:
//     token too long", every pending request fails, and askcore-acp exits
//     0 with nothing on stderr at the default log level;
//   - a line that is not a JSON object (not JSON, a bare value, a batch
//     array, an object the SDK cannot decode) is logged whole, at any
//     length, and dropped: the client never learns, and a request in it
//     waits for a response that never comes.
//
// lineGuard sits between the client and the SDK and frames the lines
// itself, never holding more than maxLineBytes of one:
//
//   - a line longer than maxLineBytes is discarded as it streams by (only
//     its top-level "id" and the names of its top-level keys are kept, by
//     envelopeScan), logged naming the limit, and answered: a request with
//     a readable id gets -32600 for that id; a response to one of our
//     requests (an elicitation answer) becomes an error response for its
//     id, fed to the SDK, so the question fails with ASK_FAILED instead of
//     waiting; anything else is dropped with the log line;
//   - not JSON gets -32700, a bare value -32600, a batch array -32600
//     ("JSON-RPC batches are not supported"), an object the SDK cannot
//     decode -32600: with the line's id when one can be read, else a null
//     id, as the JSON-RPC 2.0 specification says and as the official
//     TypeScript SDK does; a malformed response to one of our requests is
//     repaired (repair.go);
//   - every other line reaches the SDK byte for byte, notifications at
//     the pace the SDK handles them (flow control, below: the SDK ends
//     the connection when 1,024 notifications wait to be handled).
//
// The limit is the SDK's own (a line the scanner holds, its newline
// included): raising it needs a new line reader in the SDK. Upstream
// gap: acp-go-sdk has no option for its scanner's buffer and ends the
// connection on ErrTooLong instead of skipping the line. Delete this file
// (keeping repair.go's job in mind) when the SDK skips oversized lines and
// answers unparseable ones; TestLineGuard and TestBinaryHostileLines pin
// the behaviour either way.
//
// The guard answers the client through output, the writer the SDK writes
// to as well, from a goroutine of its own (a client that does not read
// cannot stall the reader), and output counts the client's requests still
// unanswered so that a signal can wait for their responses (main.go).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// maxLineBytes is the longest line askcore-acp reads, its newline
// included: 10 MiB, what acp-go-sdk v0.13.0's scanner holds. A longer
// line is discarded as it streams in, never held whole.
const maxLineBytes = 10 << 20

const (
	// guardReadBytes is the guard's read buffer.
	guardReadBytes = 64 << 10
	// keepLineBytes is the line buffer kept from line to line; a longer
	// line goes on in blocks of that size, released once it is read.
	keepLineBytes = 1 << 20
	// maxQueuedReplies bounds the guard's answers waiting for a client
	// that does not read; more are dropped with a log line.
	maxQueuedReplies = 256
	// logExcerptBytes is how much of a refused line a log record quotes.
	logExcerptBytes = 80
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// lineGuard is the io.Reader the SDK reads the client's lines from.
type lineGuard struct {
	src *bufio.Reader
	out *output
	log *slog.Logger

	flowMu   sync.Mutex
	flowCond *sync.Cond
	flowSent int    // notifications since the last barrier
	flowSeq  uint64 // the last barrier queued
	flowDone uint64 // the last barrier the SDK handled

	line    []byte   // the line being read (its first keepLineBytes)
	more    [][]byte // the rest of a line longer than that
	size    int      // the line's length so far
	pending []byte   // what the SDK reads next
	err     error    // the source's error, returned once pending is empty
}

func newLineGuard(r io.Reader, out *output, log *slog.Logger) *lineGuard {
	g := &lineGuard{src: bufio.NewReaderSize(r, guardReadBytes), out: out, log: log}
	g.flowCond = sync.NewCond(&g.flowMu)
	return g
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			g.out.closeReplies()
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line and sets pending to what the SDK gets of it.
func (g *lineGuard) next() {
	g.line, g.more, g.size = g.line[:0], nil, 0
	for {
		chunk, err := g.src.ReadSlice('\n')
		// Without its newline yet (err != nil: more bytes come, or the
		// input ended), the line needs one more byte in the SDK's
		// scanner: the newline, or at EOF the room the scanner keeps.
		if g.size+len(chunk) > maxLineBytes-boolInt(err != nil) {
			g.discard(chunk, err)
			return
		}
		g.add(chunk)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			g.err = err
		}
		break
	}
	g.pending = g.judge(g.whole())
}

// add appends p to the line: to line up to keepLineBytes, then to blocks
// of that size (a long line is never copied to grow it).
func (g *lineGuard) add(p []byte) {
	g.size += len(p)
	for len(p) > 0 {
		var dst *[]byte
		switch {
		case len(g.more) == 0 && len(g.line) < keepLineBytes:
			if len(g.line) == cap(g.line) {
				line := make([]byte, len(g.line), min(max(2*cap(g.line), guardReadBytes), keepLineBytes))
				copy(line, g.line)
				g.line = line
			}
			dst = &g.line
		default:
			if len(g.more) == 0 || len(g.more[len(g.more)-1]) == keepLineBytes {
				g.more = append(g.more, make([]byte, 0, keepLineBytes))
			}
			dst = &g.more[len(g.more)-1]
		}
		n := min(len(p), cap(*dst)-len(*dst))
		*dst = append(*dst, p[:n]...)
		p = p[n:]
	}
}

// whole is the line in one piece.
func (g *lineGuard) whole() []byte {
	if len(g.more) == 0 {
		return g.line
	}
	b := make([]byte, 0, g.size)
	b = append(b, g.line...)
	for _, m := range g.more {
		b = append(b, m...)
	}
	g.more = nil
	return b
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// discard skips the rest of a line longer than maxLineBytes (line holds
// its first bytes, chunk the next ones) without keeping it, then answers
// it from what envelopeScan read on the way.
func (g *lineGuard) discard(chunk []byte, err error) {
	var scan envelopeScan
	scan.feed(g.line)
	for _, m := range g.more {
		scan.feed(m)
	}
	n := g.size
	g.more = nil // let the head go now
	for {
		scan.feed(chunk)
		n += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = g.src.ReadSlice('\n')
	}
	if err != nil {
		g.err = err
	}
	if n > 0 && err == nil {
		n-- // the newline
	}
	// The head's blocks (up to maxLineBytes) are garbage now: give the
	// memory back at once rather than minutes later, so that one
	// oversized line does not leave the process that much bigger.
	debug.FreeOSMemory()
	id := scan.usableID()
	attrs := []any{"bytes", n, "limit", maxLineBytes}
	if id != nil {
		attrs = append(attrs, "id", string(id))
	}
	switch {
	case id != nil && scan.method:
		g.log.Warn("discarded a request longer than the line limit; answered -32600", attrs...)
		g.reply(errorResponse(id, codeInvalidRequest,
			fmt.Sprintf("Invalid request: the line is %d bytes; askcore-acp reads lines of at most %d bytes, newline included", n, maxLineBytes),
			map[string]any{"bytes": n, "maxLineBytes": maxLineBytes}))
	case id != nil && (scan.result || scan.error):
		g.log.Warn("discarded a response longer than the line limit; the request it answers fails", attrs...)
		g.pending = errorResponse(id, codeInternalError,
			fmt.Sprintf("the client's response is %d bytes, over the %d-byte line limit of askcore-acp", n, maxLineBytes), nil)
	default:
		g.log.Warn("discarded a line longer than the line limit (no id to answer)", attrs...)
	}
}

// judge returns what the SDK gets of a whole line: the line, a repaired
// response (repair.go), or nothing when the guard answered the client
// itself.
func (g *lineGuard) judge(line []byte) []byte {
	text := bytes.TrimSpace(line)
	if len(text) == 0 {
		return line
	}
	if !json.Valid(text) {
		// A response for one of our requests cut short must not leave it
		// waiting: read what the head says.
		var scan envelopeScan
		scan.feed(text)
		id := scan.usableID()
		if id != nil && !scan.method && (scan.result || scan.error) {
			g.log.Warn("a response that is not valid JSON; the request it answers fails", "id", string(id), "line", excerpt(text))
			return malformedResponse(id)
		}
		g.refuse(id, scan.method, codeParseError, "Parse error", text)
		return nil
	}
	switch text[0] {
	case '{':
	case '[':
		g.refuse(nil, false, codeInvalidRequest, "Invalid request: JSON-RPC batches are not supported", text)
		return nil
	default:
		g.refuse(nil, false, codeInvalidRequest, "Invalid request: a message must be a JSON object", text)
		return nil
	}
	var msg probeMessage
	if err := json.Unmarshal(text, &msg); err != nil {
		var scan envelopeScan
		scan.feed(text)
		id := scan.usableID()
		if !scan.method && (scan.result || scan.error) {
			if id == nil {
				g.log.Warn("dropped a malformed response without a usable id", "line", excerpt(text))
				return nil
			}
			g.log.Warn("a malformed response; the request it answers fails", "id", string(id), "line", excerpt(text))
			return malformedResponse(id)
		}
		g.refuse(id, scan.method, codeInvalidRequest, "Invalid request: "+typeError(err), text)
		return nil
	}
	switch {
	case msg.ID == nil && msg.Method == "":
		if msg.Result || msg.Error != nil {
			g.log.Warn("dropped a response without an id", "line", excerpt(text))
			return nil
		}
		g.refuse(nil, false, codeInvalidRequest, "Invalid request: neither a method nor an id", text)
		return nil
	case msg.Method == flowMethod: // ours alone
		if msg.ID != nil {
			g.reply(errorResponse(*msg.ID, codeMethodNotFound, "Method not found: "+flowMethod, nil))
		}
		return nil
	case msg.ID != nil && msg.Method != "":
		g.out.track(*msg.ID)
	case msg.ID == nil && msg.Method != "$/cancel_request": // the SDK handles that one at once
		return g.admitNotification(line)
	}
	return line
}

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

const codeMethodNotFound = -32601

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

// refuse answers a line the SDK would drop: with id when the line has a
// readable one and is a request (a method key), else with a null id; a
// method without an id is a notification: only logged.
func (g *lineGuard) refuse(id json.RawMessage, method bool, code int, message string, text []byte) {
	if id == nil && method {
		g.log.Warn("dropped a malformed notification", "error", message, "line", excerpt(text))
		return
	}
	if !method {
		id = nil
	}
	g.log.Warn("refused a malformed line", "code", code, "error", message, "line", excerpt(text))
	g.reply(errorResponse(id, code, message, nil))
}

// reply queues an answer to the client.
func (g *lineGuard) reply(line []byte) {
	if !g.out.reply(line) {
		g.log.Warn("an answer to a malformed line was dropped: the client is not reading its input")
	}
}

// typeError names the member of an object the SDK cannot decode.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("the member %q cannot be %s", te.Field, te.Value)
	}
	return "the message's members have the wrong types"
}

// probeMessage decodes a line as acp-go-sdk does (anyMessage), without
// copying params or result: it fails exactly where the SDK's decoding
// fails.
type probeMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      *json.RawMessage  `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  presence          `json:"params,omitempty"`
	Result  presence          `json:"result,omitempty"`
	Error   *acp.RequestError `json:"error,omitempty"`
}

// presence records that a value was there (any JSON value, as
// json.RawMessage takes it) without keeping it.
type presence bool

func (p *presence) UnmarshalJSON([]byte) error { *p = true; return nil }

type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorObject  `json:"error"`
}

type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// errorResponse is a JSON-RPC error response line; a nil id is null.
func errorResponse(id json.RawMessage, code int, message string, data any) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorObject{code, message, data}})
	if err != nil { // an id that is not JSON: usableID keeps those out
		return nil
	}
	return append(b, '\n')
}

// excerpt is the head of a refused line for a log record.
func excerpt(text []byte) string {
	if len(text) <= logExcerptBytes {
		return string(text)
	}
	return string(text[:logExcerptBytes]) + "… (" + strconv.Itoa(len(text)) + " bytes)"
}

// envelopeScan reads the top level of a JSON object as its bytes go by,
// in pieces, keeping only the value of "id" (when short) and which of
// "method", "result" and "error" it has. It does not validate: it is for
// lines too long to parse or not valid JSON at all.
type envelopeScan struct {
	state    scanState
	depth    int // nesting inside the current value
	inString bool
	escaped  bool
	key      []byte // the current top-level key (its first bytes)
	keyLong  bool
	capture  bool // reading the value of "id"
	id       []byte
	idLong   bool
	keys     int // top-level keys seen

	method, result, error, hasID bool
}

type scanState uint8

const (
	scanStart   scanState = iota // before the object
	scanKey                      // before a key (or the end)
	scanInKey                    // inside a key
	scanColon                    // after a key
	scanValue                    // before a value
	scanInValue                  // inside a value
	scanDone                     // the object ended, or this is not one
)

const maxIDBytes = 128

func (s *envelopeScan) feed(p []byte) {
	for _, c := range p {
		if s.state == scanDone {
			return
		}
		s.step(c)
	}
}

func (s *envelopeScan) step(c byte) {
	space := c == ' ' || c == '\t' || c == '\r' || c == '\n'
	switch s.state {
	case scanStart:
		switch {
		case space:
		case c == '{':
			s.state = scanKey
		default:
			s.state = scanDone
		}
	case scanKey:
		switch {
		case space || c == ',':
		case c == '"':
			s.state, s.key, s.keyLong, s.escaped = scanInKey, s.key[:0], false, false
		default: // '}' or junk
			s.state = scanDone
		}
	case scanInKey:
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.state = scanColon
			s.keys++
			k := string(s.key)
			if s.keyLong {
				k = ""
			}
			switch k {
			case "id":
				s.hasID, s.capture, s.id, s.idLong = true, true, s.id[:0], false
			case "method":
				s.method = true
			case "result":
				s.result = true
			case "error":
				s.error = true
			}
			return
		}
		if len(s.key) < 8 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case scanColon:
		switch {
		case space:
		case c == ':':
			s.state = scanValue
		default:
			s.state = scanDone
		}
	case scanValue:
		if space {
			return
		}
		s.state, s.depth, s.inString, s.escaped = scanInValue, 0, false, false
		s.value(c)
	case scanInValue:
		s.value(c)
	}
}

// value reads one byte of a top-level member's value.
func (s *envelopeScan) value(c byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
		}
		s.keep(c)
		return
	}
	switch c {
	case '"':
		s.inString = true
	case '{', '[':
		s.depth++
	case '}', ']':
		if s.depth == 0 { // the object's end
			s.capture = false
			s.state = scanDone
			return
		}
		s.depth--
	case ',':
		if s.depth == 0 {
			s.capture = false
			s.state = scanKey
			return
		}
	}
	s.keep(c)
}

func (s *envelopeScan) keep(c byte) {
	if !s.capture {
		return
	}
	if len(s.id) >= maxIDBytes {
		s.idLong = true
		return
	}
	s.id = append(s.id, c)
}

// usableID is the top-level id when it was read whole and is a number or
// a string, else nil.
func (s *envelopeScan) usableID() json.RawMessage {
	if !s.hasID || s.idLong || s.capture { // capture: the line ended inside the id
		return nil
	}
	id := bytes.TrimSpace(s.id)
	if !usableID(id) {
		return nil
	}
	return append(json.RawMessage(nil), id...)
}

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
func (o *output) track(id json.RawMessage) {
	key, ok := idKey(id)
	if !ok || len(key) > maxIDBytes { // answered() reads ids that long
		return
	}
	o.tmu.Lock()
	o.open[key]++
	o.tmu.Unlock()
}

// answered uncounts the request a response line answers.
func (o *output) answered(line []byte) {
	o.tmu.Lock()
	defer o.tmu.Unlock()
	if len(o.open) == 0 {
		return
	}
	var s envelopeScan
	for i := 0; i < len(line) && s.state != scanDone; i++ {
		s.step(line[i])
		if s.keys >= 3 || s.method { // past the id of a response, or a request
			break
		}
	}
	if s.method || !s.hasID {
		return
	}
	if s.capture || s.idLong { // stopped inside the id
		return
	}
	key, ok := idKey(bytes.TrimSpace(s.id))
	if !ok || o.open[key] == 0 {
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

// idKey is a request id as the SDK echoes it (compact JSON).
func idKey(id json.RawMessage) (string, bool) {
	var b bytes.Buffer
	if len(id) == 0 || json.Compact(&b, id) != nil {
		return "", false
	}
	return b.String(), true
}
