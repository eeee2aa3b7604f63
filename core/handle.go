package core

import (
	"strconv"
	"sync/atomic"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// Ops lists the envelope's operations.
const opList = "normalize, schema, present, resolve, elicitation, elicitation_result, form_reply, picker, summary, fail, progress, terminal, sanitize"

// Handle is the one entry point every surface exposes: a JSON envelope in,
// a JSON envelope out (docs/SPEC.md). It never panics: any input,
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
			out = FaultEnvelope(msg)
		}
	}()
	return handle(input)
}

// FaultEnvelope is the ASK_FAILED envelope for a fault outside the rules
// (a recovered panic, a host that broke the ABI), with message sanitized.
// The WebAssembly guest writes it as its last line of defence.
func FaultEnvelope(message string) []byte {
	return errorEnvelope(newError(CodeAskFailed, sanitize(message, false)))
}

// OversizedEnvelope is what Handle returns for an input of n bytes when n
// is over MaxInputBytes. It depends on the length alone, so a host can
// refuse an oversized input before copying it and still answer with the
// core's bytes.
func OversizedEnvelope(n int) []byte { return errorEnvelope(inputTooLarge(n)) }

func inputTooLarge(n int) *harnessError {
	return invalidRequest("the input is " + strconv.Itoa(n) + " bytes; at most " +
		strconv.Itoa(MaxInputBytes) + " are allowed: send the model's arguments as text in arguments, shortened to at most " +
		strconv.Itoa(MaxArgumentsBytes) + " bytes")
}

// argumentsTooLarge is the verdict on an arguments text of n bytes over
// MaxArgumentsBytes.
func argumentsTooLarge(n int) *harnessError {
	return invalidRequest("the arguments are " + strconv.Itoa(n) + " bytes; at most " +
		strconv.Itoa(MaxArgumentsBytes) + " are allowed: shorten the question, the options or their descriptions")
}

// spare is the JSON parser of a finished call, kept for the next: a call
// reads its envelope into the buffers of an earlier one, so a typical call
// allocates only what it returns and the strings it rewrites. In
// WebAssembly, where the garbage collector runs inside the calls (it marks
// only as part of allocations), that is a large part of a call's cost.
// One is enough there (one call at a time); natively, a call that finds
// none, because another is running, makes its own.
var spare atomic.Pointer[jsonx.Parser]

func handle(input []byte) []byte {
	p := spare.Swap(nil)
	if p == nil {
		p = new(jsonx.Parser)
	}
	res, err := dispatch(p, input)
	// The output is a new slice and nothing else of the call outlives it,
	// so the parse's memory can go to the next call. (After a panic the
	// parser is simply not given back.)
	p.Reset()
	spare.Store(p)
	if err != nil {
		return errorEnvelope(err)
	}
	return res
}

func errorEnvelope(e *harnessError) []byte {
	b := make([]byte, 0, 96+len(e.Message))
	b = append(b, `{"ok":false,"error":`...)
	b = appendError(b, e)
	return append(b, '}')
}

func okPrefix(size int) []byte {
	b := make([]byte, 0, size)
	return append(b, `{"ok":true,"result":`...)
}

func dispatch(p *jsonx.Parser, input []byte) ([]byte, *harnessError) {
	if len(input) > MaxInputBytes {
		return nil, inputTooLarge(len(input))
	}
	env, perr := p.Parse(input, MaxDepth)
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
	switch op {
	case "schema":
		return envelopeSchema(&env)
	case "sanitize":
		return envelopeSanitize(&env)
	case "fail":
		f, err := envelopeFailure(&env)
		if err != nil {
			return nil, err
		}
		e := failFor(f)
		b := okPrefix(128 + len(e.Message))
		b = appendError(b, e)
		return append(b, '}'), nil
	case "progress":
		return envelopeProgress(&env)
	case "terminal":
		t, err := envelopeTerminal(&env)
		if err != nil {
			return nil, err
		}
		b := okPrefix(32)
		b = appendTerminalMode(b, terminalModeFor(t))
		return append(b, '}'), nil
	case "normalize", "present", "resolve", "elicitation", "elicitation_result", "form_reply", "picker", "summary":
	default:
		return nil, invalidRequest("unknown op " + snippet(op) + ": use one of " + opList)
	}
	a, err := envelopeAsk(p, &env)
	if err != nil {
		return nil, err
	}
	b := okPrefix(256 + len(input))
	switch op {
	case "normalize":
		b = appendAsk(b, &a)
	case "present":
		i, err := envelopeIndex(&env, &a, false)
		if err != nil {
			return nil, err
		}
		p := presentQuestion(&a, i)
		b = appendPresentation(b, &p)
	case "picker":
		b = appendPicker(b, &a)
	case "elicitation":
		t, err := envelopeFormTarget(&env)
		if err != nil {
			return nil, err
		}
		client, err := envelopeOptString(&env, "client")
		if err != nil {
			return nil, err
		}
		b = appendForm(b, &a, formSpec{target: t, client: client})
	case "resolve":
		if b, err = envelopeResolve(b, &env, &a); err != nil {
			return nil, err
		}
	case "elicitation_result":
		if b, err = envelopeElicitation(b, &a, &env); err != nil {
			return nil, err
		}
	case "form_reply":
		if b, err = envelopeFormReply(b, &a, &env); err != nil {
			return nil, err
		}
	case "summary":
		if b, err = envelopeSummary(b, &a, &env); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// envelopeAsk reads and normalizes the call an op is about: "request" (an
// object) or "arguments" (the model's tool arguments as text, parsed here,
// by the parser that read env, so that every host gives the same verdict
// for the same text).
func envelopeAsk(p *jsonx.Parser, env *jsonx.Value) (call, *harnessError) {
	rv, rn := lookup(env, "request")
	av, an := lookup(env, "arguments")
	hasRequest, hasArgs := rn > 0 && rv.Kind != jsonx.Null, an > 0 && av.Kind != jsonx.Null
	if bv, bn := lookup(env, "argumentsBytes"); bn > 0 && bv.Kind != jsonx.Null {
		// A host that refused to copy an oversized arguments text gets
		// the same verdict as if it had sent the text.
		n, ok := wholeNumber(bv, 15)
		if bn > 1 || hasRequest || hasArgs || !ok || n <= MaxArgumentsBytes {
			return call{}, invalidRequest("argumentsBytes is the length of an arguments text over " + strconv.Itoa(MaxArgumentsBytes) +
				" bytes that the host did not send: give it once, alone, as a whole number over that limit")
		}
		return call{}, argumentsTooLarge(int(n))
	}
	switch {
	case rn > 1:
		return call{}, invalidRequest(`the input has the key "request" ` + strconv.Itoa(rn) + " times: send it once")
	case an > 1:
		return call{}, invalidRequest(`the input has the key "arguments" ` + strconv.Itoa(an) + " times: send it once")
	case hasRequest && hasArgs:
		return call{}, invalidRequest(`the input has both "request" and "arguments": send the request once, as an object in request or as the model's JSON text in arguments`)
	case !hasRequest && !hasArgs:
		return call{}, invalidRequest(`request is required: {"question":"...","options":[...]}`)
	}
	var a call
	var err *harnessError
	if hasArgs {
		a, err = decodeArguments(p, av)
	} else {
		a, err = decodeAsk(rv)
	}
	if err != nil {
		return call{}, err
	}
	// a and its Options are this call's own: normalize them in place.
	if err := normalizeAskInPlace(&a); err != nil {
		return call{}, err
	}
	return a, nil
}

// decodeArguments parses a model's tool arguments (the text, as a JSON
// string in the envelope) and reads the call they hold.
func decodeArguments(p *jsonx.Parser, v *jsonx.Value) (call, *harnessError) {
	if v.Kind != jsonx.String {
		return call{}, invalidRequest("arguments must be a string holding the model's JSON text, got " + v.Kind.Noun())
	}
	if len(v.Str) > MaxArgumentsBytes {
		return call{}, argumentsTooLarge(len(v.Str))
	}
	text := []byte(v.Str)
	if len(trimJSONSpace(text)) == 0 {
		return call{}, invalidRequest(`the arguments are empty: send one JSON object like {"question":"...","options":[{"label":"..."}]}`)
	}
	args, perr := p.Parse(text, MaxDepth)
	if perr != nil {
		return call{}, invalidRequest("the arguments are not valid JSON (" + perr.Error() + " of " + strconv.Itoa(len(text)) +
			`): send exactly one JSON object like {"question":"...","options":[{"label":"..."}]}`)
	}
	if args.Kind != jsonx.Object {
		return call{}, invalidRequest(`the arguments must be a JSON object like {"question":"...","options":[{"label":"..."}]}, got ` + args.Kind.Noun())
	}
	return decodeAsk(&args)
}

// trimJSONSpace trims the white space JSON allows around a value.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// envelopeIndex reads the optional "index" of the question an op is about:
// 0 when absent. For a batch and required, it must be given.
func envelopeIndex(env *jsonx.Value, a *call, required bool) (int, *harnessError) {
	v, n := lookup(env, "index")
	last := strconv.Itoa(len(a.Questions) - 1)
	switch {
	case n > 1:
		return 0, invalidRequest(`the input has the key "index" ` + strconv.Itoa(n) + " times: send it once")
	case n == 0 || v.Kind == jsonx.Null:
		if required && a.Batch {
			return 0, invalidRequest("index is required with input for a batch: the position (0-" + last +
				") of the question the input answers; or send inputs, one per question")
		}
		return 0, nil
	}
	i, ok := smallInt(v)
	if !ok || i >= len(a.Questions) {
		return 0, invalidRequest("index must be a whole number from 0 to " + last + " (the position of the question), got " + describeNumber(v))
	}
	return i, nil
}

// smallInt reads a non-negative integer literal below a million.
func smallInt(v *jsonx.Value) (int, bool) {
	n, ok := wholeNumber(v, 6)
	return int(n), ok
}

// wholeNumber reads a non-negative integer literal of at most digits
// digits, written as JSON writes integers (no sign, fraction, exponent or
// leading zero).
func wholeNumber(v *jsonx.Value, digits int) (int64, bool) {
	if v.Kind != jsonx.Number || len(v.Str) == 0 || len(v.Str) > digits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v.Str); i++ {
		c := v.Str[i]
		if c < '0' || c > '9' || (i == 0 && c == '0' && len(v.Str) > 1) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// describeNumber names a value for a message: the number itself, or its
// kind.
func describeNumber(v *jsonx.Value) string {
	if v.Kind == jsonx.Number && len(v.Str) <= 24 {
		return v.Str
	}
	return v.Kind.Noun()
}

// envelopeString reads a required string field of the envelope.
func envelopeString(env *jsonx.Value, name, what string) (string, *harnessError) {
	v, n := lookup(env, name)
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

// envelopeOptString reads an optional string field of the envelope.
func envelopeOptString(env *jsonx.Value, name string) (string, *harnessError) {
	v, n := lookup(env, name)
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return "", nil
	case n > 1:
		return "", invalidRequest(`the input has the key "` + name + `" ` + strconv.Itoa(n) + " times: send it once")
	case v.Kind != jsonx.String:
		return "", invalidRequest(name + " must be a string, got " + v.Kind.Noun())
	}
	return v.Str, nil
}

// envelopeOptBool reads an optional boolean field of the envelope.
func envelopeOptBool(env *jsonx.Value, name string) (bool, *harnessError) {
	v, n := lookup(env, name)
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return false, nil
	case n > 1:
		return false, invalidRequest(`the input has the key "` + name + `" ` + strconv.Itoa(n) + " times: send it once")
	case v.Kind != jsonx.Bool:
		return false, invalidRequest(name + " must be true or false, got " + v.Kind.Noun())
	}
	return v.Bool, nil
}

// envelopeSanitize is op "sanitize": text made safe to show, as it is
// ("as" absent or "text") or as a one-line title ("as":"title").
func envelopeSanitize(env *jsonx.Value) ([]byte, *harnessError) {
	text, err := envelopeString(env, "text", "the text to show")
	if err != nil {
		return nil, err
	}
	as, err := envelopeOptString(env, "as")
	if err != nil {
		return nil, err
	}
	switch as {
	case "", "text":
		text = sanitizeText(text)
	case "title":
		text = sanitizeTitle(text)
	default:
		return nil, invalidRequest(`as must be "text" or "title", got ` + snippet(as))
	}
	b := okPrefix(32 + len(text))
	b = append(b, `{"text":`...)
	b = jsonx.AppendString(b, text)
	return append(b, "}}"...), nil
}
