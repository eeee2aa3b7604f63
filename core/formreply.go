package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// MaxFormRounds is how many times a form goes back to the person after a
// reply that does not answer it (op "form_reply"): a person who submits a
// form empty by mistake gets the core's message and the form again, three
// times; a fourth bad reply means they gave up, and the model hears
// INVALID_ANSWER. A terminal re-asks without limit because each round
// costs a keystroke; a form is a dialog each time, and a client that keeps
// sending the same bad reply must not loop forever.
const MaxFormRounds = 3

// What a host does next with a form reply (op "form_reply", field "next").
const (
	nextAnswer      = "answer"       // the call is answered: "answer" is the tool result
	nextAskAgain    = "ask_again"    // send "form" to the person again, then its reply with "round"
	nextEnd         = "end"          // the ask ends: "error" is the tool result
	nextNextSurface = "next_surface" // nobody saw the question here: try the next surface, or end with "error"
)

// envelopeFormReply is op "form_reply": what a host does next with a
// client's reply to a form, so that the host only loops. Fields: the call
// (request or arguments), response (the client's reply), round (how many
// times the form was already sent again, 0 for the first reply), for
// (acp|mcp, for the form sent again), delivery (the not-shown facts; its
// client also shapes the form sent again).
func envelopeFormReply(b []byte, a *call, env *jsonx.Value) ([]byte, *harnessError) {
	t, err := envelopeFormTarget(env)
	if err != nil {
		return nil, err
	}
	d, err := envelopeDelivery(env)
	if err != nil {
		return nil, err
	}
	round := 0
	if v, n := lookup(env, "round"); n > 0 && v.Kind != jsonx.Null {
		r, ok := smallInt(v)
		if n > 1 || !ok || r > MaxFormRounds {
			return nil, invalidRequest("round must be a whole number from 0 to " + strconv.Itoa(MaxFormRounds) +
				" (how many times the form was already sent again), given once; got " + describeNumber(v))
		}
		round = r
	}
	action, c, err := envelopeResponse(env)
	if err != nil {
		if err.Code == CodeInvalidRequest {
			return nil, err
		}
		return appendNext(b, nextEnd, err), nil
	}
	if reason, ok := notShown(action, d); ok {
		b = append(b, `{"next":"`+nextNextSurface+`","situation":"`+string(SituationNotShown)+`","reason":`...)
		b = jsonx.AppendString(b, reason)
		b = append(b, `,"error":`...)
		b = appendError(b, failFor(failure{Situation: SituationNotShown, Detail: reason}))
		return append(b, '}'), nil
	}
	answers, err := elicitationResult(a, action, c)
	switch {
	case err == nil:
		b = append(b, `{"next":"`+nextAnswer+`","answer":`...)
		b = appendCallAnswer(b, a, answers)
		return append(b, '}'), nil
	case err.Code != CodeInvalidAnswer:
		return appendNext(b, nextEnd, err), nil
	case round >= MaxFormRounds:
		// The person gave up: the model hears what the core told them.
		b = append(b, `{"next":"`+nextEnd+`","situation":"`+string(SituationInvalidReply)+`","error":`...)
		b = appendError(b, failFor(failure{Situation: SituationInvalidReply, Detail: err.Message}))
		return append(b, '}'), nil
	}
	b = append(b, `{"next":"`+nextAskAgain+`","round":`...)
	b = jsonx.AppendInt(b, round+1)
	b = append(b, `,"roundsLeft":`...)
	b = jsonx.AppendInt(b, MaxFormRounds-round-1)
	b = append(b, `,"form":`...)
	b = appendForm(b, a, formSpec{target: t, client: d.Client, lead: err.Message})
	return append(b, '}'), nil
}

// appendNext writes {"next":next,"error":e}.
func appendNext(b []byte, next string, e *harnessError) []byte {
	b = append(b, `{"next":"`+next+`","error":`...)
	b = appendError(b, e)
	return append(b, '}')
}

// envelopeFormTarget reads the optional "for": acp (the default) or mcp.
func envelopeFormTarget(env *jsonx.Value) (formTarget, *harnessError) {
	t, err := envelopeOptString(env, "for")
	if err != nil {
		return "", err
	}
	switch formTarget(t) {
	case "", forACP:
		return forACP, nil
	case forMCP:
		return forMCP, nil
	}
	return "", invalidRequest(`for must be "acp" or "mcp", got ` + snippet(t))
}
