package pagetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Browser stands in for the browser an answer page opens: a script that
// records each URL it is given. It is both the command of
// ASKCORE_BROWSER (Env) and xdg-open on a PATH (PathEnv), the opener of
// a Linux desktop session.
type Browser struct {
	t      testing.TB
	dir    string
	record string
}

// OpenCase is one environment a page is started in, and whether it opens
// the browser there.
type OpenCase struct {
	Name   string
	Env    []string
	Args   []string // the front door's own
	Opened bool
}

// OpenCases are the environments every front door's page is tried in: a
// desktop session opens the browser (b as xdg-open on the PATH); no
// desktop, --no-browser and ASKCORE_BROWSER=none do not.
func (b *Browser) OpenCases() []OpenCase {
	path := b.PathEnv()
	return []OpenCase{
		{"desktop", []string{path, "DISPLAY=:99", "ASKCORE_BROWSER="}, nil, true},
		{"no desktop", []string{path, "DISPLAY=", "WAYLAND_DISPLAY=", "ASKCORE_BROWSER="}, nil, false},
		{"--no-browser", []string{path, "DISPLAY=:99", "ASKCORE_BROWSER="}, []string{"--no-browser"}, false},
		{"ASKCORE_BROWSER=none", []string{path, "DISPLAY=:99", "ASKCORE_BROWSER=none"}, nil, false},
	}
}

// NewBrowser writes the script into a temporary directory of t.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	dir := t.TempDir()
	b := &Browser{t: t, dir: dir, record: filepath.Join(dir, "opened")}
	script := []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + b.record + "\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "xdg-open"), script, 0o755))
	return b
}

// Env is the environment entry that makes the script the browser:
// ASKCORE_BROWSER naming it.
func (b *Browser) Env() string { return "ASKCORE_BROWSER=" + filepath.Join(b.dir, "xdg-open") }

// PathEnv is the environment entry that puts the script first on the
// PATH as xdg-open, for a page that opens the desktop's default browser.
func (b *Browser) PathEnv() string {
	return "PATH=" + b.dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// Opened returns the URLs the script was given so far, in order.
func (b *Browser) Opened() []string {
	data, err := os.ReadFile(b.record)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(b.t, err)
	return strings.Fields(string(data))
}

// WaitOpened waits for the script to have been given a URL (the page
// starts the browser in the background) and returns the URLs; it fails
// the test after Patience.
func (b *Browser) WaitOpened() []string {
	b.t.Helper()
	deadline := time.After(Patience)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if urls := b.Opened(); len(urls) > 0 {
			return urls
		}
		select {
		case <-tick.C:
		case <-deadline:
			b.t.Fatalf("no browser was opened within %s", Patience)
		}
	}
}

// Reset forgets the URLs recorded so far.
func (b *Browser) Reset() {
	b.t.Helper()
	if err := os.Remove(b.record); err != nil && !os.IsNotExist(err) {
		require.NoError(b.t, err)
	}
}
