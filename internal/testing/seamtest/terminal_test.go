package seamtest

import (
	"io"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/termui"
)

// The "terminal" cases run the real terminal provider (termui, line mode)
// on the case's stdin; what it shows is discarded, the tool result is what
// the corpus pins.
func init() {
	terminalProvider = func(in string) (askcore.Provider, func()) {
		lines := termui.NewLines(strings.NewReader(in))
		p := termui.NewProvider(termui.Config{Lines: lines, Out: io.Discard})
		return p, func() {
			p.Close()
			lines.Close()
			<-lines.Done()
		}
	}
}

// stdin is a terminal case's input: the bytes typed, then end of input.
func stdin(s string) *string { return &s }
