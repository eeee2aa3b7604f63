package core

// Handle is the one entry point every surface exposes: a JSON envelope in,
// a JSON envelope out. It never panics.
//
// STUB: replaced by the real implementation (issue 2).
func Handle(input []byte) []byte {
	return []byte(`{"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"not implemented"}}`)
}
