package frontdoor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/model/script"
)

// Names of the engines --engine chooses between.
const (
	EngineWasm   = "wasm"   // the WebAssembly core under wazero (package hostgo)
	EngineNative = "native" // the same rules compiled as Go code (askcore.Native)
)

// OpenEngine starts the engine called name (EngineWasm, the default when
// name is empty, or EngineNative) and returns it with a func that
// releases it. opts tune the wasm engine.
func OpenEngine(ctx context.Context, name string, opts ...hostgo.Option) (askcore.Engine, func(context.Context) error, error) {
	switch name {
	case EngineNative:
		return askcore.Native{}, func(context.Context) error { return nil }, nil
	case EngineWasm, "":
		e, err := hostgo.New(ctx, opts...)
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown engine %q: want %q or %q", name, EngineWasm, EngineNative)
}

// Settings are the flags both front doors take.
type Settings struct {
	Script string // --script FILE: a scripted model (JSON Lines)
	Engine string // --engine wasm|native
	// Timeout, when positive, ends each question of the ask tool Build
	// registers with ASK_TIMEOUT (off by default).
	Timeout time.Duration
	// FromEnv, when set, is asked for a model the environment configures
	// (openaimodel.FromEnv: DEEPSEEK_API_KEY, OPENAI_API_KEY) when there
	// is no --script. A front door with a model sets it; it is a field and
	// not an import so that the binaries without a model (askcore-mcp,
	// askcore-hub) do not link an HTTP model client (RATIONALE.md).
	FromEnv ModelFromEnv
}

// A ModelFromEnv returns the model the environment configures, which
// backend it is and a one-line description for people, or a nil model
// when the environment configures none.
type ModelFromEnv func(getenv func(string) string) (agent.Model, ModelSource, string, error)

// AddFlags registers --script and --engine on fs.
func (s *Settings) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.Script, "script", s.Script,
		"play the scripted model in `FILE` (JSON Lines, one model reply per line) instead of a real model")
	s.AddEngineFlag(fs)
}

// AddEngineFlag registers --engine alone, for commands that run the core
// without a model (askcore-stdio ask).
func (s *Settings) AddEngineFlag(fs *flag.FlagSet) {
	def := s.Engine
	if def == "" {
		def = EngineWasm
	}
	fs.StringVar(&s.Engine, "engine", def,
		"where the askcore rules run: wasm (the WebAssembly core under wazero) or native")
}

// ModelSource says which backend Model chose.
type ModelSource string

const (
	SourceScript   ModelSource = "script"
	SourceDeepSeek ModelSource = "deepseek"
	SourceOpenAI   ModelSource = "openai"
	SourceDemo     ModelSource = "demo"
)

// Model picks the backend: --script, else what FromEnv finds, else the
// built-in demo. getenv is os.Getenv outside tests. The model is safe to share
// between conversations: a scripted model replays from its first line for
// each conversation (each Agent's History).
func (s Settings) Model(getenv func(string) string) (agent.Model, ModelSource, error) {
	m, src, _, err := s.model(getenv)
	return m, src, err
}

// model is Model plus a one-line description for people.
func (s Settings) model(getenv func(string) string) (agent.Model, ModelSource, string, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if s.Script != "" {
		m, err := script.Load(s.Script)
		if err != nil {
			return nil, "", "", err
		}
		return m, SourceScript, fmt.Sprintf("scripted model %s (%d replies)", s.Script, m.Len()), nil
	}
	if s.FromEnv != nil {
		m, src, info, err := s.FromEnv(getenv)
		if err != nil || m != nil {
			return m, src, info, err
		}
	}
	return script.Demo(), SourceDemo, "the built-in demo script (offline; set DEEPSEEK_API_KEY or OPENAI_API_KEY, or pass --script FILE)", nil
}

// Open starts the chosen engine and returns a core on it and a func that
// releases it. The wasm engine is opened at the first call that needs it
// and released, with its compiled module, after two minutes without a call
// (lazyEngine): a front door waiting for a question holds no engine, and a
// broken module fails that call rather than Open.
func (s Settings) Open(ctx context.Context) (*askcore.Core, func(context.Context) error, error) {
	if s.Engine == EngineWasm || s.Engine == "" {
		l := newLazyEngine(engineIdleRelease)
		return askcore.NewCore(l), l.Close, nil
	}
	e, closeFn, err := OpenEngine(ctx, s.Engine)
	if err != nil {
		return nil, nil, err
	}
	return askcore.NewCore(e), closeFn, nil
}

// SystemPrompt is the system prompt for the ask tool ask (the core's schema
// op result): a short preamble (the role, when to ask) and then the tool's
// description as the core wrote it. The preamble says nothing about the
// tool's fields, defaults, results or errors: those are the core's words,
// so the prompt cannot contradict the tool the model is given.
func SystemPrompt(ask askcore.Tool) string {
	return "You are a helpful assistant running in askcore. " +
		"When you need a decision or a fact that only the user can give, call the " + ask.Name + " tool instead of guessing. " +
		"Never invent an answer the user did not give.\n\n" +
		"How to use " + ask.Name + ": " + ask.Description
}

// Runtime is everything a front door needs, built by Build: register a
// provider on Service (Service.Register), make one agent per conversation
// with NewAgent, and Close at the end.
type Runtime struct {
	// Core runs the rules on the chosen engine.
	Core *askcore.Core
	// Service is the seam; Build registers no provider.
	Service *askcore.Service
	// Tools holds the ask_user_question tool, its spec from the core.
	Tools *agent.Registry
	// Model is the chosen backend, shared by all conversations.
	Model agent.Model
	// Source says which backend Model is; ModelInfo describes it for people.
	Source    ModelSource
	ModelInfo string
	// System is the system prompt NewAgent sets: SystemPrompt of the ask
	// tool the engine described. (A scripted model ignores it.)
	System string

	close func(context.Context) error
}

// Build opens the engine, reads the tool schema from the core, creates the
// interaction service (no provider registered), the tool registry with the
// ask tool (its failures written by the same engine), the system prompt,
// and the model chosen by s and getenv (os.Getenv outside tests). On error
// nothing stays open.
func Build(ctx context.Context, s Settings, getenv func(string) string) (*Runtime, error) {
	m, src, info, err := s.model(getenv)
	if err != nil {
		return nil, err
	}
	c, closeFn, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	tool, err := c.Tool(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("reading the ask_user_question tool from the core: %w", err), closeFn(context.WithoutCancel(ctx)))
	}
	svc := askcore.NewService(c)
	tools := agent.NewRegistry(c)
	if err := tools.Add(tool, agent.AskHandler(svc, s.Timeout)); err != nil {
		return nil, errors.Join(err, closeFn(context.WithoutCancel(ctx)))
	}
	return &Runtime{
		Core:      c,
		Service:   svc,
		Tools:     tools,
		Model:     m,
		Source:    src,
		ModelInfo: info,
		System:    SystemPrompt(tool),
		close:     closeFn,
	}, nil
}

// NewAgent returns an agent for one conversation (one ACP session, the one
// terminal conversation) over the shared model and tools, with the system
// prompt set. id and sessionID reach the provider as askcore.Identity.
func (r *Runtime) NewAgent(id, sessionID string, hooks agent.Hooks) *agent.Agent {
	return &agent.Agent{
		ID:        id,
		SessionID: sessionID,
		Model:     r.Model,
		Tools:     r.Tools,
		Hooks:     hooks,
		System:    r.System,
	}
}

// Close releases the engine. Safe to call more than once.
func (r *Runtime) Close(ctx context.Context) error {
	if r == nil || r.close == nil {
		return nil
	}
	c := r.close
	r.close = nil
	return c(ctx)
}
