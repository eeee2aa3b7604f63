package core

// The typed wrappers the core's tests use: each normalizes one request or
// call and runs one rule on it, as the ops do behind Handle.

// Normalize applies the request rules (contract section 2) to r: strings
// sanitized and trimmed, Value defaulting to Label, AllowCustom forced true
// for optionless questions, limits checked, and duplicate labels or values
// rejected. The error is a *HarnessError with code INVALID_REQUEST whose
// message tells the model what to change. r is not modified.
func typedNormalize(r request) (request, error) {
	n, err := normalize(r)
	if err != nil {
		return request{}, err
	}
	return n, nil
}

// NormalizeAsk applies the request rules to every question of a (and, for
// a batch, the batch rules of contract section 7: 1 to MaxQuestions
// questions, no two asking the same question). a is not modified.
func typedNormalizeAsk(a call) (call, error) {
	n := call{Questions: make([]request, len(a.Questions)), Batch: a.Batch}
	for i, q := range a.Questions {
		n.Questions[i] = q
		n.Questions[i].Options = append([]option(nil), q.Options...)
	}
	if err := normalizeAskInPlace(&n); err != nil {
		return call{}, err
	}
	return n, nil
}

// Resolve turns one line typed by a person into an answer (contract
// sections 4 and 7). r is normalized first (INVALID_REQUEST); a line that
// does not answer r is INVALID_ANSWER, whose message can be shown as the
// re-prompt. For a multi-select question the line holds comma-separated
// choices and the answer is Multi.
func typedResolve(r request, line string) (answer, error) {
	return resolveNormalized(r, func(n *request) (answer, *harnessError) { return resolveLine(n, line) })
}

// ResolvePick turns a picker's pick into an answer to r, by the rules of
// a typed line: for a single-select question a non-empty Text wins (and
// chooses the option whose label or value it matches), else exactly one
// option; for a multi-select question the options, then Text as one more
// answer.
func typedResolvePick(r request, p pick) (answer, error) {
	return resolveNormalized(r, func(n *request) (answer, *harnessError) { return resolvePick(n, p) })
}

// resolveNormalized answers r, normalized, with resolve: no answer when
// either fails.
func resolveNormalized(r request, resolve func(n *request) (answer, *harnessError)) (answer, error) {
	n, err := normalize(r)
	if err != nil {
		return answer{}, err
	}
	a, err := resolve(&n)
	if err != nil {
		return answer{}, err
	}
	return a, nil
}

// ElicitationResult turns a client's response to the form for r into an
// answer (contract sections 5 and 7): "accept" with a usable value gives an
// answer, "accept" with nothing usable or a choice that was not offered is
// INVALID_ANSWER, "decline" is ASK_DECLINED, "cancel" is ASK_CANCELLED and
// any other action ASK_FAILED. Content values must be strings (string
// arrays for a multi-select field); other fields are ignored.
func typedElicitationResult(r request, resp elicitationResponse) (answer, error) {
	n, err := normalize(r)
	if err != nil {
		return answer{}, err
	}
	a := call{Questions: []request{n}}
	answers, err := elicitationResult(&a, resp.Action, mapContent(resp.Content))
	if err != nil {
		return answer{}, err
	}
	return answers[0], nil
}

// Elicitation returns the form for r (contract sections 5 and 7), the same
// for ACP and MCP clients. r is normalized first; the error is
// INVALID_REQUEST.
func typedElicitation(r request) (form, error) {
	n, err := normalize(r)
	if err != nil {
		return form{}, err
	}
	a := call{Questions: []request{n}}
	return form{Message: formMessage(&a), RequestedSchema: appendFormSchema(nil, &a, formSpec{target: forACP})}, nil
}

// Present returns what a terminal shows for r (contract section 4). r is
// normalized first; the error is INVALID_REQUEST.
func typedPresent(r request) (presentation, error) {
	n, err := normalize(r)
	if err != nil {
		return presentation{}, err
	}
	return present(&n), nil
}
