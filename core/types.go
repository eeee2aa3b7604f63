package core

// Option is one mutually exclusive choice offered to the person.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// Request is an ask_user_question call. After Normalize, strings are
// trimmed and sanitized, every Value is set, and AllowCustom is true for
// optionless questions.
type Request struct {
	Header      string   `json:"header,omitempty"`
	Question    string   `json:"question"`
	Options     []Option `json:"options"`
	AllowCustom bool     `json:"allowCustom"`
}

// Selected names the option a person chose.
type Selected struct {
	Index int    `json:"index"` // position in the request as given, from 0
	Label string `json:"label"`
	Value string `json:"value"`
}

// Answer is what the model receives as the tool result. Answer is the single
// source of truth; Selected is set only when an option was chosen.
type Answer struct {
	Answer   string    `json:"answer"`
	Selected *Selected `json:"selected,omitempty"`
}
