package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// TestTerminalModeDecision: the front door hands the core the TTY facts,
// TERM, NO_COLOR, ASKCORE_PLAIN and --plain (sys.terminal), and the core
// decides the keyboard picker or the line mode, and colour (contract
// section 9), the same on both engines.
func TestTerminalModeDecision(t *testing.T) {
	type facts struct{ plainFlag, in, prompt, out bool }
	tty := facts{in: true, prompt: true, out: true}
	cases := []struct {
		name  string
		env   map[string]string
		facts facts
		want  askcore.TerminalMode
	}{
		{"a terminal", map[string]string{"TERM": "xterm-256color"}, tty, askcore.TerminalMode{Picker: true, Color: true}},
		{"--plain", map[string]string{"TERM": "xterm-256color"}, facts{true, true, true, true}, askcore.TerminalMode{Color: true}},
		{"ASKCORE_PLAIN=1", map[string]string{"TERM": "xterm", "ASKCORE_PLAIN": "1"}, tty, askcore.TerminalMode{Color: true}},
		{"ASKCORE_PLAIN=0", map[string]string{"TERM": "xterm", "ASKCORE_PLAIN": "0"}, tty, askcore.TerminalMode{Picker: true, Color: true}},
		{"NO_COLOR", map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, tty, askcore.TerminalMode{Picker: true}},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, tty, askcore.TerminalMode{}},
		{"stdin is a pipe", map[string]string{"TERM": "xterm"}, facts{prompt: true, out: true}, askcore.TerminalMode{Color: true}},
		{"the prompt goes to a pipe", map[string]string{"TERM": "xterm"}, facts{in: true}, askcore.TerminalMode{}},
		{"pipes only", map[string]string{"TERM": "xterm"}, facts{}, askcore.TerminalMode{}},
	}
	for name, client := range map[string]*askcore.Core{"native": native, "wasm": wasmClient(t)} {
		for _, c := range cases {
			s := sys{getenv: func(k string) string { return c.env[k] }}
			got, err := client.Terminal(context.Background(), s.terminal(c.facts.plainFlag, c.facts.in, c.facts.prompt, c.facts.out))
			require.NoError(t, err)
			assert.Equal(t, c.want, got, "%s: %s", name, c.name)
		}
	}
}

// TestPlainIsAcceptedEverywhere: --plain and ASKCORE_PLAIN keep the line
// mode, which is what pipes get anyway.
func TestPlainIsAcceptedEverywhere(t *testing.T) {
	stdout, stderr, code := runWith(t, baseEnv("ASKCORE_PLAIN=1"), "2\n", "ask", "--plain", "--engine", "native", "--request", askRequest)
	require.Equal(t, askExitOK, code, stderr)
	assert.Equal(t, `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}`+"\n", stdout)

	script := writeScript(t, reply{Content: "asking", ToolCalls: ask("q1", colors(true))}, reply{Content: "A1={{answer}}"})
	stdout, stderr, code = runWith(t, baseEnv(), "go\n3\n", "--plain", "--engine", "native", "--script", script)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "A1=green\n")
}
