package askcore

import (
	"context"

	"github.com/askcore/askcore/core"
)

// Engine runs askcore's rules: one JSON envelope in, one out (the
// envelope, its ops and their fields are specified in docs/SPEC.md). The
// error is for faults of the engine itself only (a trap, a closed engine,
// a cancelled ctx); a request the rules refuse comes back as an ok:false
// envelope, never as an error.
//
// Native is the default engine. The WebAssembly engine, the same rules
// compiled to wasm and run by wazero, is *hostgo.Engine (package
// github.com/askcore/askcore/hostgo): both write the same bytes for the
// same input.
type Engine interface {
	Handle(ctx context.Context, input []byte) ([]byte, error)
}

// Native runs the rules as ordinary Go code, in the calling goroutine. It
// links no WebAssembly runtime and no embedded module. The zero value is
// ready to use.
type Native struct{}

// Handle calls the core directly; it never fails.
func (Native) Handle(_ context.Context, input []byte) ([]byte, error) {
	return core.Handle(input), nil
}

// EngineError is a fault of the engine (a trap, a closed engine, a
// cancelled ctx, an envelope the engine did not write), not a verdict of
// the rules. The seam reports it to the model as the core's engine_fault
// situation and keeps Err for logs.
type EngineError struct{ Err error }

func (e *EngineError) Error() string { return "askcore engine: " + e.Err.Error() }
func (e *EngineError) Unwrap() error { return e.Err }
