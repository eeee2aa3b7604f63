package mcpserver

// Waits for the upstream issue in docs/upstream/go-sdk-elicitation-replies.md:
// go-sdk decodes a client's response to elicitation/create itself, and a
// response it cannot decode (an error code that is not an integer, an
// error that is not an object) ends the session; one it can decode is
// validated against the form and its defaults filled in, so that an
// accept without an answer would choose the default for the person. Here
// each response to our requests reaches the provider as a wireReply: the
// raw result, for the core to judge, or the core's situation for a client
// error or a reply that cannot be read. Delete this file when go-sdk hands
// a server the raw elicitation result and survives malformed responses.

import (
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/rpcline"
)

// response handles the client's response to one of our requests.
func (c *lineConn) response(msg rpcline.Message) jsonrpc.Message {
	key := msg.ID.Key
	c.mu.Lock()
	method, ours := c.outgoing[key]
	delete(c.outgoing, key)
	_, late := c.cancelled[key]
	delete(c.cancelled, key)
	c.mu.Unlock()
	switch {
	case late:
		c.log.Debug("dropped a response to a request cancelled before", "id", jsonRaw(msg.ID.Raw))
		return nil
	case !ours:
		c.log.Warn("dropped a response to no pending request of askcore-mcp", "id", jsonRaw(msg.ID.Raw))
		return nil
	}
	wr := judgeResponse(msg)
	if method != methodElicit && wr.failure == nil {
		// Not a form reply (askcore-mcp sends no other request today):
		// go-sdk decodes it.
		return &jsonrpc.Response{ID: sdkID(msg.ID), Result: wr.raw}
	}
	c.log.Debug("the client answered a form request", "id", jsonRaw(msg.ID.Raw))
	return &jsonrpc.Response{ID: sdkID(msg.ID), Error: wr}
}

// judgeResponse reads a response to one of our requests: the raw result,
// or the core's situation for a client error or a reply that is not a
// JSON-RPC response.
func judgeResponse(env rpcline.Message) *wireReply {
	hasResult, hasError := !(len(env.Result) == 0), len(env.Error) > 0 && string(env.Error) != "null"
	switch {
	case string(env.JSONRPC) != `"2.0"`:
		return replyInvalid(`its "jsonrpc" is ` + rpcline.Describe(env.JSONRPC) + `, not "2.0"`)
	case hasResult && hasError:
		return replyInvalid("it has both a result and an error")
	case hasError:
		return judgeClientError(env.Error)
	case !hasResult || string(env.Result) == "null":
		return &wireReply{failure: &askcore.Failure{Situation: situationClientNoResult}}
	}
	return &wireReply{raw: env.Result}
}

// judgeClientError reads the error member of a response.
func judgeClientError(raw json.RawMessage) *wireReply {
	if raw[0] != '{' {
		return replyInvalid("its error is " + rpcline.Describe(raw) + ", not an object with a code and a message")
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
		if len(e.Code) == 0 {
			return replyInvalid("its error has no code")
		}
		return replyInvalid("its error code is " + rpcline.Describe(e.Code) + ", not an integer")
	}
	var msg string
	if len(e.Message) > 0 && string(e.Message) != "null" && json.Unmarshal(e.Message, &msg) != nil {
		return replyInvalid("its error message is " + rpcline.Describe(e.Message) + ", not a string")
	}
	return &wireReply{failure: clientErrorFailure(code, msg, e.Data)}
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
