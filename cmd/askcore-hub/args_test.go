package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/pgtest"
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

// TestMetricsTokenNeverAFlagValue: the metrics token comes from a file or
// the environment; a flag that would show it in the process list is
// refused.
func TestMetricsTokenNeverAFlagValue(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hub.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--db", db, "--metrics-token", "s3cret"}, &out, &errb, func(string) string { return "" })
	assert.Equal(t, 2, code, "--metrics-token is not a flag: %s", errb.String())
	assert.NoFileExists(t, db)

	file := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	env := func(k string) string { return map[string]string{"ASKCORE_HUB_METRICS_TOKEN": "from-env"}[k] }
	for _, tc := range []struct {
		name, file string
		getenv     func(string) string
		want, err  string
	}{
		{"the file", file, env, "from-file", ""},
		{"the environment", "", env, "from-env", ""},
		{"none", "", func(string) string { return "" }, "", ""},
		{"a missing file", filepath.Join(dir, "none"), env, "", "--metrics-token-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cli{getenv: tc.getenv, metricsTokenFile: tc.file}
			got, err := c.metricsToken()
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDBPasswordNeverAFlagValue: a PostgreSQL URL with a password (in
// its user part or as ?password=) is refused as --db's value, a usage
// error that says where the password goes instead, before the store is
// opened; the same URL in ASKCORE_HUB_DB opens the store.
func TestDBPasswordNeverAFlagValue(t *testing.T) {
	u, err := url.Parse(pgtest.NewDB(t)) // trust authentication: a password is not checked
	require.NoError(t, err)
	withPassword := func(f func(u *url.URL)) string {
		c := *u
		f(&c)
		return c.String()
	}
	inUser := withPassword(func(u *url.URL) { u.User = url.UserPassword(u.User.Username(), "s3cret") })
	inQuery := withPassword(func(u *url.URL) { q := u.Query(); q.Set("password", "s3cret"); u.RawQuery = q.Encode() })
	for _, tc := range []struct {
		name, flag, env string
		code            int
	}{
		{"in --db's user part", inUser, "", 2},
		{"in --db's query", inQuery, "", 2},
		{"in --db, though the environment has it too", inUser, inUser, 2},
		{"in ASKCORE_HUB_DB", "", inUser, 0},
		{"in ASKCORE_HUB_DB, as ?password=", "", inQuery, 0},
		{"--db without a password", u.String(), "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"agent", "list"}
			if tc.flag != "" {
				args = append(args, "--db", tc.flag)
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), args, &out, &errb, func(k string) string {
				return map[string]string{"ASKCORE_HUB_DB": tc.env, "USER": "ada"}[k]
			})
			require.Equal(t, tc.code, code, "stderr: %s", errb.String())
			if tc.code == 0 {
				assert.Contains(t, out.String(), "NAME", "the store opened: the agents' list")
				return
			}
			assert.Equal(t, "askcore-hub: --db: a password in the URL shows in the process list: give the URL in $ASKCORE_HUB_DB instead, or leave the password out and keep it in ~/.pgpass or $PGPASSWORD\n", errb.String())
			assert.Empty(t, out.String())
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
