package frontdoor

import "fmt"

// WebMode is when a front door asks on the answer page instead of a form
// (the --web flag of askcore-acp and askcore-mcp; a flag.Value).
type WebMode int

const (
	// WebAuto: where the client did not advertise form elicitation.
	WebAuto WebMode = iota
	// WebAlways: every question, even where the client shows forms.
	WebAlways
	// WebNever: never; a client without forms gets ASK_FAILED
	// (no_form_support) at once.
	WebNever
)

var webModeNames = map[WebMode]string{WebAuto: "auto", WebAlways: "always", WebNever: "never"}

func (m WebMode) String() string { return webModeNames[m] }

// Set implements flag.Value.
func (m *WebMode) Set(s string) error {
	for mode, name := range webModeNames {
		if s == name {
			*m = mode
			return nil
		}
	}
	return fmt.Errorf("want auto, always or never, got %q", s)
}
