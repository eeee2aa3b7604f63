// Package missing is the one rule for a test whose tool is not installed
// (mailpit, Chromium, PostgreSQL, tmux): on a developer's machine the
// test skips, saying how to install the tool; in CI (CI=true, as .ci/run
// runs, which installs every tool) it fails with the same words, so that
// a tool CI lost shows as a failure, not as tests that quietly stopped
// running. scripts/test-hosts.sh and scripts/test-install.sh keep the
// same rule, and so does hostjs/test/helpers.mjs (skipWithout).
package missing

import (
	"os"
	"testing"
)

// InCI reports whether the run is CI's: CI is "true".
func InCI() bool { return os.Getenv("CI") == "true" }

// Tool ends t for want of a tool: why names the tool and how to install
// it. It skips t, or fails it in CI.
func Tool(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatal(why + " (CI=true: .ci/run installs it, so a missing tool fails the run)")
		return
	}
	t.Skip("SKIP: " + why)
}
