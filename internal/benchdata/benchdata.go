// Package benchdata holds the inputs every askcore benchmark uses, so that the
// native, wazero and Node figures measure the same work: a typical request
// with a header, four options (one recommended, descriptions, one value that
// differs from its label) and free text allowed.
package benchdata

// Request is the typical 4-option request.
const Request = `{"header":"Database","question":"Which database should the new service use?",` +
	`"options":[` +
	`{"label":"PostgreSQL","description":"Relational, strong consistency, the team knows it","recommended":true},` +
	`{"label":"SQLite","description":"Embedded, zero setup, single writer"},` +
	`{"label":"MongoDB","value":"mongo","description":"Document store, flexible schema"},` +
	`{"label":"Redis","description":"In-memory key-value store"}],` +
	`"allowCustom":true}`

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
