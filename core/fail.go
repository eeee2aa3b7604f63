package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// situation names something that ends an ask outside the rules of a
// request (op "fail"). Every surface that meets one reports the error the
// core writes for it, so the Go and JS seams, the terminal, ACP and MCP give
// the same code and message for the same situation. Written here only: the
// root package's Situation constants convert these (hence exported).
type situation string

// The situations, with the code each gives.
const (
	SituationNoProvider         situation = "no_provider"          // NO_PROVIDER: nobody is registered to ask a human
	SituationDuplicateProvider  situation = "duplicate_provider"   // DUPLICATE_PROVIDER
	SituationAborted            situation = "aborted"              // ASK_ABORTED; Detail: why, when known
	SituationWithdrawn          situation = "withdrawn"            // ASK_ABORTED: the provider was disposed
	SituationTimeout            situation = "timeout"              // ASK_TIMEOUT; Millis: the timeout
	SituationNoAnswer           situation = "no_answer"            // ASK_FAILED: the provider returned neither a reply nor an error
	SituationNotAReply          situation = "not_a_reply"          // ASK_FAILED: the provider returned something that is neither the person's reply nor the core's answer to this call
	SituationStaleAnswer        situation = "stale_answer"         // ASK_FAILED: the provider returned the core's answer to another call
	SituationInvalidReply       situation = "invalid_reply"        // INVALID_ANSWER: the person's reply did not answer the call; Detail: what the core told the person
	SituationProviderFailed     situation = "provider_failed"      // ASK_FAILED; Detail: the provider's error or panic
	SituationEngineFault        situation = "engine_fault"         // ASK_FAILED: the engine trapped or closed (details are logged, not shown)
	SituationInterrupted        situation = "interrupted"          // ASK_ABORTED: Ctrl-C at a terminal
	SituationEOF                situation = "eof"                  // ASK_ABORTED: the input ended before an answer
	SituationInputClosed        situation = "input_closed"         // ASK_ABORTED: the input was closed
	SituationReadFailed         situation = "read_failed"          // ASK_ABORTED; Detail: the read error
	SituationDeclined           situation = "declined"             // ASK_DECLINED: the person declined (Esc in a picker)
	SituationNoTerminal         situation = "no_terminal"          // ASK_FAILED: no terminal to read the answer from
	SituationSessionNotFound    situation = "session_not_found"    // SESSION_NOT_FOUND; Detail: the asking agent
	SituationNoFormSupport      situation = "no_form_support"      // ASK_FAILED: the client cannot show forms
	SituationClientError        situation = "client_error"         // ASK_FAILED; Detail: the client's error
	SituationClientNoResult     situation = "client_no_result"     // ASK_FAILED: the client answered without a result
	SituationClientGone         situation = "client_disconnected"  // ASK_ABORTED: the client went away while it was asked
	SituationClientReplyInvalid situation = "client_reply_invalid" // ASK_FAILED: the client's reply to the form request is not a JSON-RPC response one can read; Detail: what is wrong with it
	SituationStopped            situation = "stopped"              // ASK_ABORTED: the program asking was stopped (a signal); Detail: the signal
	SituationUsage              situation = "usage"                // INVALID_REQUEST; Detail: what is wrong with the command line
	SituationRequestReadFailed  situation = "request_read_failed"  // ASK_FAILED; Detail: the read error
	SituationUnknownTool        situation = "unknown_tool"         // ToolError UNKNOWN_TOOL; Tool, Tools
	SituationToolFailed         situation = "tool_failed"          // ToolError TOOL_FAILED; Tool, Detail
	SituationToolCancelled      situation = "tool_cancelled"       // ToolError TOOL_CANCELLED
	SituationNotShown           situation = "not_shown"            // ASK_FAILED: the surface did not show the question to anyone; Detail: why
	SituationNoSurface          situation = "no_surface"           // ASK_FAILED: no surface could show the question; Reasons: why each could not
	SituationAnsweredElsewhere  situation = "answered_elsewhere"   // ASK_ABORTED: another surface got the answer; Detail: which
)

// ToolErrorName names failures of the tool machinery (an agent loop)
// rather than of the user-interaction rules.
const ToolErrorName = "ToolError"

// Codes of ToolError failures.
const (
	CodeUnknownTool   errCode = "UNKNOWN_TOOL"   // the model called a tool that is not registered
	CodeToolFailed    errCode = "TOOL_FAILED"    // a tool failed without a structured error
	CodeToolCancelled errCode = "TOOL_CANCELLED" // the run was cancelled before the call ran
)

// maxDetailChars bounds the host text (an error, a panic, a reason) a
// failure message quotes.
const maxDetailChars = 300

// Host text in a fail envelope is read only so far: the first
// MaxFailTextChars characters of detail, of tool, of each tool name and of
// each reason, and the first MaxFailTools names of tools and reasons. A host may cut its text the same
// way before it builds the envelope (a provider's error can be any length)
// and get the same bytes, and the envelope stays far under MaxInputBytes.
const (
	MaxFailTextChars = 4096
	MaxFailTools     = 64
)

// failure is one situation with its particulars (op "fail").
type failure struct {
	Situation situation
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
	// Reasons say why each surface tried could not show the question,
	// for SituationNoSurface.
	Reasons []string
}

// maxReasons bounds the reasons a no_surface message lists; the rest are
// counted.
const maxReasons = 8

// msgNobodySaw ends the messages of the situations where nobody saw the
// question: the model must neither wait for nor invent an answer.
const msgNobodySaw = ". Nothing was chosen: continue without the answer, or ask in your reply and stop."

// failFor returns the error for f: {"name","code","message"} as every surface
// reports it. An unknown situation is itself reported as INVALID_REQUEST.
func failFor(f failure) *harnessError {
	detail := cut(sanitize(f.Detail, false), maxDetailChars)
	withDetail := func(msg, sep string) string {
		if detail == "" {
			return msg
		}
		return msg + sep + detail
	}
	switch f.Situation {
	case SituationNoProvider:
		return newError(CodeNoProvider, "no one can be asked here: no user-interaction provider is registered; continue without asking or stop and report")
	case SituationDuplicateProvider:
		return newError(CodeDuplicateProvider, "a provider is already registered; dispose it before registering another")
	case SituationAborted:
		return newError(CodeAskAborted, withDetail("the question was aborted", ": "))
	case SituationWithdrawn:
		return newError(CodeAskAborted, "the question was withdrawn: the provider was disposed")
	case SituationTimeout:
		return newError(CodeAskTimeout, "no answer within "+formatMillis(f.Millis)+"; nothing was chosen")
	case SituationNoAnswer:
		return newError(CodeAskFailed, "the provider returned no answer")
	case SituationNotAReply:
		return newError(CodeAskFailed, "the provider returned something that is neither the person's reply nor the core's answer to this question, so nothing was chosen (a fault of the front end, not of the request)")
	case SituationStaleAnswer:
		return newError(CodeAskFailed, "the provider returned the answer to another question, so nothing was chosen (a fault of the front end, not of the request)")
	case SituationInvalidReply:
		return newError(CodeInvalidAnswer, withDetail("the reply given did not answer the question, so nothing was chosen; the person was told", ": "))
	case SituationProviderFailed:
		return newError(CodeAskFailed, withDetail("the provider failed", ": "))
	case SituationEngineFault:
		return newError(CodeAskFailed, "the askcore engine failed, so the question was not asked (a fault of the host, not of the request)")
	case SituationInterrupted:
		return newError(CodeAskAborted, "the person dismissed the question (Ctrl-C) without answering; nothing was chosen")
	case SituationEOF:
		return newError(CodeAskAborted, "the input ended (EOF) before an answer was given; nothing was chosen")
	case SituationInputClosed:
		return newError(CodeAskAborted, "the question was withdrawn: the input was closed")
	case SituationReadFailed:
		return newError(CodeAskAborted, withDetail("reading the answer failed", ": "))
	case SituationDeclined:
		return newError(CodeAskDeclined, msgDeclined)
	case SituationNoTerminal:
		return newError(CodeAskFailed, "there is no terminal to read the answer from: pass the request with --request and the answer on stdin")
	case SituationSessionNotFound:
		return newError(CodeSessionNotFound, "no session is bound to agent "+quoteDetail(detail)+", so the question cannot reach anyone; continue without asking")
	case SituationNoFormSupport:
		return newError(CodeAskFailed, "this client cannot show questions (it did not advertise form elicitation); continue without asking, or ask in your reply and stop")
	case SituationClientError:
		return newError(CodeAskFailed, withDetail("the client could not ask the question", ": "))
	case SituationClientNoResult:
		return newError(CodeAskFailed, "the client answered the form request without a result")
	case SituationClientGone:
		return newError(CodeAskAborted, "the client disconnected before an answer was given; nothing was chosen")
	case SituationClientReplyInvalid:
		return newError(CodeAskFailed, withDetail("the client's reply to the form request could not be read, so nothing was chosen (a fault of the client, not of the request)", ": "))
	case SituationStopped:
		msg := "the question was withdrawn because the program asking it was stopped"
		if detail != "" {
			msg += " (" + detail + ")"
		}
		return newError(CodeAskAborted, msg+"; nothing was chosen")
	case SituationUsage:
		return newError(CodeInvalidRequest, withDetail("the command line is not valid", ": "))
	case SituationRequestReadFailed:
		return newError(CodeAskFailed, withDetail("reading the request failed", ": "))
	case SituationUnknownTool:
		available := "none"
		if len(f.Tools) > 0 {
			available = strings.Join(f.Tools, ", ")
		}
		return &harnessError{Name: ToolErrorName, Code: CodeUnknownTool,
			Message: "there is no tool called " + snippet(f.Tool) + "; available tools: " + cut(sanitize(available, false), maxDetailChars)}
	case SituationToolFailed:
		tool := "a tool"
		if f.Tool != "" {
			tool = "the tool " + snippet(f.Tool)
		}
		return &harnessError{Name: ToolErrorName, Code: CodeToolFailed, Message: withDetail(tool+" failed", ": ")}
	case SituationToolCancelled:
		return &harnessError{Name: ToolErrorName, Code: CodeToolCancelled, Message: "the run was cancelled before this tool call ran"}
	case SituationNotShown:
		if detail == "" {
			detail = "the surface asked could not show it"
		}
		return newError(CodeAskFailed, "Nobody saw the question: "+detail+msgNobodySaw)
	case SituationNoSurface:
		return newError(CodeAskFailed, "Nobody saw the question: no surface could show it"+reasonList(f.Reasons)+msgNobodySaw)
	case SituationAnsweredElsewhere:
		msg := "the question was answered elsewhere"
		if detail != "" {
			msg += " (" + detail + ")"
		}
		return newError(CodeAskAborted, msg+", so it is no longer asked here")
	}
	return invalidRequest("unknown situation " + snippet(string(f.Situation)) + ": use one of " + situationList)
}

// situationList names every Situation, for messages and the envelope check.
const situationList = "no_provider, duplicate_provider, aborted, withdrawn, timeout, no_answer, not_a_reply, stale_answer, invalid_reply, provider_failed, engine_fault, " +
	"interrupted, eof, input_closed, read_failed, declined, no_terminal, session_not_found, no_form_support, client_error, " +
	"client_no_result, client_disconnected, client_reply_invalid, stopped, usage, request_read_failed, unknown_tool, tool_failed, tool_cancelled, " +
	"not_shown, no_surface, answered_elsewhere"

// reasonList writes the reasons of a no_surface failure: " (a; b; c)",
// each sanitized and cut, at most maxReasons of them and the number of
// the others.
func reasonList(reasons []string) string {
	var parts []string
	for _, r := range reasons {
		if r = cut(sanitize(r, false), maxDetailChars); r != "" {
			parts = append(parts, r)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	more := ""
	if len(parts) > maxReasons {
		more = "; and " + strconv.Itoa(len(parts)-maxReasons) + " more"
		parts = parts[:maxReasons]
	}
	return " (" + strings.Join(parts, "; ") + more + ")"
}

// quoteDetail quotes a detail already sanitized and cut.
func quoteDetail(s string) string { return `"` + s + `"` }

// formatMillis writes a duration given in milliseconds for people: "2m",
// "1m30s", "45s", "1.5s", "250ms", "1h".
func formatMillis(ms int64) string {
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
func envelopeFailure(env *jsonx.Value) (failure, *harnessError) {
	var f failure
	s, err := envelopeString(env, "situation", "what happened, one of "+situationList)
	if err != nil {
		return f, err
	}
	f.Situation = situation(s)
	if !strings.Contains(", "+situationList+", ", ", "+s+", ") {
		return f, invalidRequest("unknown situation " + snippet(s) + ": use one of " + situationList)
	}
	if f.Detail, err = envelopeOptString(env, "detail"); err != nil {
		return f, err
	}
	if f.Tool, err = envelopeOptString(env, "tool"); err != nil {
		return f, err
	}
	f.Detail, f.Tool = head(f.Detail, MaxFailTextChars), head(f.Tool, MaxFailTextChars)
	if v, n := lookup(env, "ms"); n > 0 && v.Kind != jsonx.Null {
		ms, ok := wholeNumber(v, 15)
		if n > 1 || !ok {
			return f, invalidRequest("ms must be a whole number of milliseconds, given once")
		}
		f.Millis = ms
	}
	if v, n := lookup(env, "reasons"); n > 0 && v.Kind != jsonx.Null {
		if n > 1 || v.Kind != jsonx.Array {
			return f, invalidRequest("reasons must be an array of texts (why each surface could not show the question), given once")
		}
		for i := range v.Arr {
			if v.Arr[i].Kind != jsonx.String {
				return f, invalidRequest("reasons must hold texts (strings), got " + v.Arr[i].Kind.Noun())
			}
			if len(f.Reasons) < MaxFailTools {
				f.Reasons = append(f.Reasons, head(v.Arr[i].Str, MaxFailTextChars))
			}
		}
	}
	if v, n := lookup(env, "tools"); n > 0 && v.Kind != jsonx.Null {
		if n > 1 || v.Kind != jsonx.Array {
			return f, invalidRequest("tools must be an array of tool names, given once")
		}
		for i := range v.Arr {
			if v.Arr[i].Kind != jsonx.String {
				return f, invalidRequest("tools must hold tool names (strings), got " + v.Arr[i].Kind.Noun())
			}
			if len(f.Tools) < MaxFailTools {
				f.Tools = append(f.Tools, head(v.Arr[i].Str, MaxFailTextChars))
			}
		}
	}
	return f, nil
}
