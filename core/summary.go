package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// summaryLine says in one line what an answer chose: the chosen options'
// labels, then any typed text, joined by ", "; then the person's notes, if
// any, as "(notes: ...)", cut.
func summaryLine(a *answer) string {
	if a.Notes == "" {
		return choiceLine(a)
	}
	return choiceLine(a) + " (notes: " + sanitizeTitle(a.Notes) + ")"
}

// choiceLine is summaryLine without the notes.
func choiceLine(a *answer) string {
	if !a.Multi {
		if a.Selected != nil {
			return a.Selected.Label
		}
		return a.Answer
	}
	parts := make([]string, 0, len(a.Answers))
	for _, s := range a.Choices {
		parts = append(parts, s.Label)
	}
	if len(a.Answers) > len(a.Choices) {
		parts = append(parts, a.Answers[len(a.Answers)-1])
	}
	return strings.Join(parts, ", ")
}

// summaryText says what answers chose, for an echo line or a tool card: one
// line per question; in a batch each line starts with the question's
// header (or its question, cut) and ": ".
func summaryText(a call, answers []answer) string {
	if !a.Batch {
		return sanitizeText(summaryLine(&answers[0]))
	}
	lines := make([]string, len(answers))
	for i := range answers {
		q := &a.Questions[i]
		name := q.Header
		if name == "" {
			name = sanitizeTitle(q.Question)
		}
		lines[i] = name + ": " + summaryLine(&answers[i])
	}
	return sanitizeText(strings.Join(lines, "\n"))
}

// envelopeSummary is op "summary": the call's answer object, as the core
// wrote it, read back and summarized. With "index", the answer is that of
// question index alone (as resolve with index wrote it) and so is the
// summary.
func envelopeSummary(b []byte, a *call, env *jsonx.Value) ([]byte, *harnessError) {
	v, n := lookup(env, "answer")
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return nil, invalidRequest("answer is required: the answer object the core wrote for this request")
	case n > 1:
		return nil, invalidRequest(`the input has the key "answer" ` + strconv.Itoa(n) + " times: send it once")
	}
	if _, given := lookup(env, "index"); given > 0 {
		i, err := envelopeIndex(env, a, false)
		if err != nil {
			return nil, err
		}
		ans, err := readAnswer(&a.Questions[i], v)
		if err != nil {
			return nil, err
		}
		b = append(b, `{"text":`...)
		b = jsonx.AppendString(b, sanitizeText(summaryLine(&ans)))
		return append(b, '}'), nil
	}
	answers := make([]answer, len(a.Questions))
	if a.Batch {
		list, ok := objectField(v, "answers", jsonx.Array)
		if !ok || len(list.Arr) != len(a.Questions) {
			return nil, answerMismatch("a batch's answer is {\"answers\":[...]} with one entry per question")
		}
		for i := range list.Arr {
			ans, err := readAnswer(&a.Questions[i], &list.Arr[i])
			if err != nil {
				return nil, err
			}
			answers[i] = ans
		}
	} else {
		ans, err := readAnswer(&a.Questions[0], v)
		if err != nil {
			return nil, err
		}
		answers[0] = ans
	}
	text := summaryText(*a, answers)
	b = append(b, `{"text":`...)
	b = jsonx.AppendString(b, text)
	return append(b, '}'), nil
}

func answerMismatch(what string) *harnessError {
	return invalidRequest("answer does not fit the request: " + what)
}

// objectField returns v's field name when v is an object and the field has
// kind k.
func objectField(v *jsonx.Value, name string, k jsonx.Kind) (*jsonx.Value, bool) {
	if v.Kind != jsonx.Object {
		return nil, false
	}
	f, n := lookup(v, name)
	return f, n == 1 && f.Kind == k
}

// readAnswer reads one question's answer object back: enough of it to
// summarize (labels of the chosen options, the typed text).
func readAnswer(r *request, v *jsonx.Value) (answer, *harnessError) {
	if r.MultiSelect {
		list, ok := objectField(v, "answers", jsonx.Array)
		sel, ok2 := objectField(v, "selected", jsonx.Array)
		if !ok || !ok2 || len(sel.Arr) > len(list.Arr) {
			return answer{}, answerMismatch(`a multi-select answer is {"answers":[...],"selected":[...]}`)
		}
		a := answer{Multi: true}
		for i := range list.Arr {
			if list.Arr[i].Kind != jsonx.String {
				return answer{}, answerMismatch("answers holds strings")
			}
			a.Answers = append(a.Answers, list.Arr[i].Str)
		}
		for i := range sel.Arr {
			s, err := readSelected(&sel.Arr[i])
			if err != nil {
				return answer{}, err
			}
			a.Choices = append(a.Choices, s)
		}
		return readNotes(v, a)
	}
	text, ok := objectField(v, "answer", jsonx.String)
	if !ok {
		return answer{}, answerMismatch(`an answer is {"answer":"...","selected"?:{...}}`)
	}
	a := answer{Answer: text.Str}
	if sv, n := lookup(v, "selected"); n > 0 && sv.Kind != jsonx.Null {
		s, err := readSelected(sv)
		if err != nil {
			return answer{}, err
		}
		a.Selected = &s
	}
	return readNotes(v, a)
}

// readNotes reads an answer object's notes, when it has them.
func readNotes(v *jsonx.Value, a answer) (answer, *harnessError) {
	nv, n := lookup(v, "notes")
	if n == 0 || nv.Kind == jsonx.Null {
		return a, nil
	}
	if n > 1 || nv.Kind != jsonx.String {
		return answer{}, answerMismatch(`notes is a string`)
	}
	a.Notes = nv.Str
	return a, nil
}

func readSelected(v *jsonx.Value) (selected, *harnessError) {
	l, ok := objectField(v, "label", jsonx.String)
	if !ok {
		return selected{}, answerMismatch(`selected is {"index":...,"label":"...","value":"..."}`)
	}
	return selected{Label: l.Str}, nil
}
