package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// ToolName is the name of the model-facing tool.
const ToolName = "ask_user_question"

// toolDescription tells the model when and how to use the tool. It is the
// one place the tool's usage is explained: front doors derive their system
// prompts from it. strictDescription is its wording for the strict variant
// (op "schema" with "strict":true), whose calls always use questions.
const (
	toolDescription = descAsk +
		"For one question, set question (with header, options, allowCustom, multiSelect as needed). " +
		"When you need several independent answers at the same point, ask them in one call: put up to " + maxQuestionsText +
		" questions in questions, each with its own question, header, options, allowCustom and multiSelect, and leave the top-level question fields out; " +
		"do not batch a question whose wording depends on another's answer. " +
		descOptions +
		"The result is, for a question, {\"answer\": the chosen option's value or the typed text, \"selected\": {index, label, value} when an option was chosen}; " +
		"for a multiSelect question, {\"answers\": [the chosen options' values in option order, then any typed text], \"selected\": [{index, label, value}, ...]}; " +
		"for questions, {\"answers\": [{\"question\": its text, then that question's own result fields}, ...]} in question order. " +
		descEnd
	strictDescription = descAsk +
		"Put the questions in questions: one entry for one question; when you need several independent answers at the same point, up to " + maxQuestionsText +
		" entries in one call, each with its own question, header, options, allowCustom and multiSelect; " +
		"do not batch a question whose wording depends on another's answer. Give null for a field you leave out. " +
		descOptions +
		"The result is {\"answers\": [...]}, one entry per question in question order: {\"question\": its text, \"answer\": the chosen option's value or the typed text, " +
		"\"selected\": {index, label, value} when an option was chosen}; for a multiSelect question {\"question\": its text, " +
		"\"answers\": [the chosen options' values in option order, then any typed text], \"selected\": [{index, label, value}, ...]}. " +
		descEnd

	descAsk = "Ask the person you are working for and wait for their answer. " +
		"Use it when you need a decision or a fact that only they can give; do not ask what you can find out yourself. "
	descOptions = "Where the likely answers are known, offer them as options (a short label each, an optional one-line description) and mark the ones you suggest as recommended. " +
		"allowCustom is false by default: set it to true when the person may type an answer of their own instead of (or, with multiSelect, beside) the options; " +
		"a question without options always takes typed text. Set multiSelect to true when the person may pick several options. " +
		"When the options are things the person compares by looking (code, a layout, a config, a message's wording), give each a preview: " +
		"the snippet or an ASCII mockup itself, as Markdown text (a fenced code block keeps its lines), shown while the option has the focus; " +
		"when a one-line description says enough, give no preview. "
	descEnd = "A question's result has \"notes\" when the person added notes to their choice: read them as part of the answer. " +
		"On failure the result is an error {name, code, message}: ASK_DECLINED or ASK_CANCELLED mean the person chose not to answer " +
		"(do not ask again at once); INVALID_REQUEST means this call must be fixed as the message says."
)

// schemaTool returns the model-facing ask_user_question tool (op "schema"): a
// plain JSON Schema accepted by OpenAI-style function calling, MCP and the
// SDKs that turn a JSON Schema into a validator (zod's fromJSONSchema): no
// combinator at the top level, no conditional keyword anywhere.
func schemaTool() tool {
	return tool{Name: ToolName, Description: toolDescription, Parameters: appendParameters(nil)}
}

// strictSchemaTool returns the tool for OpenAI's strict function calling
// (op "schema" with "strict":true): every object closed and listing all its
// properties in required, an optional field typed [T, "null"] (the core
// reads null as absent), none of the keywords strict mode refuses (no
// minLength, maxLength, minProperties), and no way to write a call the core
// refuses for its shape: the questions always go in questions (one entry for
// one question), and a multiSelect question has at least one option.
func strictSchemaTool() tool {
	return tool{Name: ToolName, Description: strictDescription, Parameters: appendStrictParameters(nil)}
}

// envelopeSchema is op "schema": the tool, or its strict variant when the
// envelope has "strict":true (null or absent is false).
func envelopeSchema(env *jsonx.Value) ([]byte, *harnessError) {
	strict, err := envelopeOptBool(env, "strict")
	if err != nil {
		return nil, err
	}
	t := schemaTool()
	if strict {
		t = strictSchemaTool()
	}
	b := okPrefix(len(t.Description) + len(t.Parameters) + 64)
	b = t.appendJSON(b)
	return append(b, '}'), nil
}

// JSON returns the tool as op "schema" writes it.
func (t tool) JSON() []byte { return t.appendJSON(nil) }

func (t tool) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonx.AppendString(b, t.Name)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, t.Description)
	b = append(b, `,"parameters":`...)
	if len(t.Parameters) == 0 {
		b = append(b, "null"...)
	}
	b = append(b, t.Parameters...)
	return append(b, '}')
}

// Property types: a plain one, or the strict variant's nullable one.
const (
	typeString      = `"string"`
	typeBoolean     = `"boolean"`
	typeStringNull  = `["string","null"]`
	typeBooleanNull = `["boolean","null"]`
)

// appendProp writes "name":{"type":typ,"description":desc<extra>}; typ is
// raw JSON (one of the type constants).
func appendProp(b []byte, name, typ, desc string, extra string) []byte {
	b = jsonx.AppendString(b, name)
	b = append(b, `:{"type":`...)
	b = append(b, typ...)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, desc)
	b = append(b, extra...)
	return append(b, '}')
}

func maxLength(n int) string { return `,"maxLength":` + strconv.Itoa(n) }

// appendParameters writes the JSON Schema of the tool's arguments: one
// top-level object (OpenAI-style function calling accepts nothing else,
// and no anyOf, oneOf, allOf, not or enum beside it) holding the fields of
// one question and, for a batch, questions. minProperties refuses {}; the
// other rules that tie fields together (question is required unless
// questions is given, questions never beside a top-level question field,
// multiSelect needs options) cannot be said without a top-level combinator
// or a conditional keyword, so the descriptions say them and the core
// enforces them (docs/SPEC.md, "Requests"; the strict variant says them all).
func appendParameters(b []byte) []byte {
	b = append(b, `{"type":"object","properties":{`...)
	b = appendQuestionProps(b, questionTop)
	b = append(b, `,"questions":{"type":"array","description":`...)
	b = jsonx.AppendString(b, "Several questions to ask together (1-"+maxQuestionsText+
		"), answered in one form or one after another; use instead of the top-level question fields, never with them.")
	b = append(b, `,"minItems":1,"maxItems":`...)
	b = jsonx.AppendInt(b, MaxQuestions)
	b = append(b, `,"items":{"type":"object","properties":{`...)
	b = appendQuestionProps(b, questionItem)
	b = append(b, `},"required":["question"],"additionalProperties":false}}`...)
	return append(b, `},"minProperties":1,"additionalProperties":false}`...)
}

// appendStrictParameters writes the strict variant's JSON Schema: only
// questions, each entry one of two closed shapes (a question answered with
// one option or typed text, or a multiSelect question with options), the
// option schema shared through $defs.
func appendStrictParameters(b []byte) []byte {
	b = append(b, `{"type":"object","properties":{"questions":{"type":"array","description":`...)
	b = jsonx.AppendString(b, "The questions to ask (1-"+maxQuestionsText+
		"): one entry for one question, several for independent questions answered together (one form, or one after another).")
	b = append(b, `,"minItems":1,"maxItems":`...)
	b = jsonx.AppendInt(b, MaxQuestions)
	b = append(b, `,"items":{"anyOf":[{"type":"object","description":`...)
	b = jsonx.AppendString(b, "A question answered with one option or with typed text.")
	b = append(b, `,"properties":{`...)
	b = appendQuestionProps(b, questionStrictSingle)
	b = append(b, `},"required":["header","question","options","allowCustom"],"additionalProperties":false},{"type":"object","description":`...)
	b = jsonx.AppendString(b, "A question on which the person may choose several options (multiSelect true, at least one option).")
	b = append(b, `,"properties":{`...)
	b = appendQuestionProps(b, questionStrictMulti)
	b = append(b, `},"required":["header","question","options","allowCustom","multiSelect"],"additionalProperties":false}]}}},`...)
	b = append(b, `"required":["questions"],"additionalProperties":false,"$defs":{"option":`...)
	b = appendOption(b, true)
	return append(b, `}}`...)
}

// maxQuestionsText is MaxQuestions in words for the descriptions.
const maxQuestionsText = "10"

// Where appendQuestionProps writes a question's properties.
type questionKind int

const (
	questionTop          questionKind = iota // the top level of the plain schema (left out for a batch)
	questionItem                             // an entry of the plain schema's questions
	questionStrictSingle                     // the strict variant: one option or typed text
	questionStrictMulti                      // the strict variant: a multiSelect question
)

// appendQuestionProps writes the properties of one question of kind k.
func appendQuestionProps(b []byte, k questionKind) []byte {
	strict := k == questionStrictSingle || k == questionStrictMulti
	question := "The question to ask, complete and self-contained, ending with a question mark."
	if k == questionTop {
		question = "The one question to ask, complete and self-contained, ending with a question mark. Required unless you use questions."
	}
	optionsText := "The possible answers, most useful first (usually 2-6; at most " + strconv.Itoa(MaxOptions) +
		"). Omit for an open question. Labels and values must be distinct."
	tString, tBoolean := typeString, typeBoolean
	headerExtra, questionExtra := maxLength(MaxHeaderChars), `,"minLength":1`+maxLength(MaxQuestionChars)
	optionsType, optionsExtra := `"array"`, ""
	if strict {
		tString, tBoolean = typeStringNull, typeBooleanNull
		headerExtra, questionExtra = "", ""
		optionsType = `["array","null"]`
		optionsText = "The possible answers, most useful first (usually 2-6; at most " + strconv.Itoa(MaxOptions) +
			"); null for an open question. Labels and values must be distinct."
		if k == questionStrictMulti {
			optionsType, optionsExtra = `"array"`, `,"minItems":1`
			optionsText = "The options the person chooses from, most useful first (at least 1; at most " + strconv.Itoa(MaxOptions) +
				"). Labels and values must be distinct."
		}
	}
	b = appendProp(b, "header", tString, "Optional very short topic shown before the question, e.g. \"Database\".", headerExtra)
	b = append(b, ',')
	b = appendProp(b, "question", typeString, question, questionExtra)
	b = append(b, `,"options":{"type":`...)
	b = append(b, optionsType...)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, optionsText)
	b = append(b, optionsExtra...)
	b = append(b, `,"maxItems":`...)
	b = jsonx.AppendInt(b, MaxOptions)
	if strict {
		b = append(b, `,"items":{"$ref":"#/$defs/option"}},`...)
	} else {
		b = append(b, `,"items":`...)
		b = appendOption(b, false)
		b = append(b, "},"...)
	}
	b = appendProp(b, "allowCustom", tBoolean, "Whether the person may type an answer of their own besides the options. Default false; a question without options is always answered with typed text.", "")
	switch k {
	case questionStrictSingle:
		return b
	case questionStrictMulti:
		b = append(b, ',')
		return appendProp(b, "multiSelect", typeBoolean, "true: the person may choose several options. For exactly one choice, use the other form of question, without multiSelect.", `,"enum":[true]`)
	}
	b = append(b, ',')
	return appendProp(b, "multiSelect", typeBoolean, "Whether the person may choose several options (needs options). Default false: exactly one.", "")
}

// appendOption writes the schema of one option; strict writes the strict
// variant's (optional fields nullable, no length keywords).
func appendOption(b []byte, strict bool) []byte {
	tString, tBoolean := typeString, typeBoolean
	labelExtra := `,"minLength":1` + maxLength(MaxLabelChars)
	valueExtra, descExtra, previewExtra := maxLength(MaxValueChars), maxLength(MaxDescriptionChars), maxLength(MaxPreviewChars)
	if strict {
		tString, tBoolean = typeStringNull, typeBooleanNull
		labelExtra, valueExtra, descExtra, previewExtra = "", "", "", ""
	}
	b = append(b, `{"type":"object","properties":{`...)
	b = appendProp(b, "label", typeString, "What the person sees and can type to choose this option: a few words.", labelExtra)
	b = append(b, ',')
	b = appendProp(b, "value", tString, "What you receive as the answer when this option is chosen; defaults to the label.", valueExtra)
	b = append(b, ',')
	b = appendProp(b, "description", tString, "Optional one-line explanation of the option: its consequence or trade-off.", descExtra)
	b = append(b, ',')
	b = appendProp(b, "preview", tString, "Optional: what the option looks like, for options compared by looking (a code snippet, an ASCII mockup of a layout, a config excerpt), "+
		"as Markdown text; shown beside the options while this one has the focus. Leave it out when the description says enough.", previewExtra)
	b = append(b, ',')
	b = appendProp(b, "recommended", tBoolean, "True for an option you suggest; recommended options are shown first and are the default (with multiSelect, all of them).", "")
	if strict {
		return append(b, `},"required":["label","value","description","preview","recommended"],"additionalProperties":false}`...)
	}
	return append(b, `},"required":["label"],"additionalProperties":false}`...)
}
