package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/frontdoor"
)

// The commands that take no names refuse one as a usage error (exit 2)
// naming the command, before the store is opened.
func TestCommandsWithoutArguments(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hub.db")
	for _, cmd := range [][]string{{"serve"}, {"agent", "list"}, {"login"}, {"log"}, {"notify", "list"}} {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append(cmd, "extra", "--db", db), &out, &errb, func(string) string { return "" })
			assert.Equal(t, 2, code)
			assert.Contains(t, errb.String(), "askcore-hub: "+strings.Join(cmd, " ")+" takes no arguments\n")
			assert.Empty(t, out.String())
			assert.NoFileExists(t, db, "the store was not opened")
		})
	}
}

// --version prints "askcore-hub VERSION (COMMIT)" on stdout and exits 0,
// opening no store.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--version"}, &out, &errb, func(string) string { return "" })
	assert.Equal(t, 0, code)
	assert.Equal(t, frontdoor.VersionLine("askcore-hub")+"\n", out.String())
	assert.Regexp(t, `^askcore-hub \S+ \(\S+\)\n$`, out.String())
	assert.Empty(t, errb.String())
}
