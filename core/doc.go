// Package core holds every rule of askcore's ask_user_question tool: pure
// Go, standard library only, no I/O, goroutines, clock or randomness. The
// same code runs natively and compiled to a WASI reactor under wazero, Node
// and browsers; for the same input bytes every surface returns the same
// output bytes.
//
// [Handle] is the one entry point: a JSON envelope {"op": OP, ...} in,
// {"ok":true,"result":...} or {"ok":false,"error":{...}} out, never a
// panic. The ops (normalize, schema, present, resolve, picker, summary,
// elicitation, elicitation_result, fail, terminal, sanitize), the request
// and answer vocabulary, the rules, the limits and every message are
// specified in docs/SPEC.md of the repository; the conformance corpus
// (testdata/conformance) holds them as exact bytes.
//
// Go programs do not call this package: they use the module's root package
// (github.com/askcore/askcore), which speaks the envelope in Go types on
// either engine. What core exports beyond Handle is what the root package
// and the hosts cannot live without: the limits (so a host refuses an
// oversized input before copying it, [MaxInputBytes], [MaxArgumentsBytes],
// [MaxFailTextChars], [MaxFailTools]), the envelope a host returns when
// the engine itself failed ([FaultEnvelope], [OversizedEnvelope]), the
// names on the wire ([ToolName], [ErrorName], [ToolErrorName]) and the
// rule for one shown character ([Shown]).
//
// All JSON goes through core/internal/jsonx (no encoding/json, fmt or
// reflect here), which keeps the WebAssembly module small; its output
// escapes exactly as encoding/json does, so a host that re-marshals the
// core's bytes with the standard library gets them unchanged.
package core
