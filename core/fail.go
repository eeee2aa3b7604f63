package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// Situation names something that ends an ask outside the rules of a
// request: nobody to ask, an abort, a timeout, a broken provider or client
// (op "fail"). Every surface that meets one reports the error the core
// writes for it, so the Go and JS seams, the terminal, ACP and MCP give the
// same code and message for the same situation.
type Situation string

// The situations, with the code each gives.
const (
	SituationNoProvider        Situation = "no_provider"         // NO_PROVIDER: nobody is registered to ask a human
	SituationDuplicateProvider Situation = "duplicate_provider"  // DUPLICATE_PROVIDER
	SituationAborted           Situation = "aborted"             // ASK_ABORTED; Detail: why, when known
	SituationWithdrawn         Situation = "withdrawn"           // ASK_ABORTED: the provider was disposed
	SituationTimeout           Situation = "timeout"             // ASK_TIMEOUT; Millis: the timeout
	SituationNoAnswer          Situation = "no_answer"           // ASK_FAILED: the provider returned neither answer nor error
	SituationProviderFailed    Situation = "provider_failed"     // ASK_FAILED; Detail: the provider's error or panic
	SituationEngineFault       Situation = "engine_fault"        // ASK_FAILED: the engine trapped or closed (details are logged, not shown)
	SituationInterrupted       Situation = "interrupted"         // ASK_ABORTED: Ctrl-C at a terminal
	SituationEOF               Situation = "eof"                 // ASK_ABORTED: the input ended before an answer
	SituationInputClosed       Situation = "input_closed"        // ASK_ABORTED: the input was closed
	SituationReadFailed        Situation = "read_failed"         // ASK_ABORTED; Detail: the read error
	SituationDeclined          Situation = "declined"            // ASK_DECLINED: the person declined (Esc in a picker)
	SituationNoTerminal        Situation = "no_terminal"         // ASK_FAILED: no terminal to read the answer from
	SituationSessionNotFound   Situation = "session_not_found"   // SESSION_NOT_FOUND; Detail: the asking agent
	SituationNoFormSupport     Situation = "no_form_support"     // ASK_FAILED: the client cannot show forms
	SituationClientError       Situation = "client_error"        // ASK_FAILED; Detail: the client's error
	SituationClientNoResult    Situation = "client_no_result"    // ASK_FAILED: the client answered without a result
	SituationClientGone        Situation = "client_disconnected" // ASK_ABORTED: the client went away while it was asked
	SituationUsage             Situation = "usage"               // INVALID_REQUEST; Detail: what is wrong with the command line
	SituationRequestReadFailed Situation = "request_read_failed" // ASK_FAILED; Detail: the read error
	SituationUnknownTool       Situation = "unknown_tool"        // ToolError UNKNOWN_TOOL; Tool, Tools
	SituationToolFailed        Situation = "tool_failed"         // ToolError TOOL_FAILED; Tool, Detail
	SituationToolCancelled     Situation = "tool_cancelled"      // ToolError TOOL_CANCELLED
)

// ToolErrorName names failures of the tool machinery (an agent loop)
// rather than of the user-interaction rules.
const ToolErrorName = "ToolError"

// Codes of ToolError failures.
const (
	CodeUnknownTool   Code = "UNKNOWN_TOOL"   // the model called a tool that is not registered
	CodeToolFailed    Code = "TOOL_FAILED"    // a tool failed without a structured error
	CodeToolCancelled Code = "TOOL_CANCELLED" // the run was cancelled before the call ran
)

// MaxDetailChars bounds the host text (an error, a panic, a reason) a
// failure message quotes.
const MaxDetailChars = 300

// Failure is one situation with its particulars (op "fail").
type Failure struct {
	Situation Situation
	// Detail is host text the message quotes (sanitized to one line and
	// cut to MaxDetailChars): an abort reason, a provider's or client's
	// error, the asking agent.
	Detail string
	// Millis is the timeout, for SituationTimeout.
	Millis int64
	// Tool is the tool called, and Tools the tools available, for the
	// ToolError situations.
	Tool  string
	Tools []string
}

// Fail returns the error for f: {"name","code","message"} as every surface
// reports it. An unknown situation is itself reported as INVALID_REQUEST.
func Fail(f Failure) *HarnessError {
	detail := cut(sanitize(f.Detail, false), MaxDetailChars)
	withDetail := func(msg, sep string) string {
		if detail == "" {
			return msg
		}
		return msg + sep + detail
	}
	switch f.Situation {
	case SituationNoProvider:
		return NewError(CodeNoProvider, "no one can be asked here: no user-interaction provider is registered; continue without asking or stop and report")
	case SituationDuplicateProvider:
		return NewError(CodeDuplicateProvider, "a provider is already registered; dispose it before registering another")
	case SituationAborted:
		return NewError(CodeAskAborted, withDetail("the question was aborted", ": "))
	case SituationWithdrawn:
		return NewError(CodeAskAborted, "the question was withdrawn: the provider was disposed")
	case SituationTimeout:
		return NewError(CodeAskTimeout, "no answer within "+FormatMillis(f.Millis)+"; nothing was chosen")
	case SituationNoAnswer:
		return NewError(CodeAskFailed, "the provider returned no answer")
	case SituationProviderFailed:
		return NewError(CodeAskFailed, withDetail("the provider failed", ": "))
	case SituationEngineFault:
		return NewError(CodeAskFailed, "the askcore engine failed, so the question was not asked (a fault of the host, not of the request)")
	case SituationInterrupted:
		return NewError(CodeAskAborted, "the person dismissed the question (Ctrl-C) without answering; nothing was chosen")
	case SituationEOF:
		return NewError(CodeAskAborted, "the input ended (EOF) before an answer was given; nothing was chosen")
	case SituationInputClosed:
		return NewError(CodeAskAborted, "the question was withdrawn: the input was closed")
	case SituationReadFailed:
		return NewError(CodeAskAborted, withDetail("reading the answer failed", ": "))
	case SituationDeclined:
		return NewError(CodeAskDeclined, msgDeclined)
	case SituationNoTerminal:
		return NewError(CodeAskFailed, "there is no terminal to read the answer from: pass the request with --request and the answer on stdin")
	case SituationSessionNotFound:
		return NewError(CodeSessionNotFound, "no session is bound to agent "+quoteDetail(detail)+", so the question cannot reach anyone; continue without asking")
	case SituationNoFormSupport:
		return NewError(CodeAskFailed, "this client cannot show questions (it did not advertise form elicitation); continue without asking, or ask in your reply and stop")
	case SituationClientError:
		return NewError(CodeAskFailed, withDetail("the client could not ask the question", ": "))
	case SituationClientNoResult:
		return NewError(CodeAskFailed, "the client answered the form request without a result")
	case SituationClientGone:
		return NewError(CodeAskAborted, "the client disconnected before an answer was given; nothing was chosen")
	case SituationUsage:
		return NewError(CodeInvalidRequest, withDetail("the command line is not valid", ": "))
	case SituationRequestReadFailed:
		return NewError(CodeAskFailed, withDetail("reading the request failed", ": "))
	case SituationUnknownTool:
		available := "none"
		if len(f.Tools) > 0 {
			available = strings.Join(f.Tools, ", ")
		}
		return &HarnessError{Name: ToolErrorName, Code: CodeUnknownTool,
			Message: "there is no tool called " + snippet(f.Tool) + "; available tools: " + sanitize(available, false)}
	case SituationToolFailed:
		tool := "a tool"
		if f.Tool != "" {
			tool = "the tool " + snippet(f.Tool)
		}
		return &HarnessError{Name: ToolErrorName, Code: CodeToolFailed, Message: withDetail(tool+" failed", ": ")}
	case SituationToolCancelled:
		return &HarnessError{Name: ToolErrorName, Code: CodeToolCancelled, Message: "the run was cancelled before this tool call ran"}
	}
	return invalidRequest("unknown situation " + snippet(string(f.Situation)) + ": use one of " + situationList)
}

// situationList names every Situation, for messages and the envelope check.
const situationList = "no_provider, duplicate_provider, aborted, withdrawn, timeout, no_answer, provider_failed, engine_fault, " +
	"interrupted, eof, input_closed, read_failed, declined, no_terminal, session_not_found, no_form_support, client_error, " +
	"client_no_result, client_disconnected, usage, request_read_failed, unknown_tool, tool_failed, tool_cancelled"

// quoteDetail quotes a detail already sanitized and cut.
func quoteDetail(s string) string { return `"` + s + `"` }

// FormatMillis writes a duration given in milliseconds for people: "2m",
// "1m30s", "45s", "1.5s", "250ms", "1h".
func FormatMillis(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	h, m, s, rest := ms/3600000, ms/60000%60, ms/1000%60, ms%1000
	out := ""
	if h > 0 {
		out += strconv.FormatInt(h, 10) + "h"
	}
	if m > 0 {
		out += strconv.FormatInt(m, 10) + "m"
	}
	if s > 0 || rest > 0 {
		out += strconv.FormatInt(s, 10)
		if rest > 0 {
			frac := strconv.FormatInt(rest+1000, 10)[1:] // 3 digits
			out += "." + strings.TrimRight(frac, "0")
		}
		out += "s"
	}
	return out
}

// envelopeFailure reads op "fail": situation, and the optional detail, ms,
// tool and tools.
func envelopeFailure(env *jsonx.Value) (Failure, *HarnessError) {
	var f Failure
	s, err := envelopeString(env, "situation", "what happened, one of "+situationList)
	if err != nil {
		return f, err
	}
	f.Situation = Situation(s)
	if !strings.Contains(", "+situationList+", ", ", "+s+", ") {
		return f, invalidRequest("unknown situation " + snippet(s) + ": use one of " + situationList)
	}
	if f.Detail, err = envelopeOptString(env, "detail"); err != nil {
		return f, err
	}
	if f.Tool, err = envelopeOptString(env, "tool"); err != nil {
		return f, err
	}
	if v, n := lookup(env, "ms"); n > 0 && v.Kind != jsonx.Null {
		ms, ok := wholeNumber(v, 15)
		if n > 1 || !ok {
			return f, invalidRequest("ms must be a whole number of milliseconds, given once")
		}
		f.Millis = ms
	}
	if v, n := lookup(env, "tools"); n > 0 && v.Kind != jsonx.Null {
		if n > 1 || v.Kind != jsonx.Array {
			return f, invalidRequest("tools must be an array of tool names, given once")
		}
		for i := range v.Arr {
			if v.Arr[i].Kind != jsonx.String {
				return f, invalidRequest("tools must hold tool names (strings), got " + v.Arr[i].Kind.Noun())
			}
			f.Tools = append(f.Tools, v.Arr[i].Str)
		}
	}
	return f, nil
}
