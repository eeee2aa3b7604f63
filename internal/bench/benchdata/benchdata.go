// Package benchdata holds the inputs every askcore benchmark uses, so that the
// native, wazero and Node figures measure the same work: a typical request
// with a header, four options (one recommended, descriptions, one value that
// differs from its label) and free text allowed.
package benchdata

import (
	_ "embed"
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
