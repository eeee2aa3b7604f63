// Package frontdoor holds what both binaries share: the model settings of
// contract.md section 6 (--script, DEEPSEEK_API_KEY, OPENAI_API_KEY, the
// built-in demo) and the --engine choice.
//
// API SKETCH: bodies marked TODO are filled in by issue 5.
package frontdoor

import (
	"context"
	"flag"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/engine"
)

// Settings are the flags both front doors take.
type Settings struct {
	Script string // --script FILE: a scripted model (JSON Lines)
	Engine string // --engine wasm|native
}

// AddFlags registers --script and --engine on fs.
func (s *Settings) AddFlags(fs *flag.FlagSet) { panic("TODO(issue 5)") }

// ModelSource says which backend Model chose.
type ModelSource string

const (
	SourceScript   ModelSource = "script"
	SourceDeepSeek ModelSource = "deepseek"
	SourceOpenAI   ModelSource = "openai"
	SourceDemo     ModelSource = "demo"
)

// Model picks the backend: --script, else DEEPSEEK_API_KEY, else
// OPENAI_API_KEY (with OPENAI_BASE_URL, OPENAI_MODEL), else the built-in
// demo. getenv is os.Getenv outside tests. The model is safe to share
// between conversations: a scripted model replays from its first line for
// each conversation (each Agent's History).
func (s Settings) Model(getenv func(string) string) (agent.Model, ModelSource, error) {
	panic("TODO(issue 5)")
}

// Open starts the chosen engine and returns a client for it and a func that
// releases it.
func (s Settings) Open(ctx context.Context) (engine.Client, func(context.Context) error, error) {
	panic("TODO(issue 5)")
}
