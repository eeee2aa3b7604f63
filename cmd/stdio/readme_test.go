package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeTranscripts runs the askcore-stdio examples of the project
// README and compares what they print with the transcripts shown there,
// so the README stays true.
func TestReadmeTranscripts(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	printfArg := strings.NewReplacer(`\n`, "\n")

	// The scripted chat: stdout is the transcript.
	chat := regexp.MustCompile("(?s)```sh\ncat > pick.jsonl <<'JSON'\n(.*?)JSON\nprintf '([^']*)' \\| bin/askcore-stdio --script pick.jsonl\n```\n\n```text\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, chat, 1, "the README's --script example")
	script := t.TempDir() + "/pick.jsonl"
	require.NoError(t, os.WriteFile(script, []byte(chat[0][1]), 0o600))
	stdout, stderr, code := runWith(t, baseEnv(), printfArg.Replace(chat[0][2]), "--script", script)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, chat[0][3], stdout)

	// ask: the prompts (stderr) and then the answer (stdout).
	asks := regexp.MustCompile("(?s)```sh\nreq='([^']*)'\nprintf '([^']*)' \\| askcore-stdio ask --request \"\\$req\"\n```\n\n```text\n(.*?)```").
		FindAllStringSubmatch(readme, -1)
	require.Len(t, asks, 2, "the README's multi-select and batch examples")
	for _, ex := range asks {
		stdout, stderr, code := runWith(t, baseEnv(), printfArg.Replace(ex[2]), "ask", "--request", ex[1])
		require.Equal(t, askExitOK, code, stdout)
		assert.Equal(t, ex[3], strings.TrimPrefix(stderr, "\n")+stdout)
	}
}
