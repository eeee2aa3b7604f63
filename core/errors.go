package core

// ErrorName is the name every askcore error carries on the wire.
const ErrorName = "UserInteractionError"

// errCode classifies a UserInteractionError; the codes are written here only
// (the root package's Code constants convert these, hence exported). Codes
// survive tool execution so the model can tell "the user cancelled" from a crash.
type errCode string

const (
	CodeInvalidRequest    errCode = "INVALID_REQUEST"    // the request (or the envelope) is malformed or ambiguous
	CodeInvalidAnswer     errCode = "INVALID_ANSWER"     // an answer does not satisfy the request
	CodeNoProvider        errCode = "NO_PROVIDER"        // nobody is registered to ask a human
	CodeDuplicateProvider errCode = "DUPLICATE_PROVIDER" // a second provider registered while one is active
	CodeAskAborted        errCode = "ASK_ABORTED"        // the asking side gave up
	CodeAskDeclined       errCode = "ASK_DECLINED"       // the person declined to answer
	CodeAskCancelled      errCode = "ASK_CANCELLED"      // the client cancelled the form
	CodeAskTimeout        errCode = "ASK_TIMEOUT"        // an opt-in per-ask timeout expired; nothing was chosen
	CodeAskFailed         errCode = "ASK_FAILED"         // the surface cannot ask
	CodeSessionNotFound   errCode = "SESSION_NOT_FOUND"  // no session can be routed to for the asking agent
)

// harnessError is the structured error every askcore surface returns. It is
// comparable with errors.As and marshals to {"name","code","message"}.
type harnessError struct {
	Name    string  `json:"name"`
	Code    errCode `json:"code"`
	Message string  `json:"message"`
	// Raw is the error object exactly as the core wrote it, when the
	// error came out of an envelope (engine.Client sets it): JSON returns
	// it, so a model receives the core's own bytes whichever engine ran.
	Raw []byte `json:"-"`
}

func (e *harnessError) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf-free constructor: newError returns a UserInteractionError.
func newError(code errCode, message string) *harnessError {
	return &harnessError{Name: ErrorName, Code: code, Message: message}
}
