package core

import "testing"

// BenchmarkHandle measures one envelope per op on a typical 4-option
// request; the performance table compares these with the WASM hosts.
func BenchmarkHandle(b *testing.B) {
	const req = `{"header":"Database","question":"Which database should I use for the new service?","options":[` +
		`{"label":"PostgreSQL","value":"postgres","description":"Reliable and featureful; needs a server."},` +
		`{"label":"SQLite","value":"sqlite","description":"A single file, no server to run.","recommended":true},` +
		`{"label":"MySQL","value":"mysql","description":"Widely hosted."},` +
		`{"label":"DuckDB","value":"duckdb","description":"Columnar, for analytics."}],"allowCustom":true}`
	for _, c := range []struct{ name, in string }{
		{"normalize", env("normalize", req)},
		{"schema", `{"op":"schema"}`},
		{"present", env("present", req)},
		{"resolve", env("resolve", req, `"input":"postgresql"`)},
		{"elicitation", env("elicitation", req)},
		{"elicitation_result", env("elicitation_result", req, `"response":{"action":"accept","content":{"choice":"duckdb"}}`)},
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
