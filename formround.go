package askcore

import (
	"context"
	"encoding/json"
	"time"
)

// Delivery is what a host knows about how a form (or URL-mode) request
// went, so that the core can tell a reply no person could have given
// (docs/SPEC.md, "Not shown"): a decline or cancel that came back sooner
// than core.NotShownMillis, or in a turn the protocol says nobody runs.
type Delivery struct {
	// Elapsed is the time from sending the request to its reply.
	Elapsed time.Duration
	// Client and ClientVersion are the client's clientInfo (MCP) or the
	// ACP client's name and version, as it gave them.
	Client, ClientVersion string
	// Mode is how the question was put: DeliveryForm (default) or
	// DeliveryURL (a URL-mode request to open the answer page).
	Mode DeliveryMode
	// Trigger is the protocol's word on who started the turn, when it
	// says: Codex sends turn_trigger "exec" (in its call's
	// _meta["x-codex-turn-metadata"]) for a turn run without a person.
	Trigger string
	// Entrypoint is how the client says, in the environment of a process
	// it started, that it runs: Claude Code's CLAUDE_CODE_ENTRYPOINT
	// ("sdk-cli" is claude -p, which cannot show a form). Only a host the
	// client started knows it (askcore-mcp on stdio); leave it empty
	// otherwise.
	Entrypoint string
}

// DeliveryMode says how a question was put to a client.
type DeliveryMode string

// The delivery modes.
const (
	DeliveryForm DeliveryMode = "form" // a form elicitation
	DeliveryURL  DeliveryMode = "url"  // a URL-mode elicitation: open the answer page
)

func (d *Delivery) envelope() map[string]any {
	if d == nil {
		return nil
	}
	m := map[string]any{"ms": max(d.Elapsed.Milliseconds(), 0)}
	if d.Client != "" {
		m["client"] = d.Client
	}
	if d.ClientVersion != "" {
		m["clientVersion"] = d.ClientVersion
	}
	if d.Mode != "" {
		m["mode"] = string(d.Mode)
	}
	if d.Trigger != "" {
		m["trigger"] = d.Trigger
	}
	if d.Entrypoint != "" {
		m["entrypoint"] = d.Entrypoint
	}
	return m
}

// FormRound is one reply to a call's form, for Call.JudgeForm.
type FormRound struct {
	// Target is the protocol of the form sent again, if it must be.
	Target FormTarget
	// Response is the client's reply as it sent it:
	// {"action":"accept"|"decline"|"cancel","content":{...}}.
	Response json.RawMessage
	// Round is the Round of the FormStep whose form this replies to; 0
	// for the first form.
	Round int
	// Delivery holds what the host knows about how the request went; nil
	// when it knows nothing (the not-shown rule is then not applied).
	// Its Client also shapes the form sent again.
	Delivery *Delivery
}

// FormNext says what a host does after a form reply.
type FormNext string

// What a host does next (FormStep.Next).
const (
	// FormAnswer: the call is answered; FormStep.Answer is the tool result.
	FormAnswer FormNext = "answer"
	// FormAskAgain: the reply did not answer; send FormStep.Form (led by
	// the core's message for the person) and judge its reply with
	// FormStep.Round.
	FormAskAgain FormNext = "ask_again"
	// FormEnd: the ask ends with FormStep.Err (declined, cancelled, a
	// client fault, or INVALID_ANSWER once core.MaxFormRounds are used).
	FormEnd FormNext = "end"
	// FormNextSurface: nobody saw the question here (not_shown): try the
	// next surface, or end with FormStep.Err. A provider returns Err as
	// its error, and FirstReply drops it out while the others wait.
	FormNextSurface FormNext = "next_surface"
)

// FormStep is the core's verdict on one form reply (op "form_reply").
type FormStep struct {
	Next       FormNext
	Answer     Answer // FormAnswer
	Form       Form   // FormAskAgain
	Round      int    // FormAskAgain: pass it in the next FormRound
	RoundsLeft int    // FormAskAgain: how many more times the form may go back
	Err        *Error // FormEnd and FormNextSurface
}

// JudgeForm has the core judge a client's reply to the call's form, so
// that a host only loops: send Form (or FormFor), then
//
//	for round := 0; ; {
//		step, err := call.JudgeForm(ctx, askcore.FormRound{Response: reply, Round: round, Delivery: &d})
//		switch step.Next {
//		case askcore.FormAnswer: return askcore.Answered(step.Answer), nil
//		case askcore.FormAskAgain: send step.Form; round = step.Round
//		default: return askcore.Reply{}, step.Err
//		}
//	}
//
// A reply that does not answer goes back to the person with the core's
// message, up to core.MaxFormRounds times; a decline or cancel no person
// could have given (Delivery) is FormNextSurface. The error is for a
// FormRound the core refuses (INVALID_REQUEST) or an engine fault.
func (c *Call) JudgeForm(ctx context.Context, r FormRound) (FormStep, error) {
	env := envelope{"op": "form_reply", "request": c.raw, "response": r.Response, "round": r.Round}
	if r.Target != "" {
		env["for"] = string(r.Target)
	}
	if d := r.Delivery.envelope(); d != nil {
		env["delivery"] = d
	}
	if !json.Valid(r.Response) {
		return FormStep{}, c.core.Fail(ctx, Failure{Situation: SituationNotAReply})
	}
	var v struct {
		Next       FormNext        `json:"next"`
		Answer     json.RawMessage `json:"answer"`
		Form       Form            `json:"form"`
		Round      int             `json:"round"`
		RoundsLeft int             `json:"roundsLeft"`
		Situation  Situation       `json:"situation"`
		Reason     string          `json:"reason"`
		Error      json.RawMessage `json:"error"`
	}
	if _, err := c.core.call(ctx, env, &v); err != nil {
		return FormStep{}, err
	}
	step := FormStep{Next: v.Next, Form: v.Form, Round: v.Round, RoundsLeft: v.RoundsLeft}
	if v.Answer != nil {
		a, err := decodeAnswer(v.Answer)
		if err != nil {
			return FormStep{}, err
		}
		a.call = c
		step.Answer = a
	}
	if v.Error != nil {
		e := &Error{}
		if err := json.Unmarshal(v.Error, e); err != nil {
			return FormStep{}, &EngineError{Err: err}
		}
		e.raw, e.situation, e.reason = v.Error, v.Situation, v.Reason
		step.Err = e
	}
	return step, nil
}

// FormFor is Form for a known client (its clientInfo name): the core
// leaves out what that client cannot show or submit (the optional notes
// field, for a client that blocks submission while an optional text field
// is empty).
func (c *Call) FormFor(ctx context.Context, target FormTarget, client string) (Form, error) {
	var f Form
	_, err := c.core.call(ctx, envelope{"op": "elicitation", "request": c.raw, "for": string(target), "client": client}, &f)
	return f, err
}

// Progress returns the words of a progress message for a question that
// has waited elapsed (op "progress"): "Waiting for your answer… (1 minute
// 5 seconds so far). Answer at URL", url being where the person can answer
// ("" for none). Send it only while the question is open.
func (c *Core) Progress(ctx context.Context, elapsed time.Duration, url string) (string, error) {
	env := envelope{"op": "progress", "ms": max(elapsed.Milliseconds(), 0)}
	if url != "" {
		env["url"] = url
	}
	var p struct {
		Message string `json:"message"`
	}
	_, err := c.call(ctx, env, &p)
	return p.Message, err
}
