// Package hostgo runs the askcore WebAssembly core under wazero.
//
// STUB: replaced by the real implementation (issue 3).
package hostgo

import (
	"context"

	"github.com/askcore/askcore/core"
)

type Option func(*config)

type config struct{}

type Engine struct{}

func New(ctx context.Context, opts ...Option) (*Engine, error) { return &Engine{}, nil }

func (e *Engine) Handle(ctx context.Context, input []byte) ([]byte, error) {
	return core.Handle(input), nil
}

func (e *Engine) Close(ctx context.Context) error { return nil }
