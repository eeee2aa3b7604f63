package core

import (
	"testing"

	"github.com/askcore/askcore/internal/bench/benchdata"
)

// BenchmarkHandle measures one envelope per op on a typical 4-option
// request; the performance table compares these with the WASM hosts.
func BenchmarkHandle(b *testing.B) {
	// The typical 4-option request every askcore benchmark uses, so the
	// native, wazero and Node figures measure the same work.
	req := benchdata.Request
	for _, c := range []struct{ name, in string }{
		{"normalize", env("normalize", req)},
		{"schema", `{"op":"schema"}`},
		{"present", env("present", req)},
		{"resolve", env("resolve", req, `"input":"2"`)},
		{"elicitation", env("elicitation", req)},
		{"elicitation_result", env("elicitation_result", req, `"response":{"action":"accept","content":{"choice":"mongo"}}`)},
		{"invalid", `{"op":"normalize","request":{"question":"Q?","options":[{"label":"A"},{"label":"a"}]}}`},
	} {
		in := []byte(c.in)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Handle(in)
			}
		})
	}
}
