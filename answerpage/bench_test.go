package answerpage

import (
	"testing"

	"github.com/askcore/askcore/wasm"
)

// BenchmarkGzipWasm is what the first page load may wait for: askcore.wasm
// compressed (done once per process, as the server starts).
func BenchmarkGzipWasm(b *testing.B) {
	for b.Loop() {
		f := &staticFile{body: wasm.Binary}
		if f.gzipped() == nil {
			b.Fatal("not compressed")
		}
	}
}
