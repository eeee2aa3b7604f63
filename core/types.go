package core

// Option is one mutually exclusive choice offered to the person.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// Request is one question of an ask_user_question call (the whole call
// when it asks a single question). After Normalize, strings are trimmed and
// sanitized, every Value is set, and AllowCustom is true for optionless
// questions.
type Request struct {
	Header      string   `json:"header,omitempty"`
	Question    string   `json:"question"`
	Options     []Option `json:"options"`
	AllowCustom bool     `json:"allowCustom"`
	// MultiSelect lets the person pick one or more options (contract
	// section 7); it needs options.
	MultiSelect bool `json:"multiSelect,omitempty"`
}

// Ask is a whole ask_user_question call: one question, or a batch
// ({"questions":[...]}) whose questions are answered together.
type Ask struct {
	// Questions holds the questions in order: exactly one unless Batch.
	Questions []Request
	// Batch reports the {"questions":[...]} form, whose answer is
	// {"answers":[...]} even for one question.
	Batch bool
}

// Selected names the option a person chose.
type Selected struct {
	Index int    `json:"index"` // position in the request as given, from 0
	Label string `json:"label"`
	Value string `json:"value"`
}

// Answer is what the model receives for one question. For a single-select
// question, Answer is the single source of truth and Selected is set only
// when an option was chosen: {"answer","selected"?}. For a multi-select
// question (Multi), Answers lists the chosen options' values in request
// order, then the typed free text, and Choices the chosen options:
// {"answers":[...],"selected":[...]}. Answer.JSON writes the wire form.
type Answer struct {
	Answer   string    `json:"answer"`
	Selected *Selected `json:"selected,omitempty"`

	Multi   bool       `json:"-"`
	Answers []string   `json:"-"`
	Choices []Selected `json:"-"`
}

// BatchAnswer is the answer to a batch: one Answer per question, in
// question order, each written with the question's text first:
// {"answers":[{"question":...,"answer":...},...]}.
type BatchAnswer struct {
	Questions []string // the normalized question texts
	Answers   []Answer
}

// Presentation is what a terminal shows for a request (op "present").
type Presentation struct {
	// Text is plain text: the header and question, the numbered options
	// (recommended first) with their descriptions indented below them, and
	// a one-line hint saying how to answer. No colours, no prompt.
	Text string `json:"text"`
	// Order lists option indices (positions in the request as given) in
	// display order: the option numbered n on screen is Order[n-1].
	Order []int `json:"order"`
}

// Form is the ACP form elicitation for a request (op "elicitation").
type Form struct {
	Message string `json:"message"`
	// RequestedSchema is the form's JSON Schema as the core writes it (raw
	// JSON: wrap it in a json.RawMessage to embed it; Form.JSON writes the
	// whole form).
	RequestedSchema []byte `json:"-"`
}

// Tool is the model-facing ask_user_question tool (op "schema").
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments as the core
	// writes it (raw JSON; Tool.JSON writes the whole tool).
	Parameters []byte `json:"-"`
}

// ElicitationResponse is an ACP client's answer to a form elicitation:
// Action is "accept", "decline" or "cancel"; Content holds the form's
// fields (string values for the fields the core asks for).
type ElicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Names of the form fields an elicitation asks for.
const (
	FieldChoice       = "choice"        // the chosen option's value
	FieldAnswer       = "answer"        // the answer to an optionless question
	FieldCustomAnswer = "custom_answer" // free text beside the options
	FieldChoices      = "choices"       // the chosen options' values (multi-select)
)
