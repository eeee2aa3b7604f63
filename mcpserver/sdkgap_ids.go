package mcpserver

// Waits for the upstream issue in docs/upstream/go-sdk-request-ids.md:
// go-sdk answers a request whose id is already in flight with the id
// cleared, which its connection then treats as a notification (the second
// request is dropped without a word), and it decodes ids as float64, so
// that 1.5 is answered as 1 and integers past 2^53 as another id. Here a
// request reusing an id in flight is refused with -32600, and ids reach
// go-sdk only when it holds them exactly (rpcline.ParseID). Delete this
// file when go-sdk refuses duplicate ids and keeps ids as written.

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askcore/askcore/internal/rpcline"
)

// admit records a request go-sdk is about to get (in batch b, if any),
// or refuses it when its id is in flight.
func (c *lineConn) admit(msg rpcline.Message, b *rpcline.Batch) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, busy := c.inFlight[msg.ID.Key]; busy {
		return rpcline.ErrorResponse(msg.ID.Raw, rpcline.CodeInvalidRequest,
			"Invalid request: id "+jsonRaw(msg.ID.Raw)+" is already in use by a request in progress", nil)
	}
	c.inFlight[msg.ID.Key] = msg.Method
	if b != nil {
		c.batches[msg.ID.Key] = b
		b.Expect()
	}
	return nil
}

// sdkID is a valid id as go-sdk holds it (its key is the same: idKey).
func sdkID(id rpcline.ID) jsonrpc.ID {
	var v any
	if n, ok := rpcline.KeyValue(id.Key).(int64); ok {
		v = float64(n)
	} else {
		v = rpcline.KeyValue(id.Key)
	}
	sid, _ := jsonrpc.MakeID(v)
	return sid
}

// idKey is the key of an id go-sdk holds (rpcline.ID.Key's form).
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	case string:
		return "s:" + v
	}
	return ""
}
