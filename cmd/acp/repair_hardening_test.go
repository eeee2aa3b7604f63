package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// responseRepair changes only responses the SDK would drop; everything else,
// long lines included, passes through byte for byte.
func TestResponseRepair(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"` + strings.Repeat("a", repairBufferBytes+10) + `"}}`
	kept := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"session/prompt","id":2,"params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":7,"id":3}`,       // a bad request: not ours to answer
		`{"jsonrpc":"2.0","id":{"o":1},"result":1}`, // no usable id
		`{"jsonrpc":"2.0","id":null,"error":{"code":"x"}}`,
		`not json`,
		``,
		long, // too long to inspect: passed through
	}
	repaired := map[string]string{
		`{"jsonrpc":"2.0","id":5,"error":{"code":"boom","message":42}}`: `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"the client sent a malformed response"}}`,
		`{"jsonrpc":2,"id":"k","result":{}}`:                            `{"jsonrpc":"2.0","id":"k","error":{"code":-32603,"message":"the client sent a malformed response"}}`,
		`  {"jsonrpc":"2.0","id":6,"error":{"code":1.5,"message":"m"}}`: `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"the client sent a malformed response"}}`,
	}
	var in, want bytes.Buffer
	for _, l := range kept {
		in.WriteString(l + "\n")
		want.WriteString(l + "\n")
	}
	for l, r := range repaired {
		in.WriteString(l + "\n")
		want.WriteString(r + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":9,"result":null}`) // last line without a newline
	want.WriteString(`{"jsonrpc":"2.0","id":9,"result":null}`)

	got, err := io.ReadAll(iotest.OneByteReader(newResponseRepair(iotest.HalfReader(bytes.NewReader(in.Bytes())))))
	require.NoError(t, err)
	if !bytes.Equal(want.Bytes(), got) {
		wl, gl := strings.Split(want.String(), "\n"), strings.Split(string(got), "\n")
		require.Equal(t, len(wl), len(gl))
		for i := range wl {
			assert.Equal(t, wl[i], gl[i], "line %d", i)
		}
	}
}
