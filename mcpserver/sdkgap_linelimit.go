package mcpserver

// Waits for the upstream issue in docs/upstream/go-sdk-line-limit.md:
// go-sdk's stdio connection buffers a line whole up to MaxLineLength
// (16 MiB by default) before it decodes it, and ends the session on a
// longer one. Here a line over maxLineBytes is discarded as it is read
// (internal/rpcline never holds more than the limit of it), and answered.
// Delete this file when go-sdk bounds a line without ending the session.

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askcore/askcore/internal/rpcline"
)

// tooLong handles a line over the limit, discarded by the reader (with
// what its scan read of the envelope on the way): a reply to one of our form
// requests fails its question; a request gets -32600 with its id when the
// id could be read, else with a null one; a response to anything else is
// dropped (answering it with its id could resolve a request of the
// client's own with the same id). Each is logged with the limit.
func (c *lineConn) tooLong(tl *rpcline.TooLong) {
	env := tl.Envelope
	c.log.Warn("discarded a message over askcore-mcp's line limit", "bytes", tl.Size, "limit", tl.Limit, "method", rpcline.Cut(env.Method, 100), "id", jsonRaw(env.ID))
	id, bad := rpcline.ParseID(env.ID)
	key := id.Key
	if bad != nil {
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
			c.deliver(readResult{msg: &jsonrpc.Response{ID: sdkID(id), Error: replyInvalid(
				fmt.Sprintf("it is %d bytes long, over the limit of %d bytes", tl.Size, tl.Limit))}})
		case ours:
			c.deliver(readResult{msg: &jsonrpc.Response{ID: sdkID(id), Error: &jsonrpc.Error{
				Code: jsonrpc.CodeInvalidRequest, Message: "the response was over the line limit"}}})
		}
		return
	}
	var rid json.RawMessage
	if key != "" {
		rid = env.ID
	}
	_ = c.writeLine(rpcline.ErrorResponse(rid, rpcline.CodeInvalidRequest, fmt.Sprintf(
		"Invalid request: the message is %d bytes long, over askcore-mcp's limit of %d bytes per message; it was discarded", tl.Size, tl.Limit), nil))
}
