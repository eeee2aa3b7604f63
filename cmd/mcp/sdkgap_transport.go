package main

// sdkgap_transport.go replaces go-sdk's stdio transport (mcp.IOTransport,
// mcp.StdioTransport) with one that no line can end. The gaps it closes,
// measured with go-sdk v1.8.0 (and v1.7.0), are upstream's to fix:
//
//  1. One bad line ends the session. go-sdk's ioConn turns a line that is
//     not a JSON-RPC 2.0 message (not JSON, a bare number or string, no
//     method and no id, "jsonrpc":"1.0", an object id), a batch on
//     2025-06-18 or later, trailing data, or a line over MaxLineLength
//     (16 MiB by default, buffered whole first) into a read error, and
//     jsonrpc2.Connection closes the connection on any read error: every
//     pending call is lost and askcore-mcp exited 1. JSON-RPC 2.0 wants
//     -32700 (parse error) or -32600 (invalid request), with a null id
//     where none can be read, and the connection kept.
//  2. A client's response that go-sdk cannot decode ends the session the
//     same way: an error whose code is not an integer ("x", 1.5) or that
//     is not an object (error:"boom") fails jsonrpc2.DecodeMessage.
//  3. A request whose id is already in flight is answered with the id
//     cleared (jsonrpc2 acceptRequest), which processResult then treats as
//     a notification: the second request is dropped without a word.
//  4. A request before initialize fails with a plain Go error, which goes
//     on the wire with code 0.
//  5. Params that do not decode give -32602 with the whole params quoted
//     (%q) in the message: a malformed inputResponses echoes the request.
//  6. An input-required result (2026-07-28) goes out with "content": null.
//  7. Ids are decoded as float64 and truncated to int64: 1.5 is answered
//     as 1, and integers past 2^53 as another id.
//
// lineTransport reads lines with internal/rpcline (a line over maxLineBytes
// is discarded as it is read, never held whole), checks each message
// itself, answers what is not a valid request with the JSON-RPC error the
// spec gives, and hands go-sdk only messages it accepts. Responses from the
// client to our elicitation/create requests never reach go-sdk's decoder as
// they came: each is handed over as a wireReply error that carries either
// the raw result (for the core to judge) or the core's situation for a
// client error or an unreadable reply. Writes are go-sdk's messages,
// with gaps 3, 4 and 6 repaired, one per line.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/rpcline"
)

// maxLineBytes is the longest message askcore-mcp reads: 4 MiB, the
// core's input limit (askcore.MaxInputBytes). Nothing longer can be
// answered: the core refuses tool arguments over 256 KiB and any reply
// that makes its input longer than 4 MiB. A longer line is discarded as
// it is read (at most this much of it is ever held) and answered with
// -32600 when its id can be read, and an elicitation reply that long fails
// its question with client_reply_invalid.
const maxLineBytes = 4 << 20

// Protocol versions that change what the transport accepts.
const (
	// protocolNoBatches is the first version without JSON-RPC batches.
	protocolNoBatches = "2025-06-18"
)

// maxErrorMessage bounds the message of an error response go-sdk writes
// (some quote what they refuse).
const maxErrorMessage = 1024

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
		batches:     map[string]*batch{},
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
	batches map[string]*batch
	// version is the negotiated protocol version, read from our answer to
	// initialize ("" before).
	version string
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
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0:
		return true // blank lines are not messages
	case trimmed[0] == '[':
		return c.batch(trimmed)
	}
	var rep []byte
	msg := c.message(trimmed, nil, &rep)
	if rep != nil {
		c.writeLine(rep)
	}
	if msg == nil {
		return true
	}
	return c.deliver(readResult{msg: msg})
}

// envelope is a message's top-level members as they came.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// readEnvelope decodes the members of an object by their exact names, as
// go-sdk does (encoding/json would also match "ID" or "Method").
func readEnvelope(raw []byte) (envelope, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return envelope{}, false
	}
	return envelope{JSONRPC: m["jsonrpc"], ID: m["id"], Method: m["method"], Params: m["params"], Result: m["result"], Error: m["error"]}, true
}

// message checks one message (a line, or an element of batch b). It
// returns what to hand to go-sdk, if anything, and sets *reply to the
// error response to send, if any.
func (c *lineConn) message(raw []byte, b *batch, reply *[]byte) jsonrpc.Message {
	if !json.Valid(raw) {
		*reply = errorResponse(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
		return nil
	}
	env, ok := readEnvelope(raw)
	if raw[0] != '{' || !ok {
		*reply = errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is an object, got "+kindOf(raw))
		return nil
	}
	id, key, idErr := parseID(env.ID)
	if isAbsent(env.Method) {
		return c.response(env, id, key, idErr, reply)
	}
	// A request or a notification.
	var method string
	if json.Unmarshal(env.Method, &method) != nil || (env.Method[0] != '"') {
		*reply = errorResponse(idOrNull(env.ID, idErr), jsonrpc.CodeInvalidRequest, "invalid request: the method must be a string, got "+kindOf(env.Method))
		return nil
	}
	if string(env.JSONRPC) != `"2.0"` {
		*reply = errorResponse(idOrNull(env.ID, idErr), jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0", got `+describe(env.JSONRPC))
		return nil
	}
	if idErr != "" {
		*reply = errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+idErr)
		return nil
	}
	if !isAbsent(env.Params) && env.Params[0] != '{' && env.Params[0] != '[' {
		if key == "" {
			c.log.Warn("dropped a notification whose params are not an object", "method", cut(method, 100), "params", kindOf(env.Params))
			return nil
		}
		*reply = errorResponse(env.ID, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object, got "+kindOf(env.Params))
		return nil
	}
	if isNull(env.Params) {
		env.Params = nil
	}
	if key == "" { // a notification
		return &jsonrpc.Request{Method: method, Params: env.Params}
	}
	if b != nil && !batchesAllowed(c.protocol()) {
		*reply = errorResponse(env.ID, jsonrpc.CodeInvalidRequest, batchRefusal(c.protocol()))
		return nil
	}
	if method == "tools/call" && len(env.Params) > 0 {
		// go-sdk would quote the whole request in its -32602.
		if err := inputResponsesProblem(env.Params); err != nil {
			*reply = errorResponse(env.ID, jsonrpc.CodeInvalidParams, "invalid params for tools/call: "+paramsProblem(err))
			return nil
		}
	}
	c.mu.Lock()
	if _, busy := c.inFlight[key]; busy {
		c.mu.Unlock()
		*reply = errorResponse(env.ID, jsonrpc.CodeInvalidRequest, "invalid request: id "+cut(string(env.ID), 100)+" is already in use by a request in progress")
		return nil
	}
	c.inFlight[key] = method
	if b != nil {
		c.batches[key] = b
		b.pending++
	}
	c.mu.Unlock()
	return &jsonrpc.Request{ID: id, Method: method, Params: env.Params}
}

// response handles a message without a method: the client's response to
// one of our requests, or an invalid message.
func (c *lineConn) response(env envelope, id jsonrpc.ID, key, idErr string, reply *[]byte) jsonrpc.Message {
	if key == "" || idErr != "" {
		why := "it has neither a method nor an id"
		if idErr != "" {
			why = idErr
		}
		*reply = errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
		return nil
	}
	c.mu.Lock()
	method, ours := c.outgoing[key]
	delete(c.outgoing, key)
	_, late := c.cancelled[key]
	delete(c.cancelled, key)
	c.mu.Unlock()
	switch {
	case late:
		c.log.Debug("dropped a response to a request cancelled before", "id", cut(string(env.ID), 100))
		return nil
	case !ours:
		c.log.Warn("dropped a response to no pending request of askcore-mcp", "id", cut(string(env.ID), 100))
		return nil
	}
	wr := judgeResponse(env)
	if method != methodElicit && wr.failure == nil {
		// Not a form reply (askcore-mcp sends no other request today):
		// go-sdk decodes it.
		return &jsonrpc.Response{ID: id, Result: wr.raw}
	}
	c.log.Debug("the client answered a form request", "id", cut(string(env.ID), 100))
	return &jsonrpc.Response{ID: id, Error: wr}
}

// judgeResponse reads a response to one of our requests: the raw result,
// or the core's situation for a client error or a reply that is not a
// JSON-RPC response.
func judgeResponse(env envelope) *wireReply {
	hasResult, hasError := !isAbsent(env.Result), !isAbsent(env.Error) && !isNull(env.Error)
	switch {
	case string(env.JSONRPC) != `"2.0"`:
		return replyInvalid(`its "jsonrpc" is ` + describe(env.JSONRPC) + `, not "2.0"`)
	case hasResult && hasError:
		return replyInvalid("it has both a result and an error")
	case hasError:
		return judgeClientError(env.Error)
	case !hasResult || isNull(env.Result):
		return &wireReply{failure: &askcore.Failure{Situation: situationClientNoResult}}
	}
	return &wireReply{raw: env.Result}
}

// judgeClientError reads the error member of a response.
func judgeClientError(raw json.RawMessage) *wireReply {
	if raw[0] != '{' {
		return replyInvalid("its error is " + describe(raw) + ", not an object with a code and a message")
	}
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return replyInvalid("its error is not an object with a code and a message")
	}
	code, err := strconv.ParseInt(string(e.Code), 10, 64)
	if err != nil {
		if isAbsent(e.Code) {
			return replyInvalid("its error has no code")
		}
		return replyInvalid("its error code is " + describe(e.Code) + ", not an integer")
	}
	var msg string
	if !isAbsent(e.Message) && !isNull(e.Message) && json.Unmarshal(e.Message, &msg) != nil {
		return replyInvalid("its error message is " + describe(e.Message) + ", not a string")
	}
	return &wireReply{failure: clientErrorFailure(code, msg, e.Data)}
}

// batch handles a line that is a JSON array.
func (c *lineConn) batch(raw []byte) bool {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		c.writeLine(errorResponse(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON"))
		return true
	}
	if len(elems) == 0 {
		c.writeLine(errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch"))
		return true
	}
	b := &batch{}
	for _, e := range elems {
		e = bytes.TrimSpace(e)
		var rep []byte
		if len(e) > 0 && e[0] == '[' {
			rep = errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch inside a batch")
		}
		var msg jsonrpc.Message
		if rep == nil {
			msg = c.message(e, b, &rep)
		}
		if rep != nil {
			c.mu.Lock()
			b.replies = append(b.replies, rep)
			c.mu.Unlock()
		}
		if msg != nil && !c.deliver(readResult{msg: msg}) {
			return false
		}
	}
	c.mu.Lock()
	b.sealed = true
	flush := b.ready()
	c.mu.Unlock()
	if flush != nil {
		c.writeLine(flush)
	}
	return true
}

// batch collects the responses to the requests of one incoming batch
// (2025-03-26 and older), written as one array once all are there.
type batch struct {
	pending int
	replies [][]byte
	sealed  bool // every element was read
}

// ready is the array to write when the batch is complete (under c.mu).
func (b *batch) ready() []byte {
	if !b.sealed || b.pending > 0 || len(b.replies) == 0 {
		return nil
	}
	out := []byte{'['}
	out = append(out, bytes.Join(b.replies, []byte{','})...)
	b.replies = nil
	return append(out, ']')
}

func batchesAllowed(version string) bool { return version != "" && version < protocolNoBatches }

func batchRefusal(version string) string {
	if version == "" {
		return "invalid request: a JSON-RPC batch before initialize; send each message on a line of its own"
	}
	return "invalid request: JSON-RPC batches are not part of MCP " + protocolNoBatches + " and later (this session: " + cut(version, 40) + "); send each message on a line of its own"
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
	if _, key, idErr := parseID(env.ID); key != "" && idErr == "" {
		c.mu.Lock()
		c.big[key] = true
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

// tooLong handles a line over the limit, discarded by the reader (Sniff
// reads what it can of the ends kept): a reply to one of our form
// requests fails its question; a request gets -32600 with its id when the
// id could be read, else with a null one; a response to anything else is
// dropped (answering it with its id could resolve a request of the
// client's own with the same id). Each is logged with the limit.
func (c *lineConn) tooLong(tl *rpcline.TooLong) {
	env := rpcline.Sniff(tl.Head, tl.Tail)
	c.log.Warn("discarded a message over askcore-mcp's line limit", "bytes", tl.Size, "limit", tl.Limit, "method", cut(env.Method, 100), "id", cut(string(env.ID), 100))
	id, key, idErr := parseID(env.ID)
	if idErr != "" {
		key = ""
	}
	if key != "" && !env.Request {
		c.mu.Lock()
		method, ours := c.outgoing[key]
		delete(c.outgoing, key)
		delete(c.cancelled, key)
		c.mu.Unlock()
		switch {
		case ours && method == methodElicit:
			c.deliver(readResult{msg: &jsonrpc.Response{ID: id, Error: replyInvalid(
				fmt.Sprintf("it is %d bytes long, over the limit of %d bytes", tl.Size, tl.Limit))}})
		case ours:
			c.deliver(readResult{msg: &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
				Code: jsonrpc.CodeInvalidRequest, Message: "the response was over the line limit"}}})
		}
		return
	}
	var rid json.RawMessage
	if key != "" {
		rid = env.ID
	}
	c.writeLine(errorResponse(rid, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
		"invalid request: the message is %d bytes long, over askcore-mcp's limit of %d bytes per message; it was discarded", tl.Size, tl.Limit)))
}

// Write implements mcp.Connection: go-sdk's messages, one per line, with
// the bookkeeping the reader needs and gaps 3, 4 and 6 repaired.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var flush []byte
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
			c.mu.Lock()
			b.pending--
			b.replies = append(b.replies, data)
			flush = b.ready()
			c.mu.Unlock()
			if flush == nil {
				return nil
			}
			return c.writeLine(flush)
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
	_, key, idErr := parseID(p.RequestID)
	if key == "" || idErr != "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, pending := c.outgoing[key]; pending {
		delete(c.outgoing, key)
		c.cancelled[key] = false
	}
	return c.cancelled[key]
}

// repairResponse gives an error code to an error go-sdk would send with
// code 0 (-32600 before initialize: go-sdk's initialization gate; -32603
// after) and bounds its message; and drops the "content": null of an
// input-required result.
func repairResponse(m *jsonrpc.Response, method string, initialized bool) *jsonrpc.Response {
	if m.Error != nil {
		var we *jsonrpc.Error
		code := int64(0)
		if errors.As(m.Error, &we) {
			code = we.Code
		}
		msg := m.Error.Error()
		var data json.RawMessage
		if we != nil && m.Error == error(we) {
			data = we.Data
		}
		if code == 0 {
			code = jsonrpc.CodeInternalError
			if !initialized && method != "initialize" {
				code = jsonrpc.CodeInvalidRequest
			}
		}
		if code == jsonrpc.CodeInvalidParams {
			msg = invalidParamsMessage(msg, method)
		}
		return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: code, Message: cut(msg, maxErrorMessage), Data: data}}
	}
	if method == "tools/call" && bytes.Contains(m.Result, []byte(`"content":null`)) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(m.Result, &obj) == nil && isNull(obj["content"]) && string(obj["resultType"]) == `"input_required"` {
			delete(obj, "content")
			if b, err := marshalNoEscape(obj); err == nil {
				return &jsonrpc.Response{ID: m.ID, Result: b}
			}
		}
	}
	return m
}

// invalidParamsMessage is go-sdk's message for params that did not
// decode ("...: unmarshaling "<the params, quoted>" into a *mcp.T: <why>")
// without the params: "invalid params for <method>: <why>".
func invalidParamsMessage(msg, method string) string {
	i := strings.LastIndex(msg, " into a *mcp.")
	if !strings.Contains(msg, `unmarshaling "`) || i < 0 {
		return msg
	}
	why := msg[i:]
	if _, rest, ok := strings.Cut(why, ": "); ok {
		why = rest
	}
	why = strings.ReplaceAll(why, "json: ", "")
	if m := goTypeError.FindStringSubmatch(why); m != nil && scalarKind.MatchString(m[3]) {
		field := m[2][strings.LastIndexByte(m[2], '.')+1:]
		why = field + " is " + valueNoun(m[1]) + ", not " + goNoun(m[3])
	}
	return "invalid params for " + cut(method, 100) + ": " + cut(why, 300)
}

// scalarKind: Go types whose JSON kind goNoun names from the type's name.
var scalarKind = regexp.MustCompile(`^(string|bool|u?int(8|16|32|64)?|float(32|64))$`)

// goTypeError is encoding/json's UnmarshalTypeError text.
// The value is a JSON kind ("number": encoding/json) or the value itself,
// quoted and maybe cut ("\"5,...\"": segmentio/encoding, go-sdk's).
var goTypeError = regexp.MustCompile(`^cannot unmarshal (.+) into Go struct field ([\w.]+) of type \*?(?:\[\])?(\w+)`)

// valueNoun names the kind of the value in a goTypeError.
func valueNoun(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return jsonNoun(v)
	}
	if v[1] == '\\' {
		return "a string" // \" opens a string inside the quotes
	}
	return kindOf(json.RawMessage(v[1:]))
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
		n, err := marshalNoEscape(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": keyID(key), "reason": reason},
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

// wireReply is how a response to our elicitation/create reaches the
// provider through go-sdk: as the error of the call, so that go-sdk
// neither decodes the result (a malformed one would fail with Go's words)
// nor validates it and fills in the form's defaults. It holds the raw
// result, for the core to judge, or the failure the question ends with.
type wireReply struct {
	raw     json.RawMessage
	failure *askcore.Failure
}

func (r *wireReply) Error() string {
	if r.failure != nil {
		return r.failure.Error()
	}
	return "the client's reply to the form, for the core to judge"
}

// parseID reads an id as a request or response carries it: absent or
// null (key ""), a string, or an integer go-sdk can hold exactly (within
// ±2^53: go-sdk decodes ids as float64). idErr says what is wrong with
// any other id; key identifies the id in the maps.
func parseID(raw json.RawMessage) (id jsonrpc.ID, key, idErr string) {
	switch {
	case isAbsent(raw):
		return id, "", ""
	case isNull(raw):
		return id, "", "the id must be a string or an integer, not null"
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return id, "", "the id is not a valid string"
		}
		id, _ = jsonrpc.MakeID(s)
		return id, "s:" + s, ""
	case integer.Match(raw):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return id, "", "the id " + cut(string(raw), 40) + " is out of range (at most 2^53 in magnitude)"
		}
		id, _ = jsonrpc.MakeID(float64(n))
		return id, "n:" + strconv.FormatInt(n, 10), ""
	}
	return id, "", "the id must be a string or an integer, got " + kindOf(raw)
}

var integer = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// idKey is the map key of an id go-sdk holds.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	case string:
		return "s:" + v
	}
	return ""
}

// keyID is the JSON value of an id key.
func keyID(key string) any {
	if s, ok := strings.CutPrefix(key, "n:"); ok {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	return strings.TrimPrefix(key, "s:")
}

// idOrNull is the id to answer with: the message's, when it is valid.
func idOrNull(raw json.RawMessage, idErr string) json.RawMessage {
	if idErr != "" || isAbsent(raw) {
		return nil
	}
	return raw
}

// errorResponse is a JSON-RPC error response; a nil id is written null.
func errorResponse(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := marshalNoEscape(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return b
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func isAbsent(raw json.RawMessage) bool { return len(raw) == 0 }
func isNull(raw json.RawMessage) bool   { return string(raw) == "null" }

// kindOf names the kind of a JSON value ("a number").
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// describe is a short value as it came ("a string (\"x\")", "a number
// (1.5)"), or its kind when it is long.
func describe(raw json.RawMessage) string {
	if isAbsent(raw) {
		return "missing"
	}
	k := kindOf(raw)
	if k == "null" || len(raw) > 40 || k == "an object" || k == "an array" {
		return k
	}
	return k + " (" + string(raw) + ")"
}

// inputResponsesProblem is why the inputResponses of tools/call params do
// not decode as go-sdk decodes them, if they do not.
func inputResponsesProblem(params json.RawMessage) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(params, &top) != nil {
		return nil // an array: go-sdk refuses it
	}
	raw, ok := top["inputResponses"]
	if !ok || isNull(raw) {
		return nil
	}
	var m mcp.InputResponseMap
	if err := json.Unmarshal(raw, &m); err != nil {
		if !strings.HasPrefix(err.Error(), "inputResponses") {
			err = fmt.Errorf("inputResponses: %w", err)
		}
		return err
	}
	return nil
}

// paramsProblem words why params did not decode, without quoting them.
func paramsProblem(err error) string {
	msg := err.Error()
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		prefix, _, _ := strings.Cut(msg, "json: ")
		field := te.Field
		if field == "" {
			field = "a value"
		}
		msg = prefix + field + " is " + jsonNoun(te.Value) + ", not " + goNoun(te.Type.Kind().String())
	}
	return cut(strings.ReplaceAll(msg, "json: ", ""), 300)
}

// jsonNoun is encoding/json's name of a JSON value kind with an article.
func jsonNoun(v string) string {
	switch {
	case v == "array", v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "null":
		return v
	}
	return "a " + v
}

// goNoun is what a Go kind expects, in JSON's words.
func goNoun(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "map", "struct", "interface":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "a number"
}

// cut bounds s to n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
