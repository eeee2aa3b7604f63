package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNPMVersion(t *testing.T) {
	for _, c := range []struct{ version, npm string }{
		{"v1.2.3", "1.2.3"},
		{"v1.2.3-rc.1", "1.2.3-rc.1"},
		{"v1.2.3-4-gabcdef1", "1.2.3-4-gabcdef1"}, // git describe after a tag
		{"1408d09", "0.0.0-dev-1408d09"},          // git describe before the first tag
		{"0123456", "0.0.0-dev-0123456"},          // all digits: one identifier still
		{"v1.2", "0.0.0-dev-v1-2"},                // Go's shorthand is no npm version
		{"v1.2.3+build", "0.0.0-dev-v1-2-3-build"},
	} {
		assert.Equal(t, c.npm, NPMVersion(c.version), c.version)
	}
}

func TestParsePlatforms(t *testing.T) {
	all, err := ParsePlatforms("")
	require.NoError(t, err)
	assert.Equal(t, Platforms, all)
	some, err := ParsePlatforms("windows/arm64, linux/amd64,linux/amd64")
	require.NoError(t, err)
	assert.Equal(t, []string{"linux/amd64", "windows/arm64"}, some, "the release's order, once each")
	_, err = ParsePlatforms("linux/386")
	assert.ErrorContains(t, err, `platform "linux/386": not one of`)
}

// A package.json keeps its template's order and writes ">" as itself.
func TestObject(t *testing.T) {
	o, err := readObject([]byte(`{"name": "@askcore/mcp", "version": "0.0.0", "engines": {"node": ">=18"}, "optionalDependencies": {}}`))
	require.NoError(t, err)
	o.set("version", "1.2.3")
	o.set("optionalDependencies", object{{"@askcore/mcp-linux-x64", "1.2.3"}, {"@askcore/mcp-darwin-arm64", "1.2.3"}})
	o.set("added", true)
	b, err := o.indent()
	require.NoError(t, err)
	assert.Equal(t, `{
  "name": "@askcore/mcp",
  "version": "1.2.3",
  "engines": {
    "node": ">=18"
  },
  "optionalDependencies": {
    "@askcore/mcp-linux-x64": "1.2.3",
    "@askcore/mcp-darwin-arm64": "1.2.3"
  },
  "added": true
}
`, string(b))
}
