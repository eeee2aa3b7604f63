package mcpserver

// Waits for go-sdk #1209 (one malformed line ends a stdio session; the fix
// is PR #1210) and for what go-sdk #976 left open (requests with a null
// id and other invalid envelopes go unanswered), both filed further in
// docs/upstream/go-sdk-invalid-lines.md: go-sdk's stdio connection turns a
// line that is not a JSON-RPC 2.0 message, trailing data, or a batch on
// 2025-06-18 and later into a read error, and its jsonrpc2.Connection
// ends the session on any read error, every pending call lost. Here the
// line guard (internal/rpcline) answers each such line with the JSON-RPC
// error the specification gives, and go-sdk sees only valid messages.
// Delete this file, with lines.go, when go-sdk's stdio transport answers
// invalid lines and keeps the session.

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askcore/askcore/internal/rpcline"
)

// protocolNoBatches is the first version without JSON-RPC batches.
const protocolNoBatches = "2025-06-18"

// message checks one message (a line, or an element of batch b). It
// returns what to hand to go-sdk, if anything, and the error response to
// send, if any.
func (c *lineConn) message(raw []byte, b *rpcline.Batch) (jsonrpc.Message, []byte) {
	check := rpcline.Check
	if b != nil {
		check = rpcline.CheckElement
	}
	msg, bad := check(raw)
	switch {
	case bad != nil && bad.Notification:
		c.log.Warn("dropped a notification whose params are not an object", "error", bad.Message)
		return nil, nil
	case bad != nil:
		return nil, bad.Response()
	case msg.Kind == rpcline.Response:
		return c.response(msg), nil
	case msg.Kind == rpcline.Notification:
		return &jsonrpc.Request{Method: msg.Method, Params: msg.Params}, nil
	}
	if b != nil && !batchesAllowed(c.protocol()) {
		return nil, rpcline.ErrorResponse(msg.ID.Raw, rpcline.CodeInvalidRequest, batchRefusal(c.protocol()), nil)
	}
	if rep := checkParams(msg); rep != nil {
		return nil, rep
	}
	if rep := c.discoverAfterInitialize(msg); rep != nil {
		return nil, rep
	}
	if rep := c.admit(msg, b); rep != nil {
		return nil, rep
	}
	c.sawInitialize(msg)
	return &jsonrpc.Request{ID: sdkID(msg.ID), Method: msg.Method, Params: msg.Params}, nil
}

// batch handles a line that is a JSON array: each element is judged on
// its own; the responses go out as one array (2025-03-26 and older: on
// later versions each request in it is refused).
func (c *lineConn) batch(raw []byte) bool {
	elems, bad := rpcline.Split(raw)
	if bad != nil {
		_ = c.writeLine(bad.Response())
		return true
	}
	b := &rpcline.Batch{}
	for _, e := range elems {
		msg, rep := c.message(e, b)
		if rep != nil {
			b.Add(rep) // the batch is sealed below: never complete here
		}
		if msg != nil && !c.deliver(readResult{msg: msg}) {
			return false
		}
	}
	if flush := b.Seal(); flush != nil {
		_ = c.writeLine(flush)
	}
	return true
}

func batchesAllowed(version string) bool { return version != "" && version < protocolNoBatches }

func batchRefusal(version string) string {
	if version == "" {
		return "Invalid request: a JSON-RPC batch before initialize; send each message on a line of its own"
	}
	return "Invalid request: JSON-RPC batches are not part of MCP " + protocolNoBatches + " and later (this session: " + rpcline.Cut(version, 40) + "); send each message on a line of its own"
}

// jsonRaw is raw as it came, for a log record.
func jsonRaw(raw json.RawMessage) string { return rpcline.Cut(string(raw), 100) }
