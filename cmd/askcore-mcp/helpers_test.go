package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/testing/leaktest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// waitLong bounds every wait of a test: long enough for a loaded 2-core
// machine under -race, short enough to fail rather than hang.
const waitLong = 30 * time.Second

// maxLineBytes is askcore-mcp's line limit: the core's input limit
// (mcpserver TestLineLimitIsTheCoresInputLimit).
const maxLineBytes = core.MaxInputBytes

// nativeCore runs the core as Go code: the tests compare the program's
// bytes with the core's own.
var nativeCore = askcore.NewCore(askcore.Native{})

const (
	choiceArgs = `{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres","description":"a server"},{"label":"SQLite","value":"sqlite","recommended":true}],"allowCustom":true}`
	openArgs   = `{"question":"What should the project be called?"}`
)

// waitMatch waits until the text written to s matches re, and returns
// the first match's submatches; it fails after waitLong.
func waitMatch(t *testing.T, s *syncbuf.Buffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		changed := s.Changed()
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("nothing matching %s within %s in:\n%s", re, waitLong, s.String())
			return nil
		}
	}
}

// normalized is the core's normalized call for args, the bytes the page
// receives.
func normalized(t *testing.T, args string) string {
	t.Helper()
	call, err := nativeCore.Normalize(context.Background(), args)
	require.NoError(t, err)
	return string(call.JSON())
}
