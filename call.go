package askcore

import (
	"context"
	"encoding/json"
	"errors"
)

// Call is one ask_user_question call on its way to a person: the call as
// the core normalized it, who asks it, and the core's ops for showing it
// and judging what the person gives. A provider receives it in
// Provider.Ask.
type Call struct {
	// Questions are the call's questions, as the core normalized them:
	// exactly one unless Batch.
	Questions []Question
	// Batch: the call is {"questions":[...]}, answered {"answers":[...]}
	// even for one question.
	Batch bool
	// From identifies the asking agent, for routing.
	From Identity

	raw       json.RawMessage // the normalized call as the core wrote it
	arguments string          // the model's text the call was normalized from
	core      *Core
}

// Arguments returns the model's arguments text the call was normalized
// from, exactly as the model wrote it, for a provider that sends the call
// on to be normalized again elsewhere (the hub's own core).
func (c *Call) Arguments() string { return c.arguments }

// JSON returns the normalized call as the core wrote it.
func (c *Call) JSON() json.RawMessage { return c.raw }

// MarshalJSON writes JSON().
func (c *Call) MarshalJSON() ([]byte, error) { return c.raw, nil }

// Core returns the core the call was normalized by; every op on the call
// runs on it.
func (c *Call) Core() *Core { return c.core }

// Present returns what a terminal shows for question i (0 for a single
// question) in line mode: the text to print and the display order.
func (c *Call) Present(ctx context.Context, i int) (Presentation, error) {
	var p Presentation
	_, err := c.core.call(ctx, envelope{"op": "present", "request": c.raw, "index": i}, &p)
	return p, err
}

// Picker returns what a keyboard picker draws for the whole call (op
// "picker"), as the core wrote it: every question's entries in display
// order, their texts, the help line and the picker's own words. Package
// termui draws it; its format is in docs/SPEC.md.
func (c *Call) Picker(ctx context.Context) (json.RawMessage, error) {
	return c.core.call(ctx, envelope{"op": "picker", "request": c.raw}, nil)
}

// Form returns the form elicitation for the whole call, as target's
// clients read it.
func (c *Call) Form(ctx context.Context, target FormTarget) (Form, error) {
	var f Form
	_, err := c.core.call(ctx, envelope{"op": "elicitation", "request": c.raw, "for": string(target)}, &f)
	return f, err
}

// CheckLine judges one line typed for question i, for a provider that
// re-asks until the person gives a usable line. It returns the core's
// one-line summary of what the line chose (to echo), or an *Error with
// code INVALID_ANSWER whose message is for the person (show it, ask
// again). That message is never a result for the model: hand the lines
// back with Lines, and the seam resolves them.
func (c *Call) CheckLine(ctx context.Context, i int, line string) (summary string, err error) {
	return c.check(ctx, i, line)
}

// CheckPick is CheckLine for a keyboard picker's pick.
func (c *Call) CheckPick(ctx context.Context, i int, p Pick) (summary string, err error) {
	return c.check(ctx, i, p)
}

func (c *Call) check(ctx context.Context, i int, input any) (string, error) {
	raw, err := c.core.call(ctx, envelope{"op": "resolve", "request": c.raw, "index": i, "input": input}, nil)
	if err != nil {
		return "", err
	}
	var s struct {
		Text string `json:"text"`
	}
	_, err = c.core.call(ctx, envelope{"op": "summary", "request": c.raw, "index": i, "answer": raw}, &s)
	return s.Text, err
}

// Resolve has the core turn r, what the person gave, into the answer to
// this call: the answer the model receives, or the core's error. This is
// what the seam does with a provider's reply; a provider calls it itself
// when it wants to show the answer before handing it back (Answered).
//
// A reply that does not answer the call (a line that is no option, a form
// accepted empty) is INVALID_ANSWER with a message for the model, not the
// one for the person that CheckLine gives; a declined reply is
// ASK_DECLINED; a form reply may also be ASK_CANCELLED or ASK_FAILED.
func (c *Call) Resolve(ctx context.Context, r Reply) (Answer, error) {
	var raw json.RawMessage
	var err error
	switch r.kind {
	case replyLines, replyPicks:
		if len(r.inputs) != len(c.Questions) {
			return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationNotAReply})
		}
		raw, err = c.core.call(ctx, envelope{"op": "resolve", "request": c.raw, "inputs": r.inputs}, nil)
	case replyForm:
		if !json.Valid(r.form) {
			return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationNotAReply})
		}
		raw, err = c.core.call(ctx, envelope{"op": "elicitation_result", "request": c.raw, "response": r.form}, nil)
	case replyDecline:
		return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationDeclined})
	case replyAnswer:
		return c.accept(ctx, r.answer)
	default:
		return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationNoAnswer})
	}
	var e *Error
	if errors.As(err, &e) && e.Code == CodeInvalidAnswer {
		// The core's words for the person become the core's words for the
		// model: what the person gave did not answer the question.
		return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationInvalidReply, Detail: e.Message})
	}
	if err != nil {
		return Answer{}, err
	}
	a, err := decodeAnswer(raw)
	if err != nil {
		return Answer{}, err
	}
	a.call = c
	return a, nil
}

// accept passes on an answer the core wrote for this very call, and
// refuses any other. The answer is read again from the core's bytes, so
// that its fields are what the model receives even when the provider
// changed them (or goes on changing the slices it shares).
func (c *Call) accept(ctx context.Context, a *Answer) (Answer, error) {
	switch {
	case a == nil || a.call == nil:
		return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationNotAReply})
	case a.call != c:
		return Answer{}, c.core.Fail(ctx, Failure{Situation: SituationStaleAnswer})
	}
	fresh, err := decodeAnswer(a.raw)
	if err != nil {
		return Answer{}, err
	}
	fresh.call = c
	return fresh, nil
}

func decodeAnswer(raw json.RawMessage) (Answer, error) {
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return Answer{}, &EngineError{Err: errors.New("the core returned an unreadable answer: " + err.Error())}
	}
	a.raw = raw
	return a, nil
}

// Summary says in one line per question what a's answer chose (op
// "summary"), for an echo line or a tool card.
func (c *Call) Summary(ctx context.Context, a Answer) (string, error) {
	var s struct {
		Text string `json:"text"`
	}
	_, err := c.core.call(ctx, envelope{"op": "summary", "request": c.raw, "answer": a.JSON()}, &s)
	return s.Text, err
}
