package askcore

import "encoding/json"

// Reply is what the person gave, as a provider hands it back: lines they
// typed, what a picker chose, a client's reply to a form, or a decline.
// The seam has the core resolve it into the answer the model receives
// (Call.Resolve), so a provider never writes an answer itself. The zero
// Reply is no reply (ASK_FAILED).
type Reply struct {
	kind   replyKind
	inputs []any // string lines or Picks, one per question
	form   json.RawMessage
	answer *Answer
}

type replyKind int

const (
	replyNone replyKind = iota
	replyLines
	replyPicks
	replyForm
	replyDecline
	replyAnswer
)

// Lines is the reply of a person who typed one line per question of the
// call, in order: each read by the rules of a typed line (a number, a
// label or value, the person's own text, empty for the default; comma
// separated choices for a multi-select question).
func Lines(lines ...string) Reply {
	in := make([]any, len(lines))
	for i, l := range lines {
		in[i] = l
	}
	return Reply{kind: replyLines, inputs: in}
}

// Picks is the reply of a keyboard picker: one pick per question, in
// order.
func Picks(picks ...Pick) Reply {
	in := make([]any, len(picks))
	for i, p := range picks {
		in[i] = p
	}
	return Reply{kind: replyPicks, inputs: in}
}

// FormReply is a client's reply to the call's form (Call.Form), as the
// client sent it: {"action":"accept"|"decline"|"cancel","content":{...}}.
// The core judges it whole, so a reply of the wrong shape gets the core's
// words too.
func FormReply(response json.RawMessage) Reply {
	return Reply{kind: replyForm, form: response}
}

// Decline is the reply of a person who declined to answer (Esc in a
// picker, a decline button): ASK_DECLINED.
func Decline() Reply { return Reply{kind: replyDecline} }

// Answered hands back an answer Call.Resolve returned for this very call,
// for a provider that resolved the reply itself (to show it). Any other
// Answer, built by hand, decoded from JSON or resolved for another call,
// is refused with ASK_FAILED.
func Answered(a Answer) Reply { return Reply{kind: replyAnswer, answer: &a} }
