package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// pick is what a keyboard picker sends for one question: the options
// chosen (positions in the request as given) and the text typed in the
// own-answer entry. On the wire: {"options":[...],"text":"..."}.
type pick struct {
	Options []int
	Text    string
	Notes   string
}

func invalidAnswer(msg string) *harnessError { return newError(CodeInvalidAnswer, msg) }

// selectOption answers with option i of r.
func selectOption(r *request, i int) answer {
	o := &r.Options[i]
	return answer{Answer: o.Value, Selected: &selected{Index: i, Label: o.Label, Value: o.Value}}
}

// checkFreeText checks the length of a free-text answer (sanitized).
func checkFreeText(text string) *harnessError {
	if c := chars(text); c > MaxAnswerChars {
		return invalidAnswer("That answer is " + strconv.Itoa(c) + " characters long; at most " +
			strconv.Itoa(MaxAnswerChars) + " are allowed. Please shorten it.")
	}
	return nil
}

// freeText checks and returns a free-text answer (already sanitized).
func freeText(text string) (answer, *harnessError) {
	if err := checkFreeText(text); err != nil {
		return answer{}, err
	}
	return answer{Answer: text}, nil
}

// multiAnswer builds a multi-select answer from chosen options (a set of
// request positions) and free text (empty for none); at least one of them,
// else INVALID_ANSWER with how (how to choose, for the re-prompt).
func multiAnswer(r *request, chosen []bool, text, how string) (answer, *harnessError) {
	a := answer{Multi: true, Answers: []string{}, Choices: []selected{}}
	for i, on := range chosen {
		if on {
			o := &r.Options[i]
			a.Answers = append(a.Answers, o.Value)
			a.Choices = append(a.Choices, selected{Index: i, Label: o.Label, Value: o.Value})
		}
	}
	if text != "" {
		if err := checkFreeText(text); err != nil {
			return answer{}, err
		}
		a.Answers = append(a.Answers, text)
	}
	if len(a.Answers) == 0 {
		return answer{}, invalidAnswer("Please choose at least one option. " + how)
	}
	return a, nil
}

// recommendedSet is the multi-select default: every recommended option.
func recommendedSet(r *request) ([]bool, bool) {
	set := make([]bool, len(r.Options))
	some := false
	for i, o := range r.Options {
		set[i] = o.Recommended
		some = some || o.Recommended
	}
	return set, some
}

// notesMark starts the person's notes on a typed line: "2 // keep v15".
// It counts at the start of the line or after a space, so an answer such
// as a URL ("https://...") is never cut.
const notesMark = "//"

// splitNotes splits a sanitized typed line at its notes mark: the answer
// part and the notes (both trimmed; notes empty when there is no mark).
func splitNotes(text string) (string, string) {
	for i := 0; i+len(notesMark) <= len(text); i++ {
		if text[i:i+len(notesMark)] == notesMark && (i == 0 || text[i-1] == ' ') {
			return trim(text[:i]), trim(text[i+len(notesMark):])
		}
	}
	return text, ""
}

// withNotes adds the person's notes (sanitized) to an answer.
func withNotes(a answer, notes string) (answer, *harnessError) {
	if c := chars(notes); c > MaxNotesChars {
		return answer{}, invalidAnswer("Those notes are " + strconv.Itoa(c) + " characters long; at most " +
			strconv.Itoa(MaxNotesChars) + " are allowed. Please shorten them.")
	}
	a.Notes = notes
	return a, nil
}

// resolveLine applies the typed-line rules to a normalized question; the
// notes after the notes mark, if any, go with the answer.
func resolveLine(r *request, line string) (answer, *harnessError) {
	text, notes := splitNotes(sanitize(line, true))
	a, err := resolveLineAnswer(r, text)
	if err != nil || notes == "" {
		return a, err
	}
	return withNotes(a, notes)
}

// resolveLineAnswer resolves the answer part of a typed line.
func resolveLineAnswer(r *request, text string) (answer, *harnessError) {
	if len(r.Options) == 0 {
		if text == "" {
			return answer{}, invalidAnswer("Please type an answer; an empty line does not answer the question.")
		}
		return freeText(text)
	}
	if r.MultiSelect {
		return resolveMultiLine(r, text)
	}
	var ob [MaxOptions]int
	order := r.appendDisplayOrder(ob[:0])
	if text == "" {
		if d := r.defaultIndex(); d >= 0 {
			return selectOption(r, d), nil
		}
		return answer{}, invalidAnswer("Please choose an option. " + howToAnswer(r, len(order)))
	}
	if n, ok := optionNumber(text); ok && n >= 1 && n <= len(order) {
		return selectOption(r, order[n-1]), nil
	}
	if i := matchOption(r, key(text)); i >= 0 {
		return selectOption(r, i), nil
	}
	if r.AllowCustom {
		return freeText(text)
	}
	return answer{}, invalidAnswer(snippet(text) + " is not one of the options. " + howToAnswer(r, len(order)))
}

// resolveMultiLine reads a multi-select line: comma-separated parts, each a
// displayed number, a label or a value; the parts that match no option are
// the free text (joined by ", ") when it is allowed. A label that itself
// holds commas matches when its parts are typed together.
func resolveMultiLine(r *request, text string) (answer, *harnessError) {
	if text == "" {
		set, ok := recommendedSet(r)
		if !ok {
			return answer{}, invalidAnswer("Please choose at least one option. " + howToAnswer(r, len(r.Options)))
		}
		return multiAnswer(r, set, "", howToAnswer(r, len(r.Options)))
	}
	var ob [MaxOptions]int
	order := r.appendDisplayOrder(ob[:0])
	parts := strings.Split(text, ",")
	chosen := make([]bool, len(r.Options))
	var free []string
	for i := 0; i < len(parts); i++ {
		part := trim(parts[i])
		if part == "" {
			continue
		}
		if n, ok := optionNumber(part); ok && n >= 1 && n <= len(order) {
			chosen[order[n-1]] = true
			continue
		}
		// The longest run of parts from i that names an option.
		matched := false
		for j := len(parts); j > i; j-- {
			if o := matchOption(r, key(strings.Join(parts[i:j], ","))); o >= 0 {
				chosen[o] = true
				i = j - 1
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if !r.AllowCustom {
			return answer{}, invalidAnswer(snippet(part) + " is not one of the options. " + howToAnswer(r, len(order)))
		}
		free = append(free, part)
	}
	return multiAnswer(r, chosen, strings.Join(free, ", "), howToAnswer(r, len(order)))
}

// resolvePick applies a picker's pick to a normalized question, with the
// pick's notes.
func resolvePick(r *request, p pick) (answer, *harnessError) {
	a, err := resolvePickAnswer(r, p)
	if err != nil {
		return a, err
	}
	if notes := sanitize(p.Notes, true); notes != "" {
		return withNotes(a, notes)
	}
	return a, nil
}

// resolvePickAnswer resolves a pick's options and text.
func resolvePickAnswer(r *request, p pick) (answer, *harnessError) {
	for _, i := range p.Options {
		if i < 0 || i >= len(r.Options) {
			return answer{}, invalidAnswer("Option " + strconv.Itoa(i) + " is not one of the options offered. Please choose one of the options.")
		}
	}
	text := sanitize(p.Text, true)
	if text != "" && !r.AllowCustom {
		return answer{}, invalidAnswer("This question does not take an answer of your own. Please choose one of the options.")
	}
	if r.MultiSelect {
		chosen := make([]bool, len(r.Options))
		for _, i := range p.Options {
			chosen[i] = true
		}
		return multiAnswer(r, chosen, text, howToPick(r))
	}
	switch {
	case len(r.Options) == 0:
		if text == "" {
			return answer{}, invalidAnswer("Please type an answer.")
		}
		return freeText(text)
	case text != "":
		if i := matchOption(r, key(text)); i >= 0 {
			return selectOption(r, i), nil
		}
		return freeText(text)
	case len(p.Options) == 1:
		return selectOption(r, p.Options[0]), nil
	case len(p.Options) > 1:
		return answer{}, invalidAnswer("Please choose only one option.")
	case r.AllowCustom:
		return answer{}, invalidAnswer("Please choose an option or type your own answer.")
	}
	return answer{}, invalidAnswer("Please choose an option.")
}

// howToPick is the instruction for a keyboard picker's empty multi-select
// pick.
func howToPick(r *request) string {
	if r.AllowCustom {
		return "Space toggles the option under the cursor; or type your own answer."
	}
	return "Space toggles the option under the cursor."
}

// howToAnswer is the re-prompt's instruction.
func howToAnswer(r *request, n int) string {
	if r.MultiSelect {
		s := "Type the numbers (1-" + strconv.Itoa(n) + ") or labels of the options you choose, separated by commas"
		if r.AllowCustom {
			return s + ", and your own answer if you like."
		}
		return s + "."
	}
	s := "Type the number of an option (1-" + strconv.Itoa(n) + ") or its label"
	if n == 1 {
		s = "Type 1 or the option's label"
	}
	if r.AllowCustom {
		return s + ", or type your own answer."
	}
	return s + "."
}

// matchOption returns the option whose label, or else whose value, has
// key k; -1 when none does. Labels win over values: the person sees labels.
func matchOption(r *request, k string) int {
	if k == "" {
		return -1
	}
	var buf [256]byte // the keys are built here, one at a time
	for i := range r.Options {
		if string(appendKey(buf[:0], r.Options[i].Label)) == k {
			return i
		}
	}
	for i := range r.Options {
		if string(appendKey(buf[:0], r.Options[i].Value)) == k {
			return i
		}
	}
	return -1
}

// optionNumber reads a typed option number: ASCII or full-width digits,
// optionally followed by "." or ")" as the list shows them ("2", "2.",
// "２").
func optionNumber(s string) (int, bool) {
	n, digits := 0, 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			r -= '0'
		case r >= '０' && r <= '９':
			r -= '０'
		case (r == '.' || r == ')') && digits > 0 && i == len(s)-1:
			return n, true
		default:
			return 0, false
		}
		digits++
		if digits > 6 {
			return 0, false
		}
		n = n*10 + int(r)
	}
	return n, digits > 0
}

// envelopeResolve is op "resolve": "input" (with "index" for a batch)
// answers one question; "inputs" (one per question) answers the call.
func envelopeResolve(b []byte, env *jsonx.Value, a *call) ([]byte, *harnessError) {
	in, n := lookup(env, "input")
	ins, ns := lookup(env, "inputs")
	hasIn, hasIns := n > 0 && in.Kind != jsonx.Null, ns > 0 && ins.Kind != jsonx.Null
	switch {
	case n > 1:
		return nil, invalidRequest(`the input has the key "input" ` + strconv.Itoa(n) + " times: send it once")
	case ns > 1:
		return nil, invalidRequest(`the input has the key "inputs" ` + strconv.Itoa(ns) + " times: send it once")
	case hasIn && hasIns:
		return nil, invalidRequest(`the input has both "input" and "inputs": send input (one question's answer) or inputs (one per question)`)
	case hasIns:
		answers, err := resolveInputs(a, ins)
		if err != nil {
			return nil, err
		}
		return appendCallAnswer(b, a, answers), nil
	case !hasIn && a.Batch:
		return nil, invalidRequest("input is required: the line the person typed (with index, the question it answers), or inputs, one per question")
	case !hasIn:
		return nil, invalidRequest("input is required: the line the person typed")
	}
	i, err := envelopeIndex(env, a, true)
	if err != nil {
		return nil, err
	}
	ans, err := resolveInput(&a.Questions[i], in, "input")
	if err != nil {
		return nil, err
	}
	return appendAnswer(b, &ans), nil
}

// resolveInputs answers every question of a from inputs, one per question.
func resolveInputs(a *call, ins *jsonx.Value) ([]answer, *harnessError) {
	if ins.Kind != jsonx.Array {
		return nil, invalidRequest("inputs must be an array with one input per question, got " + ins.Kind.Noun())
	}
	if len(ins.Arr) != len(a.Questions) {
		return nil, invalidRequest("inputs has " + strconv.Itoa(len(ins.Arr)) + " entries for " +
			strconv.Itoa(len(a.Questions)) + " questions: send one input per question, in question order")
	}
	answers := make([]answer, len(a.Questions))
	for i := range a.Questions {
		ans, err := resolveInput(&a.Questions[i], &ins.Arr[i], index("inputs", i))
		if err != nil {
			return nil, inQuestion(a, i, err)
		}
		answers[i] = ans
	}
	return answers, nil
}

// inQuestion says which question of a batch an answer problem is about.
func inQuestion(a *call, i int, err *harnessError) *harnessError {
	if !a.Batch || err.Code == CodeInvalidRequest {
		return err
	}
	return newError(err.Code, "Question "+strconv.Itoa(i+1)+" ("+snippet(a.Questions[i].Question)+"): "+err.Message)
}

// resolveInput answers question r from one input: a typed line (string)
// or a picker's pick (object).
func resolveInput(r *request, v *jsonx.Value, name string) (answer, *harnessError) {
	switch v.Kind {
	case jsonx.String:
		return resolveLine(r, v.Str)
	case jsonx.Object:
		p, err := decodePick(v, name)
		if err != nil {
			return answer{}, err
		}
		return resolvePick(r, p)
	}
	return answer{}, invalidRequest(name + " must be a string (the line the person typed), got " + v.Kind.Noun())
}

// decodePick reads {"options":[positions],"text":"...","notes":"..."}.
func decodePick(v *jsonx.Value, name string) (pick, *harnessError) {
	var p pick
	ov, n := lookup(v, "options")
	switch {
	case n > 1:
		return p, invalidRequest(name + ` has the key "options" ` + strconv.Itoa(n) + " times: send it once")
	case n == 1 && ov.Kind == jsonx.Array:
		if len(ov.Arr) > MaxOptions {
			return p, invalidRequest(name + ".options has " + strconv.Itoa(len(ov.Arr)) + " entries; at most " + strconv.Itoa(MaxOptions) + " are allowed")
		}
		p.Options = make([]int, len(ov.Arr))
		for i := range ov.Arr {
			x, ok := smallInt(&ov.Arr[i])
			if !ok {
				return p, invalidRequest(name + ".options must hold option positions (whole numbers from 0), got " + describeNumber(&ov.Arr[i]))
			}
			p.Options[i] = x
		}
	case n == 1 && ov.Kind != jsonx.Null:
		return p, invalidRequest(name + ".options must be an array of option positions, got " + ov.Kind.Noun())
	}
	tv, n := lookup(v, "text")
	switch {
	case n > 1:
		return p, invalidRequest(name + ` has the key "text" ` + strconv.Itoa(n) + " times: send it once")
	case n == 1 && tv.Kind == jsonx.String:
		p.Text = tv.Str
	case n == 1 && tv.Kind != jsonx.Null:
		return p, invalidRequest(name + ".text must be a string, got " + tv.Kind.Noun())
	}
	nv, n := lookup(v, "notes")
	switch {
	case n > 1:
		return p, invalidRequest(name + ` has the key "notes" ` + strconv.Itoa(n) + " times: send it once")
	case n == 1 && nv.Kind == jsonx.String:
		p.Notes = nv.Str
	case n == 1 && nv.Kind != jsonx.Null:
		return p, invalidRequest(name + ".notes must be a string, got " + nv.Kind.Noun())
	}
	return p, nil
}

// appendCallAnswer writes the answer to a whole call: the one question's
// answer, or a batch's {"answers":[...]}.
func appendCallAnswer(b []byte, a *call, answers []answer) []byte {
	if !a.Batch {
		return appendAnswer(b, &answers[0])
	}
	ba := batchAnswer{Questions: make([]string, len(a.Questions)), Answers: answers}
	for i := range a.Questions {
		ba.Questions[i] = a.Questions[i].Question
	}
	return appendBatchAnswer(b, &ba)
}
