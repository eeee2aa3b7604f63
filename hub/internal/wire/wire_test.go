package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/hub/internal/wire"
)

// TestParseReply: the four reply shapes, written again canonically; any
// other object is refused with a message naming the shapes.
func TestParseReply(t *testing.T) {
	for in, want := range map[string]string{
		`{"lines":["1","two"]}`:                                  `{"lines":["1","two"]}`,
		`{ "picks" : [ {"options":[0,2],"text":"x"} ] }`:         `{"picks":[{"options":[0,2],"text":"x"}]}`,
		`{"picks":[{}]}`:                                         `{"picks":[{"options":[],"text":""}]}`,
		`{"form":{"action":"accept", "content":{"choice":"A"}}}`: `{"form":{"action":"accept","content":{"choice":"A"}}}`,
		`{"decline":true}`:                                       `{"decline":true}`,
	} {
		_, got, err := wire.ParseReply([]byte(in))
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, string(got), in)
		}
	}
	for _, in := range []string{``, `null`, `[]`, `{}`, `{"lines":["1"],"decline":true}`, `{"decline":false}`,
		`{"form":"accept"}`, `{"form":[1]}`, `{"lines":[1]}`, `{"other":1}`, `{"lines":["1"]} {}`, `{"picks":[{"options":["a"]}]}`} {
		_, _, err := wire.ParseReply([]byte(in))
		assert.Error(t, err, in)
	}
}
