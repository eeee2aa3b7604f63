package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// terminalDoc is the page that documents askcore-stdio, whose examples
// these tests run.
const terminalDoc = "../../docs/terminal.md"

// TestReadmeTranscripts runs the askcore-stdio examples of docs/terminal.md
// and compares what they print with the transcripts shown there, so the
// page stays true.
func TestReadmeTranscripts(t *testing.T) {
	b, err := os.ReadFile(terminalDoc)
	require.NoError(t, err)
	readme := string(b)
	printfArg := strings.NewReplacer(`\n`, "\n")

	// The scripted chat: stdout is the transcript.
	chat := regexp.MustCompile("(?s)```sh\ncat > pick.jsonl <<'JSON'\n(.*?)JSON\nprintf '([^']*)' \\| bin/askcore-stdio --script pick.jsonl\n```\n\n```text\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, chat, 1, "docs/terminal.md's --script example")
	script := t.TempDir() + "/pick.jsonl"
	require.NoError(t, os.WriteFile(script, []byte(chat[0][1]), 0o600))
	stdout, stderr, code := runWith(t, baseEnv(), printfArg.Replace(chat[0][2]), "--script", script)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, chat[0][3], stdout)

	// ask: the prompts (stderr) and then the answer (stdout).
	asks := regexp.MustCompile("(?s)```sh\nreq='([^']*)'\nprintf '([^']*)' \\| askcore-stdio ask --request \"\\$req\"\n```\n\n```text\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, asks, 2, "docs/terminal.md's multi-select and batch examples")
	for _, ex := range asks {
		stdout, stderr, code := runWith(t, baseEnv(), printfArg.Replace(ex[2]), "ask", "--request", ex[1])
		require.Equal(t, askExitOK, code, stdout)
		assert.Equal(t, ex[3], strings.TrimPrefix(stderr, "\n")+stdout)
	}
}

// TestReadmePicker types the keys docs/terminal.md's keyboard picker section
// describes into the binary on a real terminal (tmux, 100x30) and compares
// the screen with the captures shown there.
func TestReadmePicker(t *testing.T) {
	b, err := os.ReadFile(terminalDoc)
	require.NoError(t, err)
	readme := string(b)
	single := regexp.MustCompile("(?s)```sh\nreq='([^']*)'\naskcore-stdio ask --request \"\\$req\"\n```\n\n```text\n(.*?)```\n\n[^`]*```text\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, single, 1, "docs/terminal.md's picker example")
	batch := regexp.MustCompile("(?s)Space toggled `#ops`:\n\n```text\n(.*?)```").FindStringSubmatch(readme)
	require.NotNil(t, batch, "docs/terminal.md's batch capture")
	batchReq := regexp.MustCompile("(?s)```sh\nreq='([^']*)'\nprintf '[^']*' \\| askcore-stdio ask --request \"\\$req\"\n```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, batchReq, 2, "docs/terminal.md's multi-select and batch examples")

	tm := newTmux(t)
	dir := t.TempDir()
	visible := func(name string) string { return strings.TrimRight(tm.Pane(name, false), "\n") + "\n" }

	req := writeFile(t, dir, "single.json", single[0][1])
	tm.Session("single", 100, 30, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)"`, bin, req))
	tm.WaitCursor("single", "1. PostgreSQL")
	assert.Equal(t, single[0][2], visible("single"))
	tm.Keys("single", "Down")
	tm.WaitCursor("single", "2. SQLite")
	tm.Keys("single", "Enter")
	tm.WaitFor("single", "[exit 0]")
	assert.Equal(t, single[0][3]+"[exit 0]\n", visible("single"))

	req = writeFile(t, dir, "batch.json", batchReq[1][1])
	tm.Session("batch", 100, 30, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > /dev/null`, bin, req))
	tm.WaitFor("batch", "Question 1 of 2")
	tm.Keys("batch", "Enter")
	tm.WaitFor("batch", "Question 2 of 2")
	tm.Keys("batch", "Space")
	tm.WaitCursor("batch", "[x] 1. #ops")
	assert.Equal(t, batch[1], visible("batch"))
	tm.Keys("batch", "Escape")
	tm.WaitFor("batch", "[exit 5]")
}
