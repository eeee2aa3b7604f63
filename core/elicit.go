package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// formTarget says which protocol a form is for. One mapping serves both;
// they differ in one place: MCP's requestedSchema has no title (its
// TypeScript SDK drops it), so for MCP a single question's header is the
// title of its field instead of the form's.
type formTarget string

// The form targets (op "elicitation", field "for").
const (
	forACP formTarget = "acp"
	forMCP formTarget = "mcp"
)

// formSpec says for whom a form is written: the protocol, the client (its
// clientInfo name: some clients block submission on an empty optional
// field) and, for a form sent again, the core's message that leads it.
type formSpec struct {
	target formTarget
	client string
	lead   string
}

// appendForm writes the form of a normalized call as fs says.
func appendForm(b []byte, a *call, fs formSpec) []byte {
	b = append(b, `{"message":`...)
	var msg string
	if rows, ok := claudeLayout(a, fs); ok {
		msg = rows.message
	} else {
		msg = formMessage(a)
		if fs.lead != "" {
			msg = fs.lead + "\n\n" + msg
		}
	}
	b = jsonx.AppendString(b, msg)
	b = append(b, `,"requestedSchema":`...)
	b = appendFormSchema(b, a, fs)
	return append(b, '}')
}

// Clients show a form's message in a box a few lines high (Claude Code: 3
// lines, then "… (+N more lines)"). A question longer than
// formShortChars characters or formShortLines lines leads with its ask:
// the sentence that ends with its last question mark (or its last
// sentence), cut to formAskChars, then the whole question.
const (
	formShortChars = 200
	formShortLines = 3
	formAskChars   = 200
)

// formMessage is the form's message: the question (a long one led by its
// ask), or for a batch a line that says how many questions the form holds
// (each field carries its own), then the options' previews, if any.
// Clients render the message as Markdown (or as plain text, which a
// preview reads as too), and it is the one place both ACP and MCP clients
// show in full: option descriptions inside oneOf are dropped by some, and
// multi-select items carry none.
func formMessage(a *call) string {
	var msg string
	switch {
	case !a.Batch:
		msg = a.Questions[0].Question
		if ask := askOf(msg); ask != "" {
			msg = ask + "\n\n" + msg
		}
	case len(a.Questions) == 1:
		msg = "Please answer the question below."
	default:
		msg = "Please answer the " + strconv.Itoa(len(a.Questions)) + " questions below."
	}
	return msg + formPreviews(a)
}

// askOf returns the actual ask of a long question, to lead its form's
// message: the sentence ending at its last question mark (its last
// sentence when it has none), cut to formAskChars. It returns "" for a
// question short enough to show whole, or one that starts with its ask.
func askOf(q string) string {
	if len([]rune(q)) <= formShortChars && strings.Count(q, "\n") < formShortLines {
		return ""
	}
	end := strings.LastIndexByte(q, '?')
	if end < 0 {
		end = len(q) - 1
	}
	start := 0
	for i := end - 1; i > 0; i-- {
		if c := q[i]; c == '\n' || c == ' ' && strings.IndexByte(".!?:", q[i-1]) >= 0 {
			start = i + 1
			break
		}
	}
	if start == 0 {
		return ""
	}
	return cut(sanitize(q[start:end+1], false), formAskChars)
}

// formPreviews lists the previews of a call's options in display order,
// each under a bold line naming its option (and, in a batch, its
// question): "\n\n**Preview: Grid**\n\n<preview>".
func formPreviews(a *call) string {
	var b []byte
	for i := range a.Questions {
		r := &a.Questions[i]
		var ob [MaxOptions]int
		for _, oi := range r.appendDisplayOrder(ob[:0]) {
			o := &r.Options[oi]
			if o.Preview == "" {
				continue
			}
			b = append(b, "\n\n**Preview: "...)
			if a.Batch {
				b = append(b, questionPosition(i, len(a.Questions))...)
				b = append(b, ", "...)
			}
			b = append(b, o.Label...)
			b = append(b, "**\n\n"...)
			b = append(b, o.Preview...)
		}
	}
	return string(b)
}

// JSON returns the form as op "elicitation" writes it.
func (f form) JSON() []byte {
	b := []byte(`{"message":`)
	b = jsonx.AppendString(b, f.Message)
	b = append(b, `,"requestedSchema":`...)
	if len(f.RequestedSchema) == 0 {
		b = append(b, "null"...)
	}
	b = append(b, f.RequestedSchema...)
	return append(b, '}')
}

// Titles and descriptions of the form fields.
const (
	titleChoice     = "Choose an option"
	titleChoices    = "Choose one or more options"
	titleAnswer     = "Your answer"
	titleCustom     = "Or type your own answer"
	descCustom      = "When not empty, this is the answer instead of the chosen option."
	descCustomMulti = "When not empty, this is one more answer beside the chosen options."
	titleNotes      = "Notes (optional)"
	descNotes       = "Anything you want to add to your answer."
)

// fieldName is the form field called base for question i: base itself for
// a single question, base_<i+1> in a batch.
func fieldName(a *call, base string, i int) string {
	if !a.Batch {
		return base
	}
	return base + "_" + strconv.Itoa(i+1)
}

// appendFormSchema writes the requestedSchema of a normalized call: one
// object with the fields of every question, in question order.
func appendFormSchema(b []byte, a *call, fs formSpec) []byte {
	b = append(b, `{"type":"object"`...)
	if !a.Batch && a.Questions[0].Header != "" && fs.target != forMCP {
		b = append(b, `,"title":`...)
		b = jsonx.AppendString(b, a.Questions[0].Header)
	}
	b = append(b, `,"properties":{`...)
	var required []string
	for i := range a.Questions {
		if i > 0 {
			b = append(b, ',')
		}
		b, required = appendQuestionFields(b, a, i, fs, required)
	}
	b = append(b, `},"required":[`...)
	for i, name := range required {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, name)
	}
	return append(b, "]}"...)
}

// appendFieldHead writes `"name":{"type":T,"title":...[,"description":...]`
// for question i: the single-question titles (for MCP, its header
// when it has one); in a batch the header (or the question) as title and
// the question as description. A client that cuts titles short (width
// under MaxOptionTitleChars: Claude Code) gets a question too long for a
// title cut there, and whole as the description. more, when not empty,
// ends the description (the options' descriptions no title carries).
func appendFieldHead(b []byte, a *call, i int, t formTarget, width int, name, typ, title, more string) []byte {
	r := &a.Questions[i]
	b = jsonx.AppendString(b, name)
	b = append(b, `:{"type":`...)
	b = jsonx.AppendString(b, typ)
	b = append(b, `,"title":`...)
	desc := ""
	switch {
	case !a.Batch:
		if t == forMCP && r.Header != "" {
			title = r.Header
		}
	case r.Header == "":
		title = r.Question
		if width < MaxOptionTitleChars && len([]rune(title)) > width {
			title, desc = cut(sanitize(title, false), width-1), r.Question
		}
	default:
		title, desc = r.Header, r.Question
	}
	b = jsonx.AppendString(b, title)
	switch {
	case desc != "" && more != "" && width < MaxOptionTitleChars:
		desc += claudeSep + more
	case desc != "" && more != "":
		desc += "\n\n" + more
	case more != "":
		desc = more
	}
	if desc != "" {
		b = append(b, `,"description":`...)
		b = jsonx.AppendString(b, desc)
	}
	return b
}

// appendQuestionFields writes the fields of question i and adds the
// required ones to required.
func appendQuestionFields(b []byte, a *call, i int, fs formSpec, required []string) ([]byte, []string) {
	r := &a.Questions[i]
	t := fs.target
	if len(r.Options) == 0 {
		name := fieldName(a, fieldAnswer, i)
		more := ""
		if rows, ok := claudeLayout(a, fs); ok {
			more = rows.under
		}
		b = appendFieldHead(b, a, i, t, titleWidth(t, fs.client), name, "string", titleAnswer, more)
		b = append(b, `,"minLength":1,"maxLength":`...)
		b = jsonx.AppendInt(b, MaxAnswerChars)
		return appendNotesField(append(b, '}'), a, i, fs), append(required, name)
	}
	var ob [MaxOptions]int
	order := r.appendDisplayOrder(ob[:0])
	width := titleWidth(t, fs.client)
	more := strings.Join(uncarriedLines(r, order, t, width), claudeSep)
	if rows, ok := claudeLayout(a, fs); ok {
		more = rows.under
	}
	var name string
	if r.MultiSelect {
		name = fieldName(a, fieldChoices, i)
		b = appendFieldHead(b, a, i, t, width, name, "array", titleChoices, more)
		b = append(b, `,"items":{"anyOf":`...)
		b = appendConsts(b, r, order, t, width, false)
		b = append(b, '}')
		if !r.AllowCustom {
			b = append(b, `,"minItems":1`...)
		}
		if set, ok := recommendedSet(r); ok {
			b = append(b, `,"default":[`...)
			first := true
			for oi, on := range set {
				if on {
					if !first {
						b = append(b, ',')
					}
					first = false
					b = jsonx.AppendString(b, r.Options[oi].Value)
				}
			}
			b = append(b, ']')
		}
	} else {
		name = fieldName(a, fieldChoice, i)
		b = appendFieldHead(b, a, i, t, width, name, "string", titleChoice, more)
		b = append(b, `,"oneOf":`...)
		b = appendConsts(b, r, order, t, width, true)
		if d := r.defaultIndex(); d >= 0 {
			b = append(b, `,"default":`...)
			b = jsonx.AppendString(b, r.Options[d].Value)
		}
	}
	b = append(b, '}')
	if !r.AllowCustom {
		return appendNotesField(b, a, i, fs), append(required, name)
	}
	desc := descCustom
	if r.MultiSelect {
		desc = descCustomMulti
	}
	b = appendTextField(b, a, i, fieldCustomAnswer, titleCustom, desc, MaxAnswerChars)
	return appendNotesField(b, a, i, fs), required
}

// appendNotesField writes question i's optional notes field, after its
// other fields: the person may add notes to any answer, also where free
// text is not allowed for the answer itself. A client that will not
// submit a form with an empty optional text field (blocksEmptyField)
// gets no notes field: a note nobody wanted must not be the price of an
// answer.
func appendNotesField(b []byte, a *call, i int, fs formSpec) []byte {
	if blocksEmptyField(fs.client) {
		return b
	}
	return appendTextField(b, a, i, fieldNotes, titleNotes, descNotes, MaxNotesChars)
}

// blocksEmptyField reports a client known to refuse submitting a form
// while an optional text field is empty (measured: the Codex TUI, whose
// clientInfo name is codex-mcp-client, blocks Enter until something is
// typed).
func blocksEmptyField(client string) bool {
	return strings.Contains(strings.ToLower(client), "codex")
}

// appendTextField writes `,"name":{"type":"string",...}`, an optional text
// field of question i; in a batch its description says which question it
// belongs to.
func appendTextField(b []byte, a *call, i int, base, title, desc string, max int) []byte {
	if a.Batch {
		desc = questionPosition(i, len(a.Questions)) + ": " + lowerFirst(desc)
	}
	b = append(b, ',')
	b = jsonx.AppendString(b, fieldName(a, base, i))
	b = append(b, `:{"type":"string","title":`...)
	b = jsonx.AppendString(b, title)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, desc)
	b = append(b, `,"maxLength":`...)
	b = jsonx.AppendInt(b, max)
	return append(b, '}')
}

// MaxOptionTitleChars bounds an option's title in an MCP form, where the
// title carries the recommended mark and the description.
const MaxOptionTitleChars = 120

// claudeTitleChars is how much of a title Claude Code shows: its dialog
// cuts every option and field title at 48 display columns, whatever the
// terminal's width (measured in Claude Code 2.1.328).
const claudeTitleChars = 48

// titleWidth is the longest option title the client shows whole.
func titleWidth(t formTarget, client string) int {
	if t == forMCP && strings.EqualFold(client, clientClaudeCode) {
		return claudeTitleChars
	}
	return MaxOptionTitleChars
}

// optionTitle is an option's title in a form. MCP clients show option
// titles only (Claude Code and Codex drop oneOf descriptions, and
// multi-select items carry none), so for MCP the title says everything
// the person needs: "Postgres (recommended) — durable, needs a server",
// on one line, the description cut so the title stays within width
// (MaxOptionTitleChars). ACP clients show descriptions: there the title
// is the label. A client that cuts titles short (Claude Code) gets the
// description in the title only when it fits whole; the field's
// message or the field's description carries the others (uncarriedLines).
// It also says whether the title carries the whole description, which
// the option then does not repeat.
func optionTitle(o *option, t formTarget, width int) (title string, carriesDescription bool) {
	if t != forMCP {
		return o.Label, false
	}
	title = o.Label
	if o.Recommended {
		title += " (recommended)"
	}
	// The label and the mark are kept whole (a label is at most
	// MaxLabelChars); the description fills the room left, if any.
	room := width - len([]rune(title)) - len([]rune(titleSep))
	if o.Description == "" || room < minTitleRoom {
		return title, false
	}
	d := sanitize(o.Description, false)
	c := cut(d, room-1)
	if c != d && width < MaxOptionTitleChars {
		return title, false
	}
	return title + titleSep + c, c == d && d == o.Description
}

// uncarriedLines is, for a client that cuts titles short (Claude Code),
// the descriptions its option titles do not carry whole, one line each in
// display order ("Postgres: durable, needs a server"); none when the
// titles carry them all.
func uncarriedLines(r *request, order []int, t formTarget, width int) []string {
	if t != forMCP || width == MaxOptionTitleChars {
		return nil
	}
	var lines []string
	for _, oi := range order {
		o := &r.Options[oi]
		if o.Description == "" {
			continue
		}
		if _, carried := optionTitle(o, t, width); carried {
			continue
		}
		lines = append(lines, o.Label+": "+sanitize(o.Description, false))
	}
	return lines
}

// titleSep joins an option's label and description in an MCP title;
// minTitleRoom is the least room worth showing a description in.
const (
	titleSep     = " — "
	minTitleRoom = 16
)

// appendConsts writes the options in display order as
// [{"const":value,"title":title[,"description":...]}...]; descriptions only
// with withDescription (single choice: multi-select items take none), and
// not when the title carries them whole.
func appendConsts(b []byte, r *request, order []int, t formTarget, width int, withDescription bool) []byte {
	b = append(b, '[')
	for n, oi := range order {
		o := &r.Options[oi]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"const":`...)
		b = jsonx.AppendString(b, o.Value)
		title, carried := optionTitle(o, t, width)
		b = append(b, `,"title":`...)
		b = jsonx.AppendString(b, title)
		if withDescription && o.Description != "" && !carried {
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, o.Description)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// lowerFirst lower-cases the first letter of an ASCII sentence.
func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

// content reads the fields of a form's content: str a string field, strs a
// string-array field (multi-select). present is false for an absent or
// null field; problem says why a field is not usable.
type content interface {
	str(name string) (s string, present bool, problem *harnessError)
	strs(name string) (s []string, present bool, problem *harnessError)
}

// mapContent reads content decoded by a Go caller.
type mapContent map[string]any

func (m mapContent) str(name string) (string, bool, *harnessError) {
	v, ok := m[name]
	if !ok || v == nil {
		return "", false, nil
	}
	if s, ok := v.(string); ok {
		return s, true, nil
	}
	return "", false, notAString(name, goNoun(v))
}

func (m mapContent) strs(name string) ([]string, bool, *harnessError) {
	v, ok := m[name]
	if !ok || v == nil {
		return nil, false, nil
	}
	switch v := v.(type) {
	case []string:
		return v, true, nil
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false, notStrings(name, goNoun(x))
			}
			out[i] = s
		}
		return out, true, nil
	}
	return nil, false, notAnArray(name, goNoun(v))
}

// goNoun names the JSON kind of a decoded Go value.
func goNoun(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		return "a number"
	case []any, []string:
		return "an array"
	}
	return "an object"
}

// jsonContent reads content as it came in the envelope. When the content
// itself is unusable (given twice, not an object), every field reports
// that problem.
type jsonContent struct {
	v       *jsonx.Value
	problem *harnessError
}

func (c jsonContent) field(name string) (*jsonx.Value, bool, *harnessError) {
	if c.problem != nil {
		return nil, false, c.problem
	}
	f, n := lookup(c.v, name)
	switch {
	case n == 0 || f.Kind == jsonx.Null:
		return nil, false, nil
	case n > 1:
		return nil, false, invalidAnswer(`The form's content has the field "` + name + `" more than once.`)
	}
	return f, true, nil
}

func (c jsonContent) str(name string) (string, bool, *harnessError) {
	f, ok, err := c.field(name)
	if !ok {
		return "", false, err
	}
	if f.Kind != jsonx.String {
		return "", false, notAString(name, f.Kind.Noun())
	}
	return f.Str, true, nil
}

func (c jsonContent) strs(name string) ([]string, bool, *harnessError) {
	f, ok, err := c.field(name)
	if !ok {
		return nil, false, err
	}
	if f.Kind != jsonx.Array {
		return nil, false, notAnArray(name, f.Kind.Noun())
	}
	out := make([]string, len(f.Arr))
	for i := range f.Arr {
		if f.Arr[i].Kind != jsonx.String {
			return nil, false, notStrings(name, f.Arr[i].Kind.Noun())
		}
		out[i] = f.Arr[i].Str
	}
	return out, true, nil
}

func notAString(name, noun string) *harnessError {
	return invalidAnswer(`The form's field "` + name + `" must be a string, got ` + noun + ".")
}

func notAnArray(name, noun string) *harnessError {
	return invalidAnswer(`The form's field "` + name + `" must be an array of the chosen options' values, got ` + noun + ".")
}

func notStrings(name, noun string) *harnessError {
	return invalidAnswer(`The form's field "` + name + `" must hold strings (the chosen options' values), got ` + noun + ".")
}

// Messages of the form actions other than accept.
const (
	msgDeclined  = "The person declined to answer this question. Do not ask it again unless they bring it up; carry on without the answer or ask them what they would prefer."
	msgCancelled = "The person cancelled the question without answering. Stop and wait for their next instruction."
)

// elicitationResult judges a client's response for a normalized call: one
// answer per question, or the one error of the whole call.
func elicitationResult(a *call, action string, c content) ([]answer, *harnessError) {
	switch action {
	case "accept":
	case "decline":
		return nil, newError(CodeAskDeclined, msgDeclined)
	case "cancel":
		return nil, newError(CodeAskCancelled, msgCancelled)
	default:
		return nil, newError(CodeAskFailed, "The client answered the form with an unknown action "+snippet(action)+` (expected "accept", "decline" or "cancel").`)
	}
	answers := make([]answer, len(a.Questions))
	for i := range a.Questions {
		ans, err := formAnswer(a, i, c)
		if err == nil {
			ans, err = formNotes(a, i, c, ans)
		}
		if err != nil {
			return nil, inQuestion(a, i, err)
		}
		answers[i] = ans
	}
	return answers, nil
}

// formNotes adds question i's notes field, when filled in, to its answer.
func formNotes(a *call, i int, c content, ans answer) (answer, *harnessError) {
	s, _, err := c.str(fieldName(a, fieldNotes, i))
	if err != nil {
		return answer{}, err
	}
	if s = sanitize(s, true); s == "" {
		return ans, nil
	}
	return withNotes(ans, s)
}

// formAnswer reads question i's fields of an accepted form.
func formAnswer(a *call, i int, c content) (answer, *harnessError) {
	r := &a.Questions[i]
	if len(r.Options) == 0 {
		s, _, err := c.str(fieldName(a, fieldAnswer, i))
		if err != nil {
			return answer{}, err
		}
		if s = sanitize(s, true); s == "" {
			return answer{}, invalidAnswer("The form was accepted without an answer. Please type an answer.")
		}
		return freeText(s)
	}
	custom := ""
	if r.AllowCustom {
		s, _, err := c.str(fieldName(a, fieldCustomAnswer, i))
		if err != nil {
			return answer{}, err
		}
		custom = sanitize(s, true)
	}
	if r.MultiSelect {
		return formMultiAnswer(a, i, c, custom)
	}
	if custom != "" {
		if o := matchOption(r, key(custom)); o >= 0 {
			return selectOption(r, o), nil
		}
		return freeText(custom)
	}
	ch, _, err := c.str(fieldName(a, fieldChoice, i))
	if err != nil {
		return answer{}, err
	}
	if ch == "" {
		if r.AllowCustom {
			return answer{}, invalidAnswer("The form was accepted without an answer. Please choose an option or type your own answer.")
		}
		return answer{}, invalidAnswer("The form was accepted without a choice. Please choose an option.")
	}
	o, err := offered(r, ch)
	if err != nil {
		return answer{}, err
	}
	return selectOption(r, o), nil
}

// offered finds the option a form value names: its value, or a label or
// value with the same key.
func offered(r *request, v string) (int, *harnessError) {
	for i := range r.Options {
		if r.Options[i].Value == v {
			return i, nil
		}
	}
	if i := matchOption(r, key(v)); i >= 0 {
		return i, nil
	}
	return -1, invalidAnswer("The choice " + snippet(v) + " was not one of the options offered. Please choose one of the options.")
}

// formMultiAnswer reads a multi-select question's fields: the chosen
// values, and the typed text (which chooses an option when it names one).
func formMultiAnswer(a *call, i int, c content, custom string) (answer, *harnessError) {
	r := &a.Questions[i]
	values, _, err := c.strs(fieldName(a, fieldChoices, i))
	if err != nil {
		return answer{}, err
	}
	chosen := make([]bool, len(r.Options))
	for _, v := range values {
		o, err := offered(r, v)
		if err != nil {
			return answer{}, err
		}
		chosen[o] = true
	}
	if custom != "" {
		if o := matchOption(r, key(custom)); o >= 0 {
			chosen[o] = true
			custom = ""
		}
	}
	for _, on := range chosen {
		if on {
			return multiAnswer(r, chosen, custom, "")
		}
	}
	if custom != "" {
		return multiAnswer(r, chosen, custom, "")
	}
	if r.AllowCustom {
		return answer{}, invalidAnswer("The form was accepted without an answer. Please choose at least one option or type your own answer.")
	}
	return answer{}, invalidAnswer("The form was accepted without a choice. Please choose at least one option.")
}

// envelopeElicitation is op "elicitation_result": it reads the envelope's
// response and writes the call's answer. With "delivery", a decline or
// cancel no person could have given is not_shown (notShown).
func envelopeElicitation(b []byte, a *call, env *jsonx.Value) ([]byte, *harnessError) {
	d, err := envelopeDelivery(env)
	if err != nil {
		return nil, err
	}
	action, c, err := envelopeResponse(env)
	if err != nil {
		return nil, err
	}
	if reason, ok := notShown(action, d); ok {
		return nil, failFor(failure{Situation: SituationNotShown, Detail: reason})
	}
	answers, err := elicitationResult(a, action, c)
	if err != nil {
		return nil, err
	}
	return appendCallAnswer(b, a, answers), nil
}

// envelopeResponse reads the envelope's "response", the client's reply to
// the form: its action and content. A response missing from the envelope
// is the host's fault (INVALID_REQUEST); one the client got wrong is
// ASK_FAILED, never INVALID_REQUEST, which would tell the model to fix a
// request that was fine.
func envelopeResponse(env *jsonx.Value) (string, content, *harnessError) {
	resp, n := lookup(env, "response")
	switch {
	case n == 0 || resp.Kind == jsonx.Null:
		return "", nil, invalidRequest(`response is required: the client's {"action":...,"content":{...}}`)
	case n > 1:
		return "", nil, invalidRequest(`the input has the key "response" ` + strconv.Itoa(n) + " times: send it once")
	case resp.Kind != jsonx.Object:
		return "", nil, newError(CodeAskFailed, "The client answered the form with "+resp.Kind.Noun()+` instead of an object {"action":...,"content":{...}}.`)
	}
	act, n := lookup(resp, "action")
	switch {
	case n == 0 || act.Kind == jsonx.Null:
		return "", nil, newError(CodeAskFailed, `The client answered the form without an action (expected "accept", "decline" or "cancel").`)
	case n > 1:
		return "", nil, newError(CodeAskFailed, `The client answered the form with "action" given `+strconv.Itoa(n)+" times.")
	case act.Kind != jsonx.String:
		return "", nil, newError(CodeAskFailed, "The client answered the form with an action that is "+act.Kind.Noun()+`, not a string (expected "accept", "decline" or "cancel").`)
	}
	cv, n := lookup(resp, "content")
	c := jsonContent{v: cv}
	switch {
	case n > 1:
		c.problem = invalidAnswer(`The form's response has "content" more than once.`)
	case n == 1 && cv.Kind != jsonx.Object && cv.Kind != jsonx.Null:
		c.problem = invalidAnswer("The form's content must be an object, got " + cv.Kind.Noun() + ".")
	case cv.Kind != jsonx.Object:
		c.v = &nullValue
	}
	return act.Str, c, nil
}
