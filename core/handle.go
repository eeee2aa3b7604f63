package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// Ops lists the envelope's operations.
const opList = "normalize, schema, present, resolve, elicitation, elicitation_result, sanitize"

// Handle is the one entry point every surface exposes: a JSON envelope in,
// a JSON envelope out (contract section 1). It never panics: any input,
// however malformed, gives an {"ok":false,...} envelope. For the same input
// it returns the same bytes.
func Handle(input []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			msg := "the core failed on this input (a bug in askcore)"
			if e, ok := p.(error); ok {
				msg += ": " + e.Error()
			} else if s, ok := p.(string); ok {
				msg += ": " + s
			}
			out = errorEnvelope(NewError(CodeAskFailed, sanitize(msg, false)))
		}
	}()
	return handle(input)
}

func handle(input []byte) []byte {
	res, err := dispatch(input)
	if err != nil {
		return errorEnvelope(err)
	}
	return res
}

func errorEnvelope(e *HarnessError) []byte {
	b := make([]byte, 0, 96+len(e.Message))
	b = append(b, `{"ok":false,"error":`...)
	b = appendError(b, e)
	return append(b, '}')
}

func okPrefix(size int) []byte {
	b := make([]byte, 0, size)
	return append(b, `{"ok":true,"result":`...)
}

func dispatch(input []byte) ([]byte, *HarnessError) {
	if len(input) > MaxInputBytes {
		return nil, invalidRequest("the input is " + strconv.Itoa(len(input)) + " bytes; at most " +
			strconv.Itoa(MaxInputBytes) + " are allowed: shorten the question, the options or their descriptions")
	}
	env, perr := jsonx.Parse(input, MaxDepth)
	if perr != nil {
		return nil, invalidRequest("the input is not valid JSON: " + perr.Error())
	}
	if env.Kind != jsonx.Object {
		return nil, invalidRequest(`the input must be a JSON object like {"op":"normalize","request":{...}}, got ` + env.Kind.Noun())
	}
	opv, n := env.Lookup("op")
	switch {
	case n == 0 || opv.Kind == jsonx.Null:
		return nil, invalidRequest("op is required: one of " + opList)
	case n > 1:
		return nil, invalidRequest(`the input has the key "op" ` + strconv.Itoa(n) + " times: send it once")
	case opv.Kind != jsonx.String:
		return nil, invalidRequest("op must be a string, got " + opv.Kind.Noun() + ": one of " + opList)
	}
	op := opv.Str
	if op == "schema" {
		b := okPrefix(2048)
		b = Schema().appendJSON(b)
		return append(b, '}'), nil
	}
	if op == "sanitize" {
		text, err := envelopeString(env, "text", "the text to show")
		if err != nil {
			return nil, err
		}
		b := okPrefix(32 + len(text))
		b = append(b, `{"text":`...)
		b = jsonx.AppendString(b, SanitizeText(text))
		return append(b, "}}"...), nil
	}
	switch op {
	case "normalize", "present", "resolve", "elicitation", "elicitation_result":
	default:
		return nil, invalidRequest("unknown op " + snippet(op) + ": use one of " + opList)
	}
	r, err := envelopeRequest(&env)
	if err != nil {
		return nil, err
	}
	b := okPrefix(256 + len(input))
	switch op {
	case "normalize":
		b = appendRequest(b, &r)
	case "present":
		p := present(&r)
		b = appendPresentation(b, &p)
	case "elicitation":
		b = appendForm(b, &r)
	case "resolve":
		line, err := envelopeString(env, "input", "the line the person typed")
		if err != nil {
			return nil, err
		}
		a, err := resolve(&r, line)
		if err != nil {
			return nil, err
		}
		b = appendAnswer(b, &a)
	case "elicitation_result":
		a, err := envelopeElicitation(&r, env)
		if err != nil {
			return nil, err
		}
		b = appendAnswer(b, &a)
	}
	return append(b, '}'), nil
}

// envelopeRequest reads and normalizes the envelope's request.
func envelopeRequest(env *jsonx.Value) (Request, *HarnessError) {
	v, n := lookup(env, "request")
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return Request{}, invalidRequest(`request is required: {"question":"...","options":[...]}`)
	case n > 1:
		return Request{}, invalidRequest(`the input has the key "request" ` + strconv.Itoa(n) + " times: send it once")
	}
	r, err := decodeRequest(v)
	if err != nil {
		return Request{}, err
	}
	// r and its Options are this call's own: normalize them in place.
	if err := normalizeInPlace(&r); err != nil {
		return Request{}, err
	}
	return r, nil
}

// envelopeString reads a required string field of the envelope.
func envelopeString(env jsonx.Value, name, what string) (string, *HarnessError) {
	v, n := env.Lookup(name)
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return "", invalidRequest(name + " is required: " + what)
	case n > 1:
		return "", invalidRequest(`the input has the key "` + name + `" ` + strconv.Itoa(n) + " times: send it once")
	case v.Kind != jsonx.String:
		return "", invalidRequest(name + " must be a string (" + what + "), got " + v.Kind.Noun())
	}
	return v.Str, nil
}

// envelopeElicitation reads the envelope's response and resolves it.
func envelopeElicitation(r *Request, env jsonx.Value) (Answer, *HarnessError) {
	resp, n := env.Lookup("response")
	switch {
	case n == 0 || resp.Kind == jsonx.Null:
		return Answer{}, invalidRequest(`response is required: the client's {"action":...,"content":{...}}`)
	case n > 1:
		return Answer{}, invalidRequest(`the input has the key "response" ` + strconv.Itoa(n) + " times: send it once")
	case resp.Kind != jsonx.Object:
		return Answer{}, invalidRequest(`response must be an object like {"action":"accept","content":{...}}, got ` + resp.Kind.Noun())
	}
	act, n := resp.Lookup("action")
	switch {
	case n == 0 || act.Kind == jsonx.Null:
		return Answer{}, NewError(CodeAskFailed, `The client answered the form without an action (expected "accept", "decline" or "cancel").`)
	case n > 1:
		return Answer{}, NewError(CodeAskFailed, `The client answered the form with "action" given `+strconv.Itoa(n)+" times.")
	case act.Kind != jsonx.String:
		return Answer{}, NewError(CodeAskFailed, "The client answered the form with an action that is "+act.Kind.Noun()+`, not a string (expected "accept", "decline" or "cancel").`)
	}
	c, n := resp.Lookup("content")
	get := jsonContent(c)
	switch {
	case n > 1:
		get = func(string) (string, bool, *HarnessError) {
			return "", false, invalidAnswer(`The form's response has "content" more than once.`)
		}
	case n == 1 && c.Kind != jsonx.Object && c.Kind != jsonx.Null:
		noun := c.Kind.Noun()
		get = func(string) (string, bool, *HarnessError) {
			return "", false, invalidAnswer("The form's content must be an object, got " + noun + ".")
		}
	}
	return elicitationResult(r, act.Str, get)
}
