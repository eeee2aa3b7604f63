package acpagent

// WORKAROUND for github.com/coder/acp-go-sdk v0.13.0. Delete this file when
// the SDK can put the session scope on the wire by itself.
//
// The SDK's UnstableCreateElicitationForm has only _meta, message, mode and
// requestedSchema: the generator dropped the session scope (sessionId,
// toolCallId) that the ACP schema requires, so
// AgentSideConnection.UnstableCreateElicitation sends a request that real
// clients reject (the TypeScript client answers -32602 before its handler
// runs). Upstream: coder/acp-go-sdk pull request #51 (sessionId only, so
// far; toolCallId still missing).
//
// Here the request goes out on the SDK's own *acp.Connection with
// acp.SendRequest and a params struct of ours. That connection is an
// unexported field of AgentSideConnection, reached by reflection;
// TestSDKGapConnectionField fails loudly if the SDK layout changes, and at
// run time a changed layout is an error (the question fails with
// ASK_FAILED), never a panic. The SDK still owns the request id, the
// pending-response table and $/cancel_request on ctx cancellation.
//
// When upstream is fixed, replace the body of createElicitation with
//
//	resp, err := conn.UnstableCreateElicitation(ctx, acp.UnstableCreateElicitationRequest{
//		Form: &acp.UnstableCreateElicitationForm{ /* sessionId, toolCallId, message, requestedSchema */ }})
//	if err != nil { return nil, err }
//	return json.Marshal(resp)
//
// and keep TestElicitationWireBytes: it pins the bytes either way.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"unsafe"

	acp "github.com/coder/acp-go-sdk"
)

// elicitationRequest is the elicitation/create params of a form elicitation
// scoped to a session (and the tool call that asks), as the ACP schema
// defines them. RequestedSchema is the core's bytes, passed through as they
// are.
type elicitationRequest struct {
	Mode            string          `json:"mode"`
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// createElicitation sends elicitation/create to the client and returns its
// result as raw JSON ({"action":...,"content":{...}}), for the core to judge.
// When ctx is done the SDK sends $/cancel_request and returns -32800.
func createElicitation(ctx context.Context, conn *acp.AgentSideConnection, req elicitationRequest) (json.RawMessage, error) {
	c, err := sdkConnection(conn)
	if err != nil {
		return nil, err
	}
	return acp.SendRequest[json.RawMessage](c, ctx, acp.ClientMethodElicitationCreate, req)
}

var errSDKLayout = errors.New("acp-go-sdk layout changed: AgentSideConnection has no field conn of type *acp.Connection (see acpagent/sdkgap_elicitation.go)")

// sdkConnection returns the *acp.Connection inside conn.
func sdkConnection(conn *acp.AgentSideConnection) (*acp.Connection, error) {
	if conn == nil {
		return nil, errors.New("no ACP connection")
	}
	f := reflect.ValueOf(conn).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*acp.Connection]() {
		return nil, errSDKLayout
	}
	c := *(**acp.Connection)(unsafe.Pointer(f.UnsafeAddr()))
	if c == nil {
		return nil, errSDKLayout
	}
	return c, nil
}
