package core

// option is one mutually exclusive choice offered to the person.
type option struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	// Preview is shown beside or below the options while this option has
	// the focus: Markdown read as text, for what a person compares by
	// looking (code, an ASCII mockup, a config excerpt).
	Preview     string `json:"preview,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// request is one question of an ask_user_question call (the whole call
// when it asks a single question). After Normalize, strings are trimmed and
// sanitized, every Value is set, and AllowCustom is true for optionless
// questions.
type request struct {
	Header      string   `json:"header,omitempty"`
	Question    string   `json:"question"`
	Options     []option `json:"options"`
	AllowCustom bool     `json:"allowCustom"`
	// MultiSelect lets the person pick one or more options; it
	// needs options.
	MultiSelect bool `json:"multiSelect,omitempty"`
}

// call is a whole ask_user_question call: one question, or a batch
// ({"questions":[...]}) whose questions are answered together.
type call struct {
	// Questions holds the questions in order: exactly one unless Batch.
	Questions []request
	// Batch reports the {"questions":[...]} form, whose answer is
	// {"answers":[...]} even for one question.
	Batch bool
}

// selected names the option a person chose.
type selected struct {
	Index int    `json:"index"` // position in the request as given, from 0
	Label string `json:"label"`
	Value string `json:"value"`
}

// answer is what the model receives for one question. For a single-select
// question, answer is the single source of truth and Selected is set only
// when an option was chosen: {"answer","selected"?}. For a multi-select
// question (Multi), Answers lists the chosen options' values in request
// order, then the typed free text, and Choices the chosen options:
// {"answers":[...],"selected":[...]}. answer.JSON writes the wire form.
type answer struct {
	Answer   string    `json:"answer"`
	Selected *selected `json:"selected,omitempty"`

	Multi   bool       `json:"-"`
	Answers []string   `json:"-"`
	Choices []selected `json:"-"`

	// Notes is what the person added beside the choice ("PostgreSQL, but
	// keep v15"), written after the answer's own fields when given.
	Notes string `json:"-"`
}

// batchAnswer is the answer to a batch: one Answer per question, in
// question order, each written with the question's text first:
// {"answers":[{"question":...,"answer":...},...]}.
type batchAnswer struct {
	Questions []string // the normalized question texts
	Answers   []answer
}

// presentation is what a terminal shows for a request (op "present").
type presentation struct {
	// Text is plain text: the header and question, the numbered options
	// (recommended first) with their descriptions indented below them, and
	// a one-line hint saying how to answer. No colours, no prompt.
	Text string `json:"text"`
	// Order lists option indices (positions in the request as given) in
	// display order: the option numbered n on screen is Order[n-1].
	Order []int `json:"order"`
}

// form is the ACP form elicitation for a request (op "elicitation").
type form struct {
	Message string `json:"message"`
	// RequestedSchema is the form's JSON Schema as the core writes it (raw
	// JSON: wrap it in a json.RawMessage to embed it; Form.JSON writes the
	// whole form).
	RequestedSchema []byte `json:"-"`
}

// tool is the model-facing ask_user_question tool (op "schema").
type tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments as the core
	// writes it (raw JSON; Tool.JSON writes the whole tool).
	Parameters []byte `json:"-"`
}

// elicitationResponse is an ACP client's answer to a form elicitation:
// Action is "accept", "decline" or "cancel"; Content holds the form's
// fields (string values for the fields the core asks for).
type elicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Names of the form fields an elicitation asks for.
const (
	fieldChoice       = "choice"        // the chosen option's value
	fieldAnswer       = "answer"        // the answer to an optionless question
	fieldCustomAnswer = "custom_answer" // free text beside the options
	fieldChoices      = "choices"       // the chosen options' values (multi-select)
	fieldNotes        = "notes"         // the person's notes beside the choice
)
