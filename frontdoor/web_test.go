package frontdoor_test

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

func TestWebModePage(t *testing.T) {
	for _, c := range []struct {
		mode       frontdoor.WebMode
		form, page bool
	}{
		{frontdoor.WebAuto, false, true},
		{frontdoor.WebAuto, true, false},
		{frontdoor.WebAlways, true, true},
		{frontdoor.WebAlways, false, true},
		{frontdoor.WebNever, false, false},
		{frontdoor.WebNever, true, false},
	} {
		assert.Equal(t, c.page, c.mode.Page(c.form), "%s form=%v", c.mode, c.form)
	}
}

// One set of web flags, one help text, for every front door.
func TestWebFlags(t *testing.T) {
	var w frontdoor.Web
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	w.AddFlags(fs)
	require.NoError(t, fs.Parse(nil))
	assert.Equal(t, frontdoor.Web{Mode: frontdoor.WebAuto, Addr: answerpage.DefaultAddr}, w)
	require.NoError(t, fs.Parse([]string{"--web=always", "--no-browser", "--web-addr", "127.0.0.1:8765"}))
	assert.Equal(t, frontdoor.Web{Mode: frontdoor.WebAlways, NoBrowser: true, Addr: "127.0.0.1:8765"}, w)
	assert.Len(t, w.PageOptions(io.Discard, nil), 3)
	assert.Error(t, fs.Parse([]string{"--web=sometimes"}))

	var help bytes.Buffer
	fs = flag.NewFlagSet("y", flag.ContinueOnError)
	fs.SetOutput(&help)
	(&frontdoor.Web{}).AddPageFlags(fs)
	fs.PrintDefaults()
	assert.Contains(t, help.String(), "ASKCORE_BROWSER=none")
	assert.Contains(t, help.String(), "-web-addr HOST:PORT")
	assert.NotContains(t, help.String(), "-web MODE", "a front door whose --web is its own")
}
