package askcore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/askcore/askcore/core"
)

// TimeoutError is why an ask's context ended when its AskOptions.Timeout
// ran out: context.Cause of the ctx a Provider is given. A provider that
// tells the person how the question ended (the answer page) gives them the
// Timeout the agent asked for, not the time it measured itself, which a
// loaded machine makes a little shorter.
type TimeoutError struct {
	// Timeout is the ask's AskOptions.Timeout.
	Timeout time.Duration
}

func (e *TimeoutError) Error() string { return "ask timed out" }

// Error is the structured error of every askcore surface:
// {"name","code","message"}. Every *Error the seam returns was written by
// the core, its bytes kept as the core wrote them (JSON), so that a model
// receives the same bytes whichever engine ran the rules; errors.As finds
// it through any wrapping.
type Error struct {
	// Name is ErrorName for the rules' errors, ToolErrorName for the
	// failures of the tool machinery (package agent).
	Name    string `json:"name"`
	Code    Code   `json:"code"`
	Message string `json:"message"`

	raw json.RawMessage // the object as the core wrote it
	// situation is the situation the core wrote the error for, if any:
	// an invalid_reply error is worded for the model already, and passes
	// on as it is; a not_shown one drops its surface out of FirstReply.
	situation Situation
	// reason says in the core's words why a surface could not show the
	// question (not_shown and the other drop-out situations), for the
	// no_surface message FirstReply has the core write.
	reason string
}

// Names an Error carries on the wire.
const (
	ErrorName     = core.ErrorName     // the user-interaction rules
	ToolErrorName = core.ToolErrorName // the tool machinery of an agent loop
)

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// JSON returns the error object as the model receives it: the core's bytes
// when the core wrote the error, else the fields in the core's order.
func (e *Error) JSON() json.RawMessage {
	if e.raw != nil {
		return e.raw
	}
	b, _ := json.Marshal(errorFields(*e))
	return b
}

// MarshalJSON writes JSON().
func (e Error) MarshalJSON() ([]byte, error) { return e.JSON(), nil }

// UnmarshalJSON reads an error object; its bytes are not kept, so JSON
// writes the fields again (the same bytes for an object the core wrote).
func (e *Error) UnmarshalJSON(b []byte) error {
	var f errorFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*e = Error(f)
	e.raw = nil
	return nil
}

// errorFields is Error without its methods, for encoding/json.
type errorFields Error

// Code classifies an Error. Codes survive tool execution, so a model can
// tell "the person declined" from a crash (docs/SPEC.md, "Errors").
type Code string

// The codes of ErrorName errors.
const (
	CodeInvalidRequest    = Code(core.CodeInvalidRequest)    // the request (or the envelope) is malformed or ambiguous
	CodeInvalidAnswer     = Code(core.CodeInvalidAnswer)     // an answer does not satisfy the request
	CodeNoProvider        = Code(core.CodeNoProvider)        // nobody is registered to ask a human
	CodeDuplicateProvider = Code(core.CodeDuplicateProvider) // a second provider registered while one is active
	CodeAskAborted        = Code(core.CodeAskAborted)        // the asking side gave up
	CodeAskDeclined       = Code(core.CodeAskDeclined)       // the person declined to answer
	CodeAskCancelled      = Code(core.CodeAskCancelled)      // the client cancelled the form
	CodeAskTimeout        = Code(core.CodeAskTimeout)        // an opt-in per-ask timeout expired; nothing was chosen
	CodeAskFailed         = Code(core.CodeAskFailed)         // the surface cannot ask
	CodeSessionNotFound   = Code(core.CodeSessionNotFound)   // no session can be routed to for the asking agent
)

// The codes of ToolErrorName errors.
const (
	CodeUnknownTool   = Code(core.CodeUnknownTool)   // the model called a tool that is not registered
	CodeToolFailed    = Code(core.CodeToolFailed)    // a tool failed without a structured error
	CodeToolCancelled = Code(core.CodeToolCancelled) // the run was cancelled before the call ran
)

// Situation names something that ends an ask outside the rules of a
// request: nobody to ask, an abort, a timeout, a broken provider or client.
// The core words the error of each (op "fail"), so every surface gives the
// same code and message for the same situation; docs/SPEC.md lists them
// with their codes.
type Situation string

// The situations, with the code each gives.
const (
	SituationNoProvider         = Situation(core.SituationNoProvider)         // NO_PROVIDER
	SituationDuplicateProvider  = Situation(core.SituationDuplicateProvider)  // DUPLICATE_PROVIDER
	SituationAborted            = Situation(core.SituationAborted)            // ASK_ABORTED; Detail: why, when known
	SituationWithdrawn          = Situation(core.SituationWithdrawn)          // ASK_ABORTED: the provider was disposed
	SituationTimeout            = Situation(core.SituationTimeout)            // ASK_TIMEOUT; Millis: the timeout
	SituationNoAnswer           = Situation(core.SituationNoAnswer)           // ASK_FAILED: the provider returned neither a reply nor an error
	SituationNotAReply          = Situation(core.SituationNotAReply)          // ASK_FAILED: the provider returned an answer the core did not write for this call
	SituationStaleAnswer        = Situation(core.SituationStaleAnswer)        // ASK_FAILED: the provider returned the answer to another call
	SituationInvalidReply       = Situation(core.SituationInvalidReply)       // INVALID_ANSWER; Detail: what the core told the person
	SituationProviderFailed     = Situation(core.SituationProviderFailed)     // ASK_FAILED; Detail: the provider's error or panic
	SituationEngineFault        = Situation(core.SituationEngineFault)        // ASK_FAILED: the engine trapped or closed
	SituationInterrupted        = Situation(core.SituationInterrupted)        // ASK_ABORTED: Ctrl-C at a terminal
	SituationEOF                = Situation(core.SituationEOF)                // ASK_ABORTED: the input ended before an answer
	SituationInputClosed        = Situation(core.SituationInputClosed)        // ASK_ABORTED: the input was closed
	SituationReadFailed         = Situation(core.SituationReadFailed)         // ASK_ABORTED; Detail: the read error
	SituationDeclined           = Situation(core.SituationDeclined)           // ASK_DECLINED: the person declined
	SituationNoTerminal         = Situation(core.SituationNoTerminal)         // ASK_FAILED: no terminal to read the answer from
	SituationSessionNotFound    = Situation(core.SituationSessionNotFound)    // SESSION_NOT_FOUND; Detail: the asking agent
	SituationNoFormSupport      = Situation(core.SituationNoFormSupport)      // ASK_FAILED: the client cannot show forms
	SituationClientError        = Situation(core.SituationClientError)        // ASK_FAILED; Detail: the client's error
	SituationClientNoResult     = Situation(core.SituationClientNoResult)     // ASK_FAILED: the client answered without a result
	SituationClientGone         = Situation(core.SituationClientGone)         // ASK_ABORTED: the client went away while it was asked
	SituationClientReplyInvalid = Situation(core.SituationClientReplyInvalid) // ASK_FAILED: the client's reply to the form request cannot be read; Detail: what is wrong with it
	SituationStopped            = Situation(core.SituationStopped)            // ASK_ABORTED: the program asking was stopped; Detail: the signal
	SituationUsage              = Situation(core.SituationUsage)              // INVALID_REQUEST; Detail: what is wrong with the command line
	SituationRequestReadFailed  = Situation(core.SituationRequestReadFailed)  // ASK_FAILED; Detail: the read error
	SituationUnknownTool        = Situation(core.SituationUnknownTool)        // ToolError UNKNOWN_TOOL; Tool, Tools
	SituationToolFailed         = Situation(core.SituationToolFailed)         // ToolError TOOL_FAILED; Tool, Detail
	SituationToolCancelled      = Situation(core.SituationToolCancelled)      // ToolError TOOL_CANCELLED
	SituationNotShown           = Situation(core.SituationNotShown)           // ASK_FAILED: nobody saw the question on this surface; Detail: why
	SituationNoSurface          = Situation(core.SituationNoSurface)          // ASK_FAILED: no surface could show the question; Reasons: why each could not
	SituationAnsweredElsewhere  = Situation(core.SituationAnsweredElsewhere)  // ASK_ABORTED: another surface got the answer first; Detail: which
)

// Failure is a situation with its particulars. A provider returns one as
// its error to end a question for a reason of its own (the input ended,
// the client cannot show forms): the seam has the core word it. Core.Fail
// turns one into the core's *Error directly.
type Failure struct {
	Situation Situation
	// Detail is host text the message quotes, sanitized and cut by the
	// core: an abort reason, a provider's or client's error, the agent.
	Detail string
	// Millis is the timeout, for SituationTimeout.
	Millis int64
	// Tool is the tool called and Tools the tools there are, for the
	// ToolError situations.
	Tool  string
	Tools []string
	// Reasons say why each surface tried could not show the question,
	// for SituationNoSurface (FirstReply fills them in).
	Reasons []string
}

// Error is for logs; the message a model sees is the core's (Core.Fail).
func (f Failure) Error() string {
	s := "askcore: " + string(f.Situation)
	if f.Detail != "" {
		s += ": " + strings.TrimSpace(f.Detail)
	}
	return s
}

// AsError returns err as the *Error it is or wraps. Any other error (a
// failure that never went through the seam) becomes the core's
// TOOL_FAILED, written by the native core; nil stays nil, and so does a
// nil *Error returned as an error (Go's typed-nil trap).
func AsError(err error) *Error {
	if e, ok := err.(*Error); err == nil || ok && e == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	return nativeCore.Fail(context.Background(), Failure{Situation: SituationToolFailed, Detail: err.Error()})
}

// ErrorJSON is err as a model (and an ACP or MCP client) receives it:
// {"name","code","message"}, the core's own bytes (see AsError). nil stays
// nil.
func ErrorJSON(err error) json.RawMessage {
	e := AsError(err)
	if e == nil {
		return nil
	}
	return e.JSON()
}

// ToolResult is the tool result of one ask for a model: the answer object,
// or the error object with isError set, the core's bytes either way.
func ToolResult(a Answer, err error) (result json.RawMessage, isError bool) {
	if e := AsError(err); e != nil {
		return e.JSON(), true
	}
	return a.JSON(), false
}
