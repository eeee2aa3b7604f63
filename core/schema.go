package core

import (
	"strconv"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// ToolName is the name of the model-facing tool.
const ToolName = "ask_user_question"

// toolDescription tells the model when and how to use the tool. It is the
// one place the tool's usage is explained: front doors derive their system
// prompts from it.
const toolDescription = "Ask the person you are working for and wait for their answer. " +
	"Use it when you need a decision or a fact that only they can give; do not ask what you can find out yourself. " +
	"For one question, set question (with header, options, allowCustom, multiSelect as needed). " +
	"When you need several independent answers at the same point, ask them in one call: put up to " + maxQuestionsText +
	" questions in questions, each with its own question, header, options, allowCustom and multiSelect, and leave the top-level question fields out; " +
	"do not batch a question whose wording depends on another's answer. " +
	"Where the likely answers are known, offer them as options (a short label each, an optional one-line description) and mark the ones you suggest as recommended. " +
	"allowCustom is false by default: set it to true when the person may type an answer of their own instead of (or, with multiSelect, beside) the options; " +
	"a question without options always takes typed text. Set multiSelect to true when the person may pick several options. " +
	"When the options are things the person compares by looking (code, a layout, a config, a message's wording), give each a preview: " +
	"the snippet or an ASCII mockup itself, as Markdown text (a fenced code block keeps its lines), shown while the option has the focus; " +
	"when a one-line description says enough, give no preview. " +
	"The result is, for a question, {\"answer\": the chosen option's value or the typed text, \"selected\": {index, label, value} when an option was chosen}; " +
	"for a multiSelect question, {\"answers\": [the chosen options' values in option order, then any typed text], \"selected\": [{index, label, value}, ...]}; " +
	"for questions, {\"answers\": [{\"question\": its text, then that question's own result fields}, ...]} in question order. " +
	"A question's result has \"notes\" when the person added notes to their choice: read them as part of the answer. " +
	"On failure the result is an error {name, code, message}: ASK_DECLINED or ASK_CANCELLED mean the person chose not to answer " +
	"(do not ask again at once); INVALID_REQUEST means this call must be fixed as the message says."

// schemaTool returns the model-facing ask_user_question tool (op "schema"): a
// plain JSON schemaTool accepted by OpenAI-style function calling.
func schemaTool() tool {
	return tool{Name: ToolName, Description: toolDescription, Parameters: appendParameters(nil)}
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

func appendProp(b []byte, name, typ, desc string, extra string) []byte {
	b = jsonx.AppendString(b, name)
	b = append(b, `:{"type":`...)
	b = jsonx.AppendString(b, typ)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, desc)
	b = append(b, extra...)
	return append(b, '}')
}

func maxLength(n int) string { return `,"maxLength":` + strconv.Itoa(n) }

// appendParameters writes the JSON Schema of the tool's arguments: one
// top-level object (OpenAI-style function calling accepts nothing else)
// holding the fields of one question and, for a batch, questions.
func appendParameters(b []byte) []byte {
	b = append(b, `{"type":"object","properties":{`...)
	b = appendQuestionProps(b, true)
	b = append(b, `,"questions":{"type":"array","description":`...)
	b = jsonx.AppendString(b, "Several questions to ask together (1-"+maxQuestionsText+
		"), answered in one form or one after another; use instead of the top-level question fields, never with them.")
	b = append(b, `,"minItems":1,"maxItems":`...)
	b = jsonx.AppendInt(b, MaxQuestions)
	b = append(b, `,"items":{"type":"object","properties":{`...)
	b = appendQuestionProps(b, false)
	b = append(b, `},"required":["question"],"additionalProperties":false}}`...)
	return append(b, `},"additionalProperties":false}`...)
}

// maxQuestionsText is MaxQuestions in words for the descriptions.
const maxQuestionsText = "10"

// appendQuestionProps writes the properties of one question; top says
// they are the top-level ones (left out for a batch).
func appendQuestionProps(b []byte, top bool) []byte {
	question := "The question to ask, complete and self-contained, ending with a question mark."
	if top {
		question = "The one question to ask, complete and self-contained, ending with a question mark. Required unless you use questions."
	}
	b = appendProp(b, "header", "string", "Optional very short topic shown before the question, e.g. \"Database\".", maxLength(MaxHeaderChars))
	b = append(b, ',')
	b = appendProp(b, "question", "string", question, `,"minLength":1`+maxLength(MaxQuestionChars))
	b = append(b, `,"options":{"type":"array","description":`...)
	b = jsonx.AppendString(b, "The possible answers, most useful first (usually 2-6; at most "+strconv.Itoa(MaxOptions)+
		"). Omit for an open question. Labels and values must be distinct.")
	b = append(b, `,"maxItems":`...)
	b = jsonx.AppendInt(b, MaxOptions)
	b = append(b, `,"items":{"type":"object","properties":{`...)
	b = appendProp(b, "label", "string", "What the person sees and can type to choose this option: a few words.", `,"minLength":1`+maxLength(MaxLabelChars))
	b = append(b, ',')
	b = appendProp(b, "value", "string", "What you receive as the answer when this option is chosen; defaults to the label.", maxLength(MaxValueChars))
	b = append(b, ',')
	b = appendProp(b, "description", "string", "Optional one-line explanation of the option: its consequence or trade-off.", maxLength(MaxDescriptionChars))
	b = append(b, ',')
	b = appendProp(b, "preview", "string", "Optional: what the option looks like, for options compared by looking (a code snippet, an ASCII mockup of a layout, a config excerpt), "+
		"as Markdown text; shown beside the options while this one has the focus. Leave it out when the description says enough.", maxLength(MaxPreviewChars))
	b = append(b, ',')
	b = appendProp(b, "recommended", "boolean", "True for an option you suggest; recommended options are shown first and are the default (with multiSelect, all of them).", "")
	b = append(b, `},"required":["label"],"additionalProperties":false}},`...)
	b = appendProp(b, "allowCustom", "boolean", "Whether the person may type an answer of their own besides the options. Default false; a question without options is always answered with typed text.", "")
	b = append(b, ',')
	return appendProp(b, "multiSelect", "boolean", "Whether the person may choose several options (needs options). Default false: exactly one.", "")
}
