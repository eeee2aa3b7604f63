package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// Limits. Lengths count characters (Unicode code points) after
// sanitization and trimming. They are generous: they exist so that a
// runaway model cannot flood a terminal or a form, not to police style.
const (
	// MaxInputBytes bounds a whole envelope. Hosts should refuse larger
	// inputs before copying them into the core; the core refuses them too.
	MaxInputBytes = 256 << 10
	// MaxDepth bounds JSON nesting (arrays and objects) in an envelope.
	MaxDepth = 64

	MaxHeaderChars      = 200
	MaxQuestionChars    = 4000
	MaxOptions          = 64
	MaxLabelChars       = 200
	MaxValueChars       = 1000
	MaxDescriptionChars = 2000
	// MaxAnswerChars bounds a typed line and a free-text form answer.
	MaxAnswerChars = 8000
)

// invalidRequest returns an INVALID_REQUEST error.
func invalidRequest(msg string) *HarnessError { return NewError(CodeInvalidRequest, msg) }

// at locates an object in the request for messages: the request itself
// (atRequest) or options[i]. The path text is built only for an error.
type at int

const atRequest at = -1

func (a at) String() string {
	if a == atRequest {
		return ""
	}
	return index("options", int(a))
}

// field looks key up in obj (at a) and rejects a key given twice.
func field(obj *jsonx.Value, a at, key string) (*jsonx.Value, bool, *HarnessError) {
	v, n := lookup(obj, key)
	if n > 1 {
		where := "the request"
		if a != atRequest {
			where = a.String()
		}
		return v, false, invalidRequest(where + ` has the key "` + key + `" ` + strconv.Itoa(n) + " times: send each field once")
	}
	return v, n == 1 && v.Kind != jsonx.Null, nil
}

// nullValue is what lookup returns for an absent key.
var nullValue = jsonx.Value{}

// lookup is jsonx.Value.Lookup without copying the Value: the last member
// called key (nullValue when absent; never to be modified) and how many
// members have that key.
func lookup(obj *jsonx.Value, key string) (*jsonx.Value, int) {
	found, n := &nullValue, 0
	for i := range obj.Obj {
		if obj.Obj[i].Key == key {
			found = &obj.Obj[i].Val
			n++
		}
	}
	return found, n
}

// optString reads an optional string field; null counts as absent.
func optString(obj *jsonx.Value, a at, key string) (string, *HarnessError) {
	v, ok, err := field(obj, a, key)
	if err != nil || !ok {
		return "", err
	}
	if v.Kind != jsonx.String {
		return "", invalidRequest(join(a.String(), key) + " must be a string, got " + v.Kind.Noun())
	}
	return v.Str, nil
}

// optBool reads an optional boolean field; null counts as absent.
func optBool(obj *jsonx.Value, a at, key string) (bool, *HarnessError) {
	v, ok, err := field(obj, a, key)
	if err != nil || !ok {
		return false, err
	}
	if v.Kind != jsonx.Bool {
		return false, invalidRequest(join(a.String(), key) + " must be true or false, got " + v.Kind.Noun())
	}
	return v.Bool, nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func index(name string, i int) string { return name + "[" + strconv.Itoa(i) + "]" }

// decodeRequest reads a request object into a Request (not yet
// normalized). Unknown fields are ignored; null counts as absent.
func decodeRequest(v *jsonx.Value) (Request, *HarnessError) {
	var r Request
	if v.Kind != jsonx.Object {
		return r, invalidRequest(`request must be an object like {"question":"...","options":[{"label":"..."}]}, got ` + v.Kind.Noun())
	}
	var err *HarnessError
	if r.Header, err = optString(v, atRequest, "header"); err != nil {
		return r, err
	}
	q, ok, err := field(v, atRequest, "question")
	if err != nil {
		return r, err
	}
	if !ok {
		return r, invalidRequest("question is required: the one question to ask the person")
	}
	if q.Kind != jsonx.String {
		return r, invalidRequest("question must be a string, got " + q.Kind.Noun())
	}
	r.Question = q.Str
	if r.AllowCustom, err = optBool(v, atRequest, "allowCustom"); err != nil {
		return r, err
	}
	opts, ok, err := field(v, atRequest, "options")
	if err != nil || !ok {
		return r, err
	}
	if opts.Kind != jsonx.Array {
		return r, invalidRequest(`options must be an array of {"label":"..."} objects, got ` + opts.Kind.Noun())
	}
	if len(opts.Arr) > MaxOptions {
		return r, tooManyOptions(len(opts.Arr))
	}
	r.Options = make([]Option, len(opts.Arr))
	for i := range opts.Arr {
		ov := &opts.Arr[i]
		a := at(i)
		o := &r.Options[i]
		switch ov.Kind {
		case jsonx.String: // shorthand: "Yes" means {"label":"Yes"}
			o.Label = ov.Str
			continue
		case jsonx.Object:
		default:
			return r, invalidRequest(a.String() + ` must be an object like {"label":"..."}, got ` + ov.Kind.Noun())
		}
		l, ok, err := field(ov, a, "label")
		if err != nil {
			return r, err
		}
		if !ok {
			return r, invalidRequest(a.String() + ".label is required: the short text the person sees")
		}
		if l.Kind != jsonx.String {
			return r, invalidRequest(a.String() + ".label must be a string, got " + l.Kind.Noun())
		}
		o.Label = l.Str
		if o.Value, err = optString(ov, a, "value"); err != nil {
			return r, err
		}
		if o.Description, err = optString(ov, a, "description"); err != nil {
			return r, err
		}
		if o.Description == "" {
			if o.Description, err = optString(ov, a, "desc"); err != nil {
				return r, err
			}
		}
		if o.Recommended, err = optBool(ov, a, "recommended"); err != nil {
			return r, err
		}
	}
	return r, nil
}

func tooManyOptions(n int) *HarnessError {
	return invalidRequest("options has " + strconv.Itoa(n) + " entries; at most " + strconv.Itoa(MaxOptions) +
		" are allowed: merge or drop some (the person can still type an answer when allowCustom is true)")
}

// tooLong returns the error for a field over its limit.
func tooLong(name string, n, max int, hint string) *HarnessError {
	return invalidRequest(name + " is " + strconv.Itoa(n) + " characters long; at most " + strconv.Itoa(max) +
		" are allowed: " + hint)
}

// Normalize applies the request rules (contract section 2) to r: strings
// sanitized and trimmed, Value defaulting to Label, AllowCustom forced true
// for optionless questions, limits checked, and duplicate labels or values
// rejected. The error is a *HarnessError with code INVALID_REQUEST whose
// message tells the model what to change. r is not modified.
func Normalize(r Request) (Request, error) {
	n, err := normalize(r)
	if err != nil {
		return Request{}, err
	}
	return n, nil
}

func normalize(r Request) (Request, *HarnessError) {
	n := r
	n.Options = make([]Option, len(r.Options))
	copy(n.Options, r.Options)
	if err := normalizeInPlace(&n); err != nil {
		return Request{}, err
	}
	return n, nil
}

// normalizeInPlace is normalize on a request the caller owns (its Options
// included): no copy. On error r is left half-normalized.
func normalizeInPlace(n *Request) *HarnessError {
	n.Header = sanitize(n.Header, false)
	n.Question = sanitize(n.Question, true)
	n.AllowCustom = n.AllowCustom || len(n.Options) == 0
	if c := chars(n.Header); c > MaxHeaderChars {
		return tooLong("header", c, MaxHeaderChars, "a header is a short label such as \"Database\"; put the rest in question")
	}
	if n.Question == "" {
		return invalidRequest("question is empty: write the question the person should answer")
	}
	if c := chars(n.Question); c > MaxQuestionChars {
		return tooLong("question", c, MaxQuestionChars, "ask one concise question")
	}
	if len(n.Options) > MaxOptions {
		return tooManyOptions(len(n.Options))
	}
	// The comparison keys, labels then values, back to back in one buffer:
	// key i is kb[ends[i-1]:ends[i]] (ends[-1] being 0).
	k := len(n.Options)
	var kbuf [1024]byte
	var ends [2 * MaxOptions]int
	kb := kbuf[:0]
	for i := range n.Options {
		o := &n.Options[i]
		o.Label = sanitize(o.Label, false)
		o.Value = sanitize(o.Value, false)
		o.Description = sanitize(o.Description, true)
		if o.Label == "" {
			return invalidRequest(index("options", i) + ".label is empty: give every option a short label the person can see")
		}
		if c := chars(o.Label); c > MaxLabelChars {
			return tooLong(index("options", i)+".label", c, MaxLabelChars, "keep labels short and put details in description")
		}
		if o.Value == "" {
			o.Value = o.Label
		}
		if c := chars(o.Value); c > MaxValueChars {
			return tooLong(index("options", i)+".value", c, MaxValueChars, "shorten it, or omit value to use the label")
		}
		if c := chars(o.Description); c > MaxDescriptionChars {
			return tooLong(index("options", i)+".description", c, MaxDescriptionChars, "shorten it")
		}
		kb = appendKey(kb, o.Label)
		ends[i] = len(kb)
	}
	for i := range n.Options {
		kb = appendKey(kb, n.Options[i].Value)
		ends[k+i] = len(kb)
	}
	keyAt := func(i int) []byte {
		if i == 0 {
			return kb[:ends[0]]
		}
		return kb[ends[i-1]:ends[i]]
	}
	for i := 0; i < k; i++ {
		for j := 0; j < i; j++ {
			if string(keyAt(i)) == string(keyAt(j)) {
				return invalidRequest(index("options", j) + " and " + index("options", i) + " have the same label " +
					snippet(n.Options[i].Label) + " (labels are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct label")
			}
			if string(keyAt(k+i)) == string(keyAt(k+j)) {
				return invalidRequest(index("options", j) + " and " + index("options", i) + " have the same value " +
					snippet(n.Options[i].Value) + " (values are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct value, or omit value to use the label")
			}
		}
	}
	return nil
}

// defaultIndex returns the index of the first recommended option, or -1.
func (r *Request) defaultIndex() int {
	for i, o := range r.Options {
		if o.Recommended {
			return i
		}
	}
	return -1
}

// displayOrder returns option indices recommended first, stable.
func (r *Request) displayOrder() []int {
	return r.appendDisplayOrder(make([]int, 0, len(r.Options)))
}

// appendDisplayOrder appends displayOrder to order (a buffer the caller
// may keep on its stack).
func (r *Request) appendDisplayOrder(order []int) []int {
	for i, o := range r.Options {
		if o.Recommended {
			order = append(order, i)
		}
	}
	for i, o := range r.Options {
		if !o.Recommended {
			order = append(order, i)
		}
	}
	return order
}

// appendRequest writes a normalized request.
func appendRequest(b []byte, r *Request) []byte {
	b = append(b, '{')
	if r.Header != "" {
		b = append(b, `"header":`...)
		b = jsonx.AppendString(b, r.Header)
		b = append(b, ',')
	}
	b = append(b, `"question":`...)
	b = jsonx.AppendString(b, r.Question)
	b = append(b, `,"options":[`...)
	for i, o := range r.Options {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"label":`...)
		b = jsonx.AppendString(b, o.Label)
		b = append(b, `,"value":`...)
		b = jsonx.AppendString(b, o.Value)
		if o.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, o.Description)
		}
		if o.Recommended {
			b = append(b, `,"recommended":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"allowCustom":`...)
	b = jsonx.AppendBool(b, r.AllowCustom)
	return append(b, '}')
}

// JSON returns the request as the core writes it (key order fixed, the
// same bytes as op "normalize" returns for a normalized request).
func (r Request) JSON() []byte { return appendRequest(nil, &r) }

// appendAnswer writes an answer.
func appendAnswer(b []byte, a *Answer) []byte {
	b = append(b, `{"answer":`...)
	b = jsonx.AppendString(b, a.Answer)
	if s := a.Selected; s != nil {
		b = append(b, `,"selected":{"index":`...)
		b = jsonx.AppendInt(b, s.Index)
		b = append(b, `,"label":`...)
		b = jsonx.AppendString(b, s.Label)
		b = append(b, `,"value":`...)
		b = jsonx.AppendString(b, s.Value)
		b = append(b, '}')
	}
	return append(b, '}')
}

// JSON returns the answer as the model receives it.
func (a Answer) JSON() []byte { return appendAnswer(nil, &a) }

// JSON returns the error as {"name","code","message"}.
func (e *HarnessError) JSON() []byte { return appendError(nil, e) }

func appendError(b []byte, e *HarnessError) []byte {
	name := e.Name
	if name == "" {
		name = ErrorName
	}
	b = append(b, `{"name":`...)
	b = jsonx.AppendString(b, name)
	b = append(b, `,"code":`...)
	b = jsonx.AppendString(b, string(e.Code))
	b = append(b, `,"message":`...)
	b = jsonx.AppendString(b, e.Message)
	return append(b, '}')
}
