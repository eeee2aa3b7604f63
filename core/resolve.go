package core

import (
	"strconv"
)

// Resolve turns one line typed by a person into an answer (contract
// section 4). r is normalized first (INVALID_REQUEST); a line that does not
// answer r is INVALID_ANSWER, whose message can be shown as the re-prompt.
func Resolve(r Request, line string) (Answer, error) {
	n, err := normalize(r)
	if err != nil {
		return Answer{}, err
	}
	a, err := resolve(&n, line)
	if err != nil {
		return Answer{}, err
	}
	return a, nil
}

func invalidAnswer(msg string) *HarnessError { return NewError(CodeInvalidAnswer, msg) }

// selectOption answers with option i of r.
func selectOption(r *Request, i int) Answer {
	o := &r.Options[i]
	return Answer{Answer: o.Value, Selected: &Selected{Index: i, Label: o.Label, Value: o.Value}}
}

// freeText checks and returns a free-text answer (already sanitized).
func freeText(text string) (Answer, *HarnessError) {
	if c := chars(text); c > MaxAnswerChars {
		return Answer{}, invalidAnswer("That answer is " + strconv.Itoa(c) + " characters long; at most " +
			strconv.Itoa(MaxAnswerChars) + " are allowed. Please shorten it.")
	}
	return Answer{Answer: text}, nil
}

// resolve applies the typed-line rules to a normalized request.
func resolve(r *Request, line string) (Answer, *HarnessError) {
	text := sanitize(line, true)
	if len(r.Options) == 0 {
		if text == "" {
			return Answer{}, invalidAnswer("Please type an answer; an empty line does not answer the question.")
		}
		return freeText(text)
	}
	var ob [MaxOptions]int
	order := r.appendDisplayOrder(ob[:0])
	if text == "" {
		if d := r.defaultIndex(); d >= 0 {
			return selectOption(r, d), nil
		}
		return Answer{}, invalidAnswer("Please choose an option. " + howToAnswer(r, len(order)))
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
	return Answer{}, invalidAnswer(snippet(text) + " is not one of the options. " + howToAnswer(r, len(order)))
}

// howToAnswer is the re-prompt's instruction.
func howToAnswer(r *Request, n int) string {
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
func matchOption(r *Request, k string) int {
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
