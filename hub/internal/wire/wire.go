// Package wire holds the JSON of the hub's agent API, shared by the
// server (hub/server) and the Go provider (package hub): the
// bodies of its requests and responses, its errors, and the reply shapes
// a person's reply travels in.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/askcore/askcore"
)

// CreateAsk is the body of POST /v1/asks.
type CreateAsk struct {
	// Arguments is the model's ask_user_question arguments text, as
	// written.
	Arguments  string `json:"arguments"`
	ToolCallID string `json:"toolCallId"`
	SessionID  string `json:"sessionId,omitempty"`
}

// Ask is the body of every answer about an ask.
type Ask struct {
	ID    string          `json:"id"`
	State string          `json:"state"`
	Call  json.RawMessage `json:"call"`
	// Reply is what the person gave, in a reply shape; state replied
	// only.
	Reply json.RawMessage `json:"reply,omitempty"`
	// DeadlineMs is the agent's deadline the ask was given, when it has
	// one.
	DeadlineMs int64 `json:"deadlineMs,omitempty"`
}

// Withdrawal is the optional body of DELETE /v1/asks/{id}: AnsweredIn
// names the agent's own surface that got the person's answer ("the
// terminal", "the form"), for the inbox to say where the ask went.
type Withdrawal struct {
	AnsweredIn string `json:"answeredIn"`
}

// ValidSurfaceName reports whether s can name a surface in a Withdrawal:
// 1 to 64 printable characters, no line breaks or controls.
func ValidSurfaceName(s string) bool {
	if s == "" || len(s) > 64 || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Error is every refusal: the core's error object where the core has the
// words (INVALID_REQUEST for arguments), else the hub's (Name HubError).
type Error struct {
	Name    string `json:"name"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorName is the name of the hub's own errors.
const ErrorName = "HubError"

// The codes of HubError.
const (
	CodeUnauthorized = "UNAUTHORIZED"  // a missing, wrong or revoked token (401)
	CodeNotFound     = "NOT_FOUND"     // no such ask for this agent (404)
	CodeConflict     = "CONFLICT"      // same ids, other arguments; an ask already ended (409)
	CodeBadRequest   = "BAD_REQUEST"   // a body or parameter the API does not take (400)
	CodeTooLarge     = "TOO_LARGE"     // the body is over the limit (413)
	CodeRateLimited  = "RATE_LIMITED"  // too many requests, or failed sign-ins (429)
	CodeWrongHost    = "WRONG_HOST"    // a Host header the hub does not serve (421)
	CodeForbidden    = "FORBIDDEN"     // a request the hub refuses where it comes from (403)
	CodeMethod       = "NOT_ALLOWED"   // a method the route does not take (405)
	CodeUnavailable  = "UNAVAILABLE"   // the store failed, or the hub is stopping (503)
	CodeInvalidReply = "INVALID_REPLY" // a reply that is not in a reply shape (400)
)

// Reply shapes: exactly one field is set.
type replyShape struct {
	Lines   *[]string       `json:"lines,omitempty"`
	Picks   *[]askcore.Pick `json:"picks,omitempty"`
	Form    json.RawMessage `json:"form,omitempty"`
	Decline *bool           `json:"decline,omitempty"`
}

// ParseReply reads a reply shape: {"lines":[...]}, {"picks":[...]},
// {"form":{...}} or {"decline":true}. It returns the askcore.Reply the
// core resolves and the shape written again in its canonical bytes.
func ParseReply(b []byte) (askcore.Reply, json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r replyShape
	if err := dec.Decode(&r); err != nil {
		return askcore.Reply{}, nil, fmt.Errorf("a reply is one of {\"lines\":[...]}, {\"picks\":[...]}, {\"form\":{...}}, {\"decline\":true}: %w", err)
	}
	if dec.More() {
		return askcore.Reply{}, nil, errors.New("a reply is one JSON object")
	}
	set := 0
	for _, ok := range []bool{r.Lines != nil, r.Picks != nil, r.Form != nil, r.Decline != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return askcore.Reply{}, nil, errors.New("a reply has exactly one of lines, picks, form, decline")
	}
	var reply askcore.Reply
	switch {
	case r.Lines != nil:
		reply = askcore.Lines(*r.Lines...)
	case r.Picks != nil:
		reply = askcore.Picks(*r.Picks...)
	case r.Form != nil:
		if !bytes.HasPrefix(bytes.TrimSpace(r.Form), []byte("{")) {
			return askcore.Reply{}, nil, errors.New("a form reply is an object: {\"action\":...,\"content\":{...}}")
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, r.Form); err != nil {
			return askcore.Reply{}, nil, err
		}
		r.Form = compact.Bytes()
		reply = askcore.FormReply(r.Form)
	default:
		if !*r.Decline {
			return askcore.Reply{}, nil, errors.New("decline is true or absent")
		}
		reply = askcore.Decline()
	}
	canonical, err := json.Marshal(r)
	if err != nil {
		return askcore.Reply{}, nil, err
	}
	return reply, canonical, nil
}

// Outcome is what an ended ask gives the agent's seam: the person's
// reply, or the failure its core words (ASK_TIMEOUT past the agent's
// deadline, a withdrawal). A pending ask is not an outcome.
func Outcome(a Ask) (askcore.Reply, error) {
	switch a.State {
	case "replied":
		r, _, err := ParseReply(a.Reply)
		if err != nil {
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "the hub's reply cannot be read: " + err.Error()}
		}
		return r, nil
	case "expired":
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationTimeout, Millis: a.DeadlineMs}
	case "withdrawn":
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationWithdrawn}
	}
	return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "the hub answered the state " + a.State}
}
