package mcpserver

// go-sdk v1.8.0 keeps one protocol per session, set by whichever handshake
// it handled last: server/discover stores the 2026-07-28 parameters even
// after an initialize was answered. A client that sends server/discover
// and, when the server is slow to start, falls back to initialize (Claude
// Code does) can complete the 2025-11-25 handshake and then be sent a
// 2026-07-28 input request, which it rejects. Here the handshake the
// client completes first holds: a server/discover after an initialize
// (answered or still in progress) is refused with -32600, so the client
// keeps the initialize's protocol; go-sdk itself refuses an initialize
// after server/discover ("duplicate"), so the client keeps discover's.

import "github.com/askcore/askcore/internal/rpcline"

// methodDiscover is the 2026-07-28 handshake.
const methodDiscover = "server/discover"

// discoverAfterInitialize refuses msg when it is server/discover on a
// connection that has had an initialize.
func (c *lineConn) discoverAfterInitialize(msg rpcline.Message) []byte {
	if msg.Method != methodDiscover {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initializing && c.version == "" {
		return nil
	}
	return rpcline.ErrorResponse(msg.ID.Raw, rpcline.CodeInvalidRequest,
		"Invalid request: this connection was initialized with initialize; server/discover would change its protocol", nil)
}

// sawInitialize records that an initialize reached go-sdk.
func (c *lineConn) sawInitialize(msg rpcline.Message) {
	if msg.Method != "initialize" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initializing = true
}
