package frontdoor_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/frontdoor"
)

// A protocol front door's command line: --help and --version end the
// program with 0, a bad flag or an argument with 2; nothing but the
// version reaches stdout (the protocol's).
func TestCommand(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		status    int
		done      bool
		stdout    string
		stderrHas string
		on        bool
	}{
		{name: "flags only", args: []string{"--on"}, status: 0, done: false, on: true},
		{name: "help", args: []string{"--help"}, status: 0, done: true, stderrHas: "usage: x [--on]\n"},
		{name: "version", args: []string{"--version"}, status: 0, done: true, stdout: frontdoor.VersionLine("x") + "\n"},
		{name: "bad flag", args: []string{"--off"}, status: 2, done: true, stderrHas: "flag provided but not defined: -off"},
		{name: "argument", args: []string{"extra"}, status: 2, done: true, stderrHas: `x: unexpected arguments ["extra"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := frontdoor.NewCommand("x", "usage: x [--on]\n", &stdout, &stderr)
			on := cmd.Bool("on", false, "a flag of the front door's own")
			status, done := cmd.Parse(c.args)
			assert.Equal(t, c.status, status)
			assert.Equal(t, c.done, done)
			assert.Equal(t, c.stdout, stdout.String())
			assert.Contains(t, stderr.String(), c.stderrHas)
			assert.Equal(t, c.on, *on)
			if c.stderrHas == "" {
				assert.Empty(t, stderr.String())
			}
		})
	}
}
