package core

// ErrorName is the name every askcore error carries on the wire.
const ErrorName = "UserInteractionError"

// Code classifies a UserInteractionError. The set is part of the public
// contract: codes survive tool execution so the model can tell "the user
// cancelled" from a crash.
type Code string

const (
	CodeInvalidRequest    Code = "INVALID_REQUEST"    // the request (or the envelope) is malformed or ambiguous
	CodeInvalidAnswer     Code = "INVALID_ANSWER"     // an answer does not satisfy the request
	CodeNoProvider        Code = "NO_PROVIDER"        // nobody is registered to ask a human
	CodeDuplicateProvider Code = "DUPLICATE_PROVIDER" // a second provider registered while one is active
	CodeAskAborted        Code = "ASK_ABORTED"        // the asking side gave up
	CodeAskDeclined       Code = "ASK_DECLINED"       // the person declined to answer
	CodeAskCancelled      Code = "ASK_CANCELLED"      // the client cancelled the form
	CodeAskTimeout        Code = "ASK_TIMEOUT"        // an opt-in per-ask timeout expired; nothing was chosen
	CodeAskFailed         Code = "ASK_FAILED"         // the surface cannot ask
	CodeSessionNotFound   Code = "SESSION_NOT_FOUND"  // no session can be routed to for the asking agent
)

// HarnessError is the structured error every askcore surface returns. It is
// comparable with errors.As and marshals to {"name","code","message"}.
type HarnessError struct {
	Name    string `json:"name"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Raw is the error object exactly as the core wrote it, when the
	// error came out of an envelope (engine.Client sets it): JSON returns
	// it, so a model receives the core's own bytes whichever engine ran.
	Raw []byte `json:"-"`
}

func (e *HarnessError) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf-free constructor: NewError returns a UserInteractionError.
func NewError(code Code, message string) *HarnessError {
	return &HarnessError{Name: ErrorName, Code: code, Message: message}
}
