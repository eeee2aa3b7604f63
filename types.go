package askcore

import (
	"encoding/json"
	"errors"
)

// Every type here marshals with encoding/json to the bytes the core writes
// for it (the core's JSON is a fixed point of encoding/json: it escapes
// '<', '>', '&', U+2028 and U+2029 as encoding/json does), and a value the
// core produced keeps the core's own bytes. TestMarshalIsTheCoresBytes
// holds each type to it.

// ToolName is the name of the model-facing tool.
const ToolName = "ask_user_question"

// Tool is the model-facing ask_user_question tool as the core describes it
// (Core.Tool): give Name, Description and Parameters (a JSON Schema) to
// the model as one function tool.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Question is one question of a call, normalized by the core: strings
// trimmed and made safe to show, every Value set, AllowCustom true for an
// optionless question.
type Question struct {
	Header   string   `json:"header,omitempty"`
	Question string   `json:"question"`
	Options  []Option `json:"options"`
	// AllowCustom: the person may type an answer of their own.
	AllowCustom bool `json:"allowCustom"`
	// MultiSelect: the person picks one or more options.
	MultiSelect bool `json:"multiSelect,omitempty"`
}

// MarshalJSON writes the question as the core does (options as [] when
// there are none).
func (q Question) MarshalJSON() ([]byte, error) {
	if q.Options == nil {
		q.Options = []Option{}
	}
	type plain Question
	return json.Marshal(plain(q))
}

// Option is one choice offered with a question.
type Option struct {
	Label string `json:"label"`
	// Value is what the model receives when the option is chosen; the core
	// sets it to Label when the model gave none.
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	// Preview is shown beside or below the options while this option has
	// the focus: Markdown read as text (a code snippet, an ASCII mockup, a
	// config excerpt), for options a person compares by looking.
	Preview string `json:"preview,omitempty"`
	// Recommended options are shown first; the first is the default.
	Recommended bool `json:"recommended,omitempty"`
}

// Presentation is what a terminal shows for one question in line mode
// (Call.Present).
type Presentation struct {
	// Text is the header and question, the numbered options (recommended
	// first) with their descriptions indented below, and a one-line hint
	// saying how to answer. Plain text: no colour, no prompt.
	Text string `json:"text"`
	// Order lists option indices (positions in the request as given) in
	// display order: the option numbered n on screen is Order[n-1].
	Order []int `json:"order"`
}

// FormTarget says which protocol's clients a form is for (Call.Form).
type FormTarget string

const (
	ForACP FormTarget = "acp" // ACP elicitation: a single question's header is the form's title
	ForMCP FormTarget = "mcp" // MCP elicitation: forms have no title, the header titles the field
)

// Form is a form elicitation for a whole call (Call.Form): send Message
// and RequestedSchema as elicitation/create's params, and hand the
// client's reply back as FormReply.
type Form struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// Pick is what a keyboard picker chose for one question: Options holds the
// chosen options' indices (positions in the request as given), Text the
// text typed on the free-text entry, Notes what the person added beside
// the choice. The core judges it like a typed line (Call.CheckPick, Picks).
type Pick struct {
	Options []int  `json:"options"`
	Text    string `json:"text"`
	Notes   string `json:"notes,omitempty"`
}

// MarshalJSON writes the pick as the core reads it (options as [] when
// none is chosen).
func (p Pick) MarshalJSON() ([]byte, error) {
	if p.Options == nil {
		p.Options = []int{}
	}
	type plain Pick
	return json.Marshal(plain(p))
}

// Selected names an option a person chose.
type Selected struct {
	Index int    `json:"index"` // position in the request as given, from 0
	Label string `json:"label"`
	Value string `json:"value"`
}

// Answer is the core's answer to a whole call: what the model receives
// (JSON). A single question's answer is {"answer","selected"?} or, for a
// multi-select question, {"answers":[...],"selected":[...]}; a batch's is
// {"answers":[{"question":...,<that question's answer>}...]}.
//
// Only the core makes answers the seam accepts: a provider hands back
// what the person gave (Lines, Picks, FormReply, Decline), or an Answer
// that Call.Resolve returned for that very call (Answered). An Answer
// built or decoded by anyone else is refused.
type Answer struct {
	// Batch: the call was {"questions":[...]}.
	Batch bool
	// Questions holds one answer per question, in order: exactly one
	// unless Batch.
	Questions []QuestionAnswer

	raw  json.RawMessage // as the core wrote it
	call *Call           // the call Call.Resolve answered; nil: not the core's
}

// JSON returns the answer object as the model receives it: the core's
// bytes for an answer the core wrote, else the fields in the core's order.
func (a Answer) JSON() json.RawMessage {
	if a.raw != nil {
		return a.raw
	}
	b, _ := a.MarshalJSON()
	return b
}

// MarshalJSON writes the answer as the core does.
func (a Answer) MarshalJSON() ([]byte, error) {
	if a.raw != nil {
		return a.raw, nil
	}
	if a.Batch {
		return json.Marshal(struct {
			Answers []QuestionAnswer `json:"answers"`
		}{nonNil(a.Questions)})
	}
	if len(a.Questions) != 1 {
		return nil, errors.New("askcore: an Answer that is not a batch holds exactly one question's answer")
	}
	return a.Questions[0].MarshalJSON()
}

// UnmarshalJSON reads an answer object. The result is not the core's
// answer to any call: the seam refuses it from a provider.
func (a *Answer) UnmarshalJSON(b []byte) error {
	var probe struct {
		Answers []json.RawMessage `json:"answers"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	*a = Answer{}
	// A batch's answers are objects; a multi-select question's are strings.
	if len(probe.Answers) > 0 && probe.Answers[0][0] == '{' {
		a.Batch = true
		a.Questions = make([]QuestionAnswer, len(probe.Answers))
		for i, raw := range probe.Answers {
			if err := json.Unmarshal(raw, &a.Questions[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var q QuestionAnswer
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	a.Questions = []QuestionAnswer{q}
	return nil
}

// QuestionAnswer is the answer to one question.
type QuestionAnswer struct {
	// Question is the question's text, written in a batch's answers only.
	Question string
	// Multi: a multi-select question, answered by Answers; otherwise by
	// Answer.
	Multi bool
	// Answer is the single source of truth of a single-select or open
	// question: the chosen option's value, or the person's own text.
	Answer string
	// Answers are a multi-select question's chosen values in request
	// order, then the person's own text, if any.
	Answers []string
	// Selected lists the chosen options: at most one unless Multi.
	Selected []Selected
	// Notes is what the person added beside the choice, if anything: part
	// of the answer for the model.
	Notes string
}

// MarshalJSON writes the answer as the core does.
func (q QuestionAnswer) MarshalJSON() ([]byte, error) {
	type head struct {
		Question string `json:"question,omitempty"`
	}
	var v any
	switch {
	case q.Multi:
		v = struct {
			head
			Answers  []string   `json:"answers"`
			Selected []Selected `json:"selected"`
			Notes    string     `json:"notes,omitempty"`
		}{head{q.Question}, nonNil(q.Answers), nonNil(q.Selected), q.Notes}
	case len(q.Selected) > 1:
		return nil, errors.New("askcore: a single-select answer has at most one selected option")
	default:
		var sel *Selected
		if len(q.Selected) == 1 {
			sel = &q.Selected[0]
		}
		v = struct {
			head
			Answer   string    `json:"answer"`
			Selected *Selected `json:"selected,omitempty"`
			Notes    string    `json:"notes,omitempty"`
		}{head{q.Question}, q.Answer, sel, q.Notes}
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads one question's answer object.
func (q *QuestionAnswer) UnmarshalJSON(b []byte) error {
	var v struct {
		Question string          `json:"question"`
		Answer   *string         `json:"answer"`
		Answers  []string        `json:"answers"`
		Selected json.RawMessage `json:"selected"`
		Notes    string          `json:"notes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = QuestionAnswer{Question: v.Question, Multi: v.Answer == nil && v.Answers != nil, Answers: v.Answers, Notes: v.Notes}
	if v.Answer != nil {
		q.Answer = *v.Answer
	}
	switch {
	case len(v.Selected) == 0 || string(v.Selected) == "null":
	case v.Selected[0] == '[':
		return json.Unmarshal(v.Selected, &q.Selected)
	default:
		var s Selected
		if err := json.Unmarshal(v.Selected, &s); err != nil {
			return err
		}
		q.Selected = []Selected{s}
	}
	return nil
}

// nonNil makes a nil slice empty, so that it marshals as [] like the
// core's arrays.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// TerminalFacts are what a terminal front door reads about where it runs;
// Core.Terminal has the core decide what they mean.
type TerminalFacts struct {
	StdinTTY  bool   // the answer's input is a terminal
	StderrTTY bool   // the prompt's writer is a terminal
	OutTTY    bool   // the writer to decorate is a terminal
	Term      string // $TERM
	NoColor   string // $NO_COLOR
	Plain     string // $ASKCORE_PLAIN
	PlainFlag bool   // --plain was given
}

// TerminalMode is what a terminal front door does (Core.Terminal).
type TerminalMode struct {
	// Picker: answer with the keyboard picker; otherwise the line mode,
	// which is also the screen-reader mode.
	Picker bool `json:"picker"`
	// Color: the writer may carry colour.
	Color bool `json:"color"`
}
