package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// Limits. Lengths count characters (Unicode code points) after
// sanitization and trimming. They are generous: they exist so that a
// runaway model cannot flood a terminal or a form, not to police style.
const (
	// MaxArgumentsBytes bounds the model's tool arguments: the text as the
	// model wrote it (envelope field "arguments", counted once decoded), so
	// the verdict never depends on how a host escaped its envelope. A host
	// that holds a longer text sends only its length ("argumentsBytes").
	MaxArgumentsBytes = 256 << 10
	// MaxInputBytes bounds a whole envelope, far above what any call
	// within the other limits needs, escaped in any way (every character
	// of the arguments may take six bytes as \u003c). Hosts should refuse
	// larger inputs before copying them into the core; the core refuses
	// them too.
	MaxInputBytes = 4 << 20
	// MaxDepth bounds JSON nesting (arrays and objects) in an envelope.
	MaxDepth = 64

	MaxHeaderChars      = 200
	MaxQuestionChars    = 4000
	MaxOptions          = 64
	MaxLabelChars       = 200
	MaxValueChars       = 1000
	MaxDescriptionChars = 2000
	// MaxPreviewChars bounds an option's preview: room for a screenful of
	// code or a mockup, not a file.
	MaxPreviewChars = 8000
	// MaxNotesChars bounds the notes a person adds to an answer.
	MaxNotesChars = 2000
	// MaxAnswerChars bounds a typed line and a free-text form answer.
	MaxAnswerChars = 8000
)

// MaxQuestions bounds the questions of one batch ({"questions":[...]}).
const MaxQuestions = 10

// invalidRequest returns an INVALID_REQUEST error.
func invalidRequest(msg string) *harnessError { return newError(CodeInvalidRequest, msg) }

// at locates an object in the request for messages: the request itself,
// questions[q] of a batch, options[o], or questions[q].options[o] (q or o
// is -1 when it does not apply). The path text is built only for an error.
type at struct{ q, o int }

// atRequest is the top level of the request.
var atRequest = at{-1, -1}

func (a at) String() string {
	s := ""
	if a.q >= 0 {
		s = index("questions", a.q)
	}
	if a.o >= 0 {
		s = join(s, index("options", a.o))
	}
	return s
}

// option returns the location of option o of the question at a.
func (a at) option(o int) at { return at{a.q, o} }

// path names a field of the object at a: "question", "options[2].label",
// "questions[1].header".
func (a at) path(key string) string { return join(a.String(), key) }

// field looks key up in obj (at a) and rejects a key given twice.
func field(obj *jsonx.Value, a at, key string) (*jsonx.Value, bool, *harnessError) {
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
func optString(obj *jsonx.Value, a at, key string) (string, *harnessError) {
	v, ok, err := field(obj, a, key)
	if err != nil || !ok {
		return "", err
	}
	if v.Kind != jsonx.String {
		return "", invalidRequest(a.path(key) + " must be a string, got " + v.Kind.Noun())
	}
	return v.Str, nil
}

// optBool reads an optional boolean field; null counts as absent.
func optBool(obj *jsonx.Value, a at, key string) (bool, *harnessError) {
	v, ok, err := field(obj, a, key)
	if err != nil || !ok {
		return false, err
	}
	if v.Kind != jsonx.Bool {
		return false, invalidRequest(a.path(key) + " must be true or false, got " + v.Kind.Noun())
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

// questionFields are the fields of one question, which a batch carries in
// its questions and not at the top level.
var questionFields = [...]string{"header", "question", "options", "allowCustom", "multiSelect"}

// decodeAsk reads a request object: one question, or a batch
// {"questions":[...]} (not yet normalized). Unknown fields are ignored;
// null counts as absent.
func decodeAsk(v *jsonx.Value) (call, *harnessError) {
	if v.Kind != jsonx.Object {
		return call{}, invalidRequest(`request must be an object like {"question":"...","options":[{"label":"..."}]}, got ` + v.Kind.Noun())
	}
	qs, ok, err := field(v, atRequest, "questions")
	if err != nil {
		return call{}, err
	}
	if !ok {
		r, err := decodeQuestion(v, atRequest)
		if err != nil {
			return call{}, err
		}
		return call{Questions: []request{r}}, nil
	}
	if qs.Kind != jsonx.Array {
		return call{}, invalidRequest(`questions must be an array of questions like [{"question":"...","options":[...]}], got ` + qs.Kind.Noun())
	}
	var mixed []string
	for _, k := range questionFields {
		if _, present, _ := field(v, atRequest, k); present {
			mixed = append(mixed, k)
		}
	}
	if len(mixed) > 0 {
		return call{}, invalidRequest("the request has both questions and " + listWords(mixed) +
			": send one question with question, or several with questions and every question's fields inside its entry of questions")
	}
	switch n := len(qs.Arr); {
	case n == 0:
		return call{}, invalidRequest(`questions is empty: give at least one question like {"question":"..."}, or send one question with question`)
	case n > MaxQuestions:
		return call{}, invalidRequest("questions has " + strconv.Itoa(n) + " entries; at most " + strconv.Itoa(MaxQuestions) +
			" are allowed: ask the ones that matter now and the rest in a later call")
	}
	ask := call{Questions: make([]request, len(qs.Arr)), Batch: true}
	for i := range qs.Arr {
		qv := &qs.Arr[i]
		a := at{i, -1}
		if qv.Kind != jsonx.Object {
			return call{}, invalidRequest(a.String() + ` must be an object like {"question":"...","options":[...]}, got ` + qv.Kind.Noun())
		}
		if ask.Questions[i], err = decodeQuestion(qv, a); err != nil {
			return call{}, err
		}
	}
	return ask, nil
}

// listWords joins names as "a", "a and b", "a, b and c".
func listWords(names []string) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " and "
		default:
			s += ", "
		}
		s += n
	}
	return s
}

// decodeQuestion reads the question object v, found at a.
func decodeQuestion(v *jsonx.Value, a at) (request, *harnessError) {
	var r request
	var err *harnessError
	if r.Header, err = optString(v, a, "header"); err != nil {
		return r, err
	}
	q, ok, err := field(v, a, "question")
	if err != nil {
		return r, err
	}
	if !ok {
		return r, invalidRequest(a.path("question") + " is required: the one question to ask the person")
	}
	if q.Kind != jsonx.String {
		return r, invalidRequest(a.path("question") + " must be a string, got " + q.Kind.Noun())
	}
	r.Question = q.Str
	if r.AllowCustom, err = optBool(v, a, "allowCustom"); err != nil {
		return r, err
	}
	if r.MultiSelect, err = optBool(v, a, "multiSelect"); err != nil {
		return r, err
	}
	opts, ok, err := field(v, a, "options")
	if err != nil || !ok {
		return r, err
	}
	if opts.Kind != jsonx.Array {
		return r, invalidRequest(a.path("options") + ` must be an array of {"label":"..."} objects, got ` + opts.Kind.Noun())
	}
	if len(opts.Arr) > MaxOptions {
		return r, tooManyOptions(a, len(opts.Arr))
	}
	r.Options = make([]option, len(opts.Arr))
	for i := range opts.Arr {
		ov := &opts.Arr[i]
		oa := a.option(i)
		o := &r.Options[i]
		switch ov.Kind {
		case jsonx.String: // shorthand: "Yes" means {"label":"Yes"}
			o.Label = ov.Str
			continue
		case jsonx.Object:
		default:
			return r, invalidRequest(oa.String() + ` must be an object like {"label":"..."}, got ` + ov.Kind.Noun())
		}
		l, ok, err := field(ov, oa, "label")
		if err != nil {
			return r, err
		}
		if !ok {
			return r, invalidRequest(oa.path("label") + " is required: the short text the person sees")
		}
		if l.Kind != jsonx.String {
			return r, invalidRequest(oa.path("label") + " must be a string, got " + l.Kind.Noun())
		}
		o.Label = l.Str
		if o.Value, err = optString(ov, oa, "value"); err != nil {
			return r, err
		}
		if o.Description, err = optString(ov, oa, "description"); err != nil {
			return r, err
		}
		if o.Description == "" {
			if o.Description, err = optString(ov, oa, "desc"); err != nil {
				return r, err
			}
		}
		if o.Preview, err = optString(ov, oa, "preview"); err != nil {
			return r, err
		}
		if o.Recommended, err = optBool(ov, oa, "recommended"); err != nil {
			return r, err
		}
	}
	return r, nil
}

func tooManyOptions(a at, n int) *harnessError {
	return invalidRequest(a.path("options") + " has " + strconv.Itoa(n) + " entries; at most " + strconv.Itoa(MaxOptions) +
		" are allowed: merge or drop some (the person can still type an answer when allowCustom is true)")
}

// tooLong returns the error for a field over its limit.
func tooLong(name string, n, max int, hint string) *harnessError {
	return invalidRequest(name + " is " + strconv.Itoa(n) + " characters long; at most " + strconv.Itoa(max) +
		" are allowed: " + hint)
}

func normalize(r request) (request, *harnessError) {
	n := r
	n.Options = make([]option, len(r.Options))
	copy(n.Options, r.Options)
	if err := normalizeInPlace(&n, atRequest); err != nil {
		return request{}, err
	}
	return n, nil
}

// normalizeAskInPlace normalizes a call the caller owns.
func normalizeAskInPlace(a *call) *harnessError {
	switch n := len(a.Questions); {
	case !a.Batch && n != 1:
		return invalidRequest("a single-question request has exactly one question; send several with questions")
	case n == 0:
		return invalidRequest(`questions is empty: give at least one question like {"question":"..."}, or send one question with question`)
	case n > MaxQuestions:
		return invalidRequest("questions has " + strconv.Itoa(n) + " entries; at most " + strconv.Itoa(MaxQuestions) +
			" are allowed: ask the ones that matter now and the rest in a later call")
	}
	if !a.Batch {
		return normalizeInPlace(&a.Questions[0], atRequest)
	}
	for i := range a.Questions {
		if err := normalizeInPlace(&a.Questions[i], at{i, -1}); err != nil {
			return err
		}
	}
	keys := make([]string, len(a.Questions))
	for i := range a.Questions {
		keys[i] = key(a.Questions[i].Question)
		for j := 0; j < i; j++ {
			if keys[i] == keys[j] {
				return invalidRequest(index("questions", j) + " and " + index("questions", i) + " ask the same question " +
					snippet(a.Questions[i].Question) + " (compared ignoring case, spaces and invisible characters): ask each question once")
			}
		}
	}
	return nil
}

// normalizeInPlace is normalize on a question the caller owns (its Options
// included), found at a: no copy. On error r is left half-normalized.
func normalizeInPlace(n *request, a at) *harnessError {
	n.Header = sanitize(n.Header, false)
	n.Question = sanitize(n.Question, true)
	n.AllowCustom = n.AllowCustom || len(n.Options) == 0
	if c := chars(n.Header); c > MaxHeaderChars {
		return tooLong(a.path("header"), c, MaxHeaderChars, "a header is a short label such as \"Database\"; put the rest in question")
	}
	if n.Question == "" {
		return invalidRequest(a.path("question") + " is empty: write the question the person should answer")
	}
	if c := chars(n.Question); c > MaxQuestionChars {
		return tooLong(a.path("question"), c, MaxQuestionChars, "ask one concise question")
	}
	if len(n.Options) > MaxOptions {
		return tooManyOptions(a, len(n.Options))
	}
	if n.MultiSelect && len(n.Options) == 0 {
		return invalidRequest(a.path("multiSelect") + " needs options: list the options the person may pick from, or drop multiSelect for an open question")
	}
	// The comparison keys, labels then values, back to back in one buffer:
	// key i is kb[ends[i-1]:ends[i]] (ends[-1] being 0).
	k := len(n.Options)
	var kbuf [1024]byte
	var ends [2 * MaxOptions]int
	kb := kbuf[:0]
	for i := range n.Options {
		o := &n.Options[i]
		oa := a.option(i)
		o.Label = sanitize(o.Label, false)
		o.Value = sanitize(o.Value, false)
		o.Description = sanitize(o.Description, true)
		if o.Label == "" {
			return invalidRequest(oa.path("label") + " is empty: give every option a short label the person can see")
		}
		if c := chars(o.Label); c > MaxLabelChars {
			return tooLong(oa.path("label"), c, MaxLabelChars, "keep labels short and put details in description")
		}
		if o.Value == "" {
			o.Value = o.Label
		}
		if c := chars(o.Value); c > MaxValueChars {
			return tooLong(oa.path("value"), c, MaxValueChars, "shorten it, or omit value to use the label")
		}
		if c := chars(o.Description); c > MaxDescriptionChars {
			return tooLong(oa.path("description"), c, MaxDescriptionChars, "shorten it")
		}
		o.Preview = sanitizePreview(o.Preview)
		if c := chars(o.Preview); c > MaxPreviewChars {
			return tooLong(oa.path("preview"), c, MaxPreviewChars, "show only the part the person needs to compare (a preview is a glimpse, not a file)")
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
				return invalidRequest(a.option(j).String() + " and " + a.option(i).String() + " have the same label " +
					snippet(n.Options[i].Label) + " (labels are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct label")
			}
			if string(keyAt(k+i)) == string(keyAt(k+j)) {
				return invalidRequest(a.option(j).String() + " and " + a.option(i).String() + " have the same value " +
					snippet(n.Options[i].Value) + " (values are compared ignoring case, surrounding spaces and invisible characters): give every option a distinct value, or omit value to use the label")
			}
		}
	}
	return nil
}

// defaultIndex returns the index of the first recommended option, or -1.
func (r *request) defaultIndex() int {
	for i, o := range r.Options {
		if o.Recommended {
			return i
		}
	}
	return -1
}

// displayOrder returns option indices recommended first, stable.
func (r *request) displayOrder() []int {
	return r.appendDisplayOrder(make([]int, 0, len(r.Options)))
}

// appendDisplayOrder appends displayOrder to order (a buffer the caller
// may keep on its stack).
func (r *request) appendDisplayOrder(order []int) []int {
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

// appendRequest writes a normalized question.
func appendRequest(b []byte, r *request) []byte {
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
		if o.Preview != "" {
			b = append(b, `,"preview":`...)
			b = jsonx.AppendString(b, o.Preview)
		}
		if o.Recommended {
			b = append(b, `,"recommended":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"allowCustom":`...)
	b = jsonx.AppendBool(b, r.AllowCustom)
	if r.MultiSelect {
		b = append(b, `,"multiSelect":true`...)
	}
	return append(b, '}')
}

// appendAsk writes a normalized call: the question itself, or
// {"questions":[...]} for a batch.
func appendAsk(b []byte, a *call) []byte {
	if !a.Batch {
		return appendRequest(b, &a.Questions[0])
	}
	b = append(b, `{"questions":[`...)
	for i := range a.Questions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRequest(b, &a.Questions[i])
	}
	return append(b, "]}"...)
}

// JSON returns the request as the core writes it (key order fixed, the
// same bytes as op "normalize" returns for a normalized request).
func (r request) JSON() []byte { return appendRequest(nil, &r) }

// JSON returns the call as op "normalize" writes it once normalized.
func (a call) JSON() []byte { return appendAsk(nil, &a) }

// appendAnswer writes the answer to one question.
func appendAnswer(b []byte, a *answer) []byte {
	b = append(b, '{')
	return appendAnswerFields(b, a)
}

// appendAnswerFields writes an answer's fields and its closing brace
// (after an opening brace, or after a batch entry's "question").
func appendAnswerFields(b []byte, a *answer) []byte {
	if a.Multi {
		b = append(b, `"answers":[`...)
		for i, s := range a.Answers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, s)
		}
		b = append(b, `],"selected":[`...)
		for i := range a.Choices {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendSelected(b, &a.Choices[i])
		}
		b = append(b, ']')
		return appendNotes(b, a)
	}
	b = append(b, `"answer":`...)
	b = jsonx.AppendString(b, a.Answer)
	if s := a.Selected; s != nil {
		b = append(b, `,"selected":`...)
		b = appendSelected(b, s)
	}
	return appendNotes(b, a)
}

// appendNotes writes the notes, when given, and the closing brace.
func appendNotes(b []byte, a *answer) []byte {
	if a.Notes != "" {
		b = append(b, `,"notes":`...)
		b = jsonx.AppendString(b, a.Notes)
	}
	return append(b, '}')
}

func appendSelected(b []byte, s *selected) []byte {
	b = append(b, `{"index":`...)
	b = jsonx.AppendInt(b, s.Index)
	b = append(b, `,"label":`...)
	b = jsonx.AppendString(b, s.Label)
	b = append(b, `,"value":`...)
	b = jsonx.AppendString(b, s.Value)
	return append(b, '}')
}

// appendBatchAnswer writes {"answers":[{"question":...,<answer>}...]}.
func appendBatchAnswer(b []byte, a *batchAnswer) []byte {
	b = append(b, `{"answers":[`...)
	for i := range a.Answers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"question":`...)
		b = jsonx.AppendString(b, a.Questions[i])
		b = append(b, ',')
		b = appendAnswerFields(b, &a.Answers[i])
	}
	return append(b, "]}"...)
}

// JSON returns the answer as the model receives it.
func (a answer) JSON() []byte { return appendAnswer(nil, &a) }

// JSON returns the batch answer as the model receives it.
func (a batchAnswer) JSON() []byte { return appendBatchAnswer(nil, &a) }

// JSON returns the error as {"name","code","message"}: Raw when set, else
// written by the core's writer.
func (e *harnessError) JSON() []byte {
	if e.Raw != nil {
		return e.Raw
	}
	return appendError(nil, e)
}

func appendError(b []byte, e *harnessError) []byte {
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
