package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0: a response to one of
// the agent's requests that the SDK cannot decode (it drops such a line:
// "failed to parse incoming message"), say with a
// string error code or a numeric "jsonrpc", would leave the request (a
// pending question) waiting forever. When it still carries a usable id,
// the line guard (lines.go) hands the SDK a JSON-RPC error for that
// id in its place (-32603, "the client sent a malformed response"), so the
// question fails with ASK_FAILED instead of hanging. The same goes for a
// response that is not valid JSON but whose head names the id. Upstream:
// none filed; the issue text is docs/upstream/acp-go-sdk-line-reader.md.
// Delete this file when the SDK fails the pending request itself.

import (
	"encoding/json"

	"github.com/askcore/askcore/internal/rpcline"
)

// malformedResponse is the error response that replaces a malformed
// response for id.
func malformedResponse(id json.RawMessage) []byte {
	return errorResponse(id, rpcline.CodeInternalError, "the client sent a malformed response", nil)
}
