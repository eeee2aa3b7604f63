package pagehttp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/wasm"
)

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "deflate, gzip;q=0.5": true, "br": false, "*": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "identity": false, "x-gzip": false,
	} {
		assert.Equal(t, want, AcceptsGzip(h), "%q", h)
	}
}

// BenchmarkGzipWasm is what the first page load may wait for: askcore.wasm
// compressed (done once per process, as the server starts).
func BenchmarkGzipWasm(b *testing.B) {
	for b.Loop() {
		f := &file{body: wasm.Binary}
		if f.gzipped() == nil {
			b.Fatal("not compressed")
		}
	}
}
