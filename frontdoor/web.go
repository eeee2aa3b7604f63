package frontdoor

import (
	"flag"
	"fmt"
	"io"

	"github.com/askcore/askcore/answerpage"
)

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

// Page reports whether a question goes to the answer page under m, for a
// client that advertised form elicitation (form) or not.
func (m WebMode) Page(form bool) bool {
	return m == WebAlways || m == WebAuto && !form
}

// Web is the answer page's flags, the same in every front door: --web
// MODE, --no-browser and --web-addr HOST:PORT. The zero value is
// --web=auto on answerpage.DefaultAddr, a browser opened on a desktop.
type Web struct {
	Mode WebMode
	// NoBrowser: never open a browser, only print the URL
	// (ASKCORE_BROWSER=none does the same).
	NoBrowser bool
	// Addr is where the page listens ("": answerpage.DefaultAddr).
	Addr string
}

// AddFlags registers --web MODE, --no-browser and --web-addr on fs.
func (w *Web) AddFlags(fs *flag.FlagSet) {
	fs.Var(&w.Mode, "web", "`MODE` of the local answer page: auto (the default; where the client shows no form), always, or never (a client without forms gets ASK_FAILED)")
	w.AddPageFlags(fs)
}

// AddPageFlags registers --no-browser and --web-addr alone, for a front
// door whose --web is its own (askcore-stdio's switch).
func (w *Web) AddPageFlags(fs *flag.FlagSet) {
	fs.BoolVar(&w.NoBrowser, "no-browser", false, "never open a browser for the answer page, only print its URL (also ASKCORE_BROWSER=none)")
	fs.StringVar(&w.Addr, "web-addr", answerpage.DefaultAddr, "the answer page's `HOST:PORT` (a fixed port to forward over SSH; an address other than loopback is warned about)")
}

// PageOptions are the answer page's options the flags say, its lines
// ("askcore: answer at URL", warnings) going to log and the environment
// (ASKCORE_BROWSER, DISPLAY, WAYLAND_DISPLAY) read through getenv (nil:
// the process's).
func (w Web) PageOptions(log io.Writer, getenv func(string) string) []answerpage.Option {
	opts := []answerpage.Option{answerpage.WithBrowser(!w.NoBrowser), answerpage.WithLog(log)}
	if w.Addr != "" {
		opts = append(opts, answerpage.WithAddr(w.Addr))
	}
	if getenv != nil {
		opts = append(opts, answerpage.WithEnv(getenv))
	}
	return opts
}
