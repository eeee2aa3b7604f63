package wasm

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The embedded gzip inflates to the committed module, the one hostjs and
// npm ship, whose sha256 askcore.wasm.sha256 records.
func TestBinary(t *testing.T) {
	require.Len(t, SHA256, 64, "SHA256 is 64 hex digits")
	sum := sha256.Sum256(Binary())
	assert.Equal(t, SHA256, hex.EncodeToString(sum[:]), "askcore.wasm.sha256 and the embedded module: run make wasm")
	raw, err := os.ReadFile("askcore.wasm")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(raw, Binary()), "askcore.wasm.gz does not inflate to askcore.wasm: run make wasm")
	assert.Same(t, &Binary()[0], &Binary()[0], "inflated once, the same bytes every call")
}

// inflate refuses what is not the module, loudly rather than with other
// bytes.
func TestInflate(t *testing.T) {
	module := []byte("\x00asm\x01\x00\x00\x00 a module")
	h := sha256.Sum256(module)
	sum := hex.EncodeToString(h[:])
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	good := gz(module)
	flipped := bytes.Clone(good)
	flipped[12] ^= 0xff // in the deflate stream
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-8] ^= 0xff
	for _, c := range []struct {
		name string
		gz   []byte
		sum  string
		err  string // "" for none
	}{
		{"the module", good, sum, ""},
		{"another module than the sum names", gz([]byte("\x00asm\x01\x00\x00\x00 another")), sum, "inflates to sha256"},
		{"not gzip", module, sum, "askcore.wasm.gz"},
		{"truncated", good[:len(good)-10], sum, "askcore.wasm.gz"},
		{"a flipped byte", flipped, sum, "askcore.wasm.gz"},
		{"a wrong CRC-32", badCRC, sum, "askcore.wasm.gz"},
		{"two members, the trailer naming the second's size", append(bytes.Clone(good), good...), sum, "does not end"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := inflate(c.gz, c.sum)
			if c.err == "" {
				require.NoError(t, err)
				assert.Equal(t, module, b)
				return
			}
			assert.ErrorContains(t, err, c.err)
			assert.Nil(t, b)
		})
	}
}

// BenchmarkInflate is what the first wasm.Binary() of a process costs:
// the embedded gzip inflated and its sha256 checked (make bench times it
// in fresh processes, internal/bench/engine).
func BenchmarkInflate(b *testing.B) {
	b.SetBytes(int64(len(Binary())))
	for b.Loop() {
		if _, err := inflate(Gzip, SHA256); err != nil {
			b.Fatal(err)
		}
	}
}
