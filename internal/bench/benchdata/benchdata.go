// Package benchdata holds the inputs every askcore benchmark uses, so that the
// native, wazero and Node figures measure the same work: a typical request
// with a header, four options (one recommended, descriptions, one value that
// differs from its label) and free text allowed.
package benchdata

import (
	_ "embed"
	"os"
	"slices"
	"strings"
)

// Request is the typical 4-option request, compact JSON. It lives in
// request.json so that the Node bench (hostjs/bench) reads the very same text.
var Request = strings.TrimSpace(requestJSON)

//go:embed request.json
var requestJSON string

// Op is one benchmarked envelope.
type Op struct {
	Name  string
	Input []byte
}

// Ops are the benchmarked envelopes, in table order.
var Ops = []Op{
	{"normalize", []byte(`{"op":"normalize","request":` + Request + `}`)},
	{"resolve", []byte(`{"op":"resolve","request":` + Request + `,"input":"2"}`)},
	{"elicitation", []byte(`{"op":"elicitation","request":` + Request + `}`)},
}

// ChildEnv is the environment of a benchmarked child binary: this
// process's, without the model keys (nothing may reach a network), the log
// level and any variable named in drop, with a cache of its own.
func ChildEnv(cacheHome string, drop ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "XDG_CACHE_HOME", k == "DEEPSEEK_API_KEY", k == "OPENAI_API_KEY", k == "OPENAI_BASE_URL", k == "OPENAI_MODEL", k == "ASKCORE_LOG",
			slices.Contains(drop, k):
			continue
		}
		out = append(out, kv)
	}
	return append(out, "XDG_CACHE_HOME="+cacheHome)
}
