package core

import (
	"github.com/askcore/askcore/core/internal/jsonx"
)

// Elicitation returns the ACP form for r (contract section 5). r is
// normalized first; the error is INVALID_REQUEST.
func Elicitation(r Request) (Form, error) {
	n, err := normalize(r)
	if err != nil {
		return Form{}, err
	}
	return Form{Message: n.Question, RequestedSchema: appendFormSchema(nil, &n)}, nil
}

// appendForm writes the form of a normalized request.
func appendForm(b []byte, r *Request) []byte {
	b = append(b, `{"message":`...)
	b = jsonx.AppendString(b, r.Question)
	b = append(b, `,"requestedSchema":`...)
	b = appendFormSchema(b, r)
	return append(b, '}')
}

// JSON returns the form as op "elicitation" writes it.
func (f Form) JSON() []byte {
	b := []byte(`{"message":`)
	b = jsonx.AppendString(b, f.Message)
	b = append(b, `,"requestedSchema":`...)
	if len(f.RequestedSchema) == 0 {
		b = append(b, "null"...)
	}
	b = append(b, f.RequestedSchema...)
	return append(b, '}')
}

// Titles of the form fields.
const (
	titleChoice = "Choose an option"
	titleAnswer = "Your answer"
	titleCustom = "Or type your own answer"
	descCustom  = "When not empty, this is the answer instead of the chosen option."
)

// appendFormSchema writes the requestedSchema of a normalized request.
func appendFormSchema(b []byte, r *Request) []byte {
	b = append(b, `{"type":"object"`...)
	if r.Header != "" {
		b = append(b, `,"title":`...)
		b = jsonx.AppendString(b, r.Header)
	}
	b = append(b, `,"properties":{`...)
	if len(r.Options) == 0 {
		b = append(b, `"answer":{"type":"string","title":`...)
		b = jsonx.AppendString(b, titleAnswer)
		b = append(b, `,"minLength":1,"maxLength":`...)
		b = jsonx.AppendInt(b, MaxAnswerChars)
		return append(b, `}},"required":["answer"]}`...)
	}
	b = append(b, `"choice":{"type":"string","title":`...)
	b = jsonx.AppendString(b, titleChoice)
	b = append(b, `,"oneOf":[`...)
	var ob [MaxOptions]int
	for n, i := range r.appendDisplayOrder(ob[:0]) {
		o := &r.Options[i]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"const":`...)
		b = jsonx.AppendString(b, o.Value)
		b = append(b, `,"title":`...)
		b = jsonx.AppendString(b, o.Label)
		if o.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, o.Description)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if d := r.defaultIndex(); d >= 0 {
		b = append(b, `,"default":`...)
		b = jsonx.AppendString(b, r.Options[d].Value)
	}
	b = append(b, '}')
	if r.AllowCustom {
		b = append(b, `,"custom_answer":{"type":"string","title":`...)
		b = jsonx.AppendString(b, titleCustom)
		b = append(b, `,"description":`...)
		b = jsonx.AppendString(b, descCustom)
		b = append(b, `,"maxLength":`...)
		b = jsonx.AppendInt(b, MaxAnswerChars)
		return append(b, `}},"required":[]}`...)
	}
	return append(b, `},"required":["choice"]}`...)
}

// ElicitationResult turns an ACP client's response to the form for r into
// an answer (contract section 5): "accept" with a usable value gives an
// answer, "accept" with nothing usable or a choice that was not offered is
// INVALID_ANSWER, "decline" is ASK_DECLINED, "cancel" is ASK_CANCELLED and
// any other action ASK_FAILED. Content values must be strings; other fields
// are ignored.
func ElicitationResult(r Request, resp ElicitationResponse) (Answer, error) {
	n, err := normalize(r)
	if err != nil {
		return Answer{}, err
	}
	a, err := elicitationResult(&n, resp.Action, mapContent(resp.Content))
	if err != nil {
		return Answer{}, err
	}
	return a, nil
}

// content reads one form field: its string value, whether it is present
// (null counts as absent), and a problem to report when it is not a usable
// string.
type content func(name string) (s string, present bool, problem *HarnessError)

func mapContent(m map[string]any) content {
	return func(name string) (string, bool, *HarnessError) {
		v, ok := m[name]
		if !ok || v == nil {
			return "", false, nil
		}
		if s, ok := v.(string); ok {
			return s, true, nil
		}
		noun := "an object"
		switch v.(type) {
		case bool:
			noun = "a boolean"
		case float64, float32, int, int64, int32, uint, uint64, uint32:
			noun = "a number"
		case []any, []string:
			noun = "an array"
		}
		return "", false, notAString(name, noun)
	}
}

func jsonContent(v jsonx.Value) content {
	return func(name string) (string, bool, *HarnessError) {
		f, n := v.Lookup(name)
		switch {
		case n == 0 || f.Kind == jsonx.Null:
			return "", false, nil
		case n > 1:
			return "", false, invalidAnswer(`The form's content has the field "` + name + `" more than once.`)
		case f.Kind != jsonx.String:
			return "", false, notAString(name, f.Kind.Noun())
		}
		return f.Str, true, nil
	}
}

func notAString(name, noun string) *HarnessError {
	return invalidAnswer(`The form's field "` + name + `" must be a string, got ` + noun + ".")
}

func elicitationResult(r *Request, action string, get content) (Answer, *HarnessError) {
	switch action {
	case "accept":
	case "decline":
		return Answer{}, NewError(CodeAskDeclined, "The person declined to answer this question. Do not ask it again unless they bring it up; carry on without the answer or ask them what they would prefer.")
	case "cancel":
		return Answer{}, NewError(CodeAskCancelled, "The person cancelled the question without answering. Stop and wait for their next instruction.")
	default:
		return Answer{}, NewError(CodeAskFailed, "The client answered the form with an unknown action "+snippet(action)+` (expected "accept", "decline" or "cancel").`)
	}
	if len(r.Options) == 0 {
		s, _, err := get(FieldAnswer)
		if err != nil {
			return Answer{}, err
		}
		if s = sanitize(s, true); s == "" {
			return Answer{}, invalidAnswer("The form was accepted without an answer. Please type an answer.")
		}
		return freeText(s)
	}
	if r.AllowCustom {
		s, _, err := get(FieldCustomAnswer)
		if err != nil {
			return Answer{}, err
		}
		if s = sanitize(s, true); s != "" {
			if i := matchOption(r, key(s)); i >= 0 {
				return selectOption(r, i), nil
			}
			return freeText(s)
		}
	}
	c, _, err := get(FieldChoice)
	if err != nil {
		return Answer{}, err
	}
	if c == "" {
		if r.AllowCustom {
			return Answer{}, invalidAnswer("The form was accepted without an answer. Please choose an option or type your own answer.")
		}
		return Answer{}, invalidAnswer("The form was accepted without a choice. Please choose an option.")
	}
	for i := range r.Options {
		if r.Options[i].Value == c {
			return selectOption(r, i), nil
		}
	}
	if i := matchOption(r, key(c)); i >= 0 {
		return selectOption(r, i), nil
	}
	return Answer{}, invalidAnswer("The choice " + snippet(c) + " was not one of the options offered. Please choose one of the options.")
}
