// Package engine chooses where the askcore rules run (natively, or in the
// WebAssembly module under wazero) and gives Go callers typed access to the
// core's JSON envelope. Every front door talks to the core through a Client,
// so the bytes a person or a model sees are the core's bytes whichever engine
// runs them.
package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
)

// Core runs the rules: one envelope in, one envelope out. The error is for
// host faults only (a trap, a closed engine, a cancelled ctx); rule
// violations come back as an ok:false envelope.
type Core interface {
	Handle(ctx context.Context, input []byte) ([]byte, error)
}

// Native runs the rules as ordinary Go code.
type Native struct{}

// Handle calls core.Handle.
func (Native) Handle(_ context.Context, input []byte) ([]byte, error) {
	return core.Handle(input), nil
}

// Names of the engines a front door can choose with --engine.
const (
	NameWasm   = "wasm"
	NameNative = "native"
)

// Open returns the engine called name and a func that releases it.
func Open(ctx context.Context, name string, opts ...hostgo.Option) (Core, func(context.Context) error, error) {
	switch name {
	case NameNative:
		return Native{}, func(context.Context) error { return nil }, nil
	case NameWasm, "":
		e, err := hostgo.New(ctx, opts...)
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	default:
		return nil, nil, fmt.Errorf("unknown engine %q: want %q or %q", name, NameWasm, NameNative)
	}
}

// Client makes typed calls over a Core's envelope. Results keep the core's
// own bytes (Raw) beside their decoded form, so what a model receives is
// exactly what the core wrote.
type Client struct {
	Core Core
}

// Tool is the model-facing tool description from op "schema".
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Presentation is what a terminal shows for a request (op "present").
type Presentation struct {
	Text string `json:"text"`
	// Order lists option indices (positions in the request as given) in
	// display order: the option numbered n on screen is Order[n-1].
	Order []int `json:"order"`
}

// Form is the ACP elicitation form (op "elicitation").
type Form struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// Result is an answer in both forms: decoded, and as the core wrote it.
type Result struct {
	Answer core.Answer
	Raw    json.RawMessage
}

// Normalize returns the normalized request, decoded and as raw bytes.
func (c Client) Normalize(ctx context.Context, request json.RawMessage) (core.Request, json.RawMessage, error) {
	var req core.Request
	raw, err := c.call(ctx, envelope{Op: "normalize", Request: request}, &req)
	return req, raw, err
}

// Schema returns the model-facing ask_user_question tool.
func (c Client) Schema(ctx context.Context) (Tool, error) {
	var t Tool
	_, err := c.call(ctx, envelope{Op: "schema"}, &t)
	return t, err
}

// Present returns what a terminal shows for request.
func (c Client) Present(ctx context.Context, request json.RawMessage) (Presentation, error) {
	var p Presentation
	_, err := c.call(ctx, envelope{Op: "present", Request: request}, &p)
	return p, err
}

// Resolve turns one typed line into an answer, or an INVALID_ANSWER error
// whose message is the re-prompt.
func (c Client) Resolve(ctx context.Context, request json.RawMessage, line string) (Result, error) {
	var r Result
	raw, err := c.call(ctx, envelope{Op: "resolve", Request: request, Input: &line}, &r.Answer)
	r.Raw = raw
	return r, err
}

// Elicitation returns the ACP form for request.
func (c Client) Elicitation(ctx context.Context, request json.RawMessage) (Form, json.RawMessage, error) {
	var f Form
	raw, err := c.call(ctx, envelope{Op: "elicitation", Request: request}, &f)
	return f, raw, err
}

// ElicitationResult turns an ACP elicitation response
// ({"action":...,"content":{...}}) into an answer or an error.
func (c Client) ElicitationResult(ctx context.Context, request, response json.RawMessage) (Result, error) {
	var r Result
	raw, err := c.call(ctx, envelope{Op: "elicitation_result", Request: request, Response: response}, &r.Answer)
	r.Raw = raw
	return r, err
}

// envelope is one call to the core. It is assembled by hand rather than
// marshalled so that a malformed request (the model's raw tool arguments)
// reaches the core as it is, and the core, the one place for rules, says
// what is wrong with it.
type envelope struct {
	Op       string
	Request  json.RawMessage
	Input    *string
	Response json.RawMessage
}

func (env envelope) bytes() []byte {
	b := make([]byte, 0, 32+len(env.Request)+len(env.Response))
	b = append(b, `{"op":"`...)
	b = append(b, env.Op...)
	b = append(b, '"')
	if env.Request != nil {
		b = append(b, `,"request":`...)
		b = append(b, env.Request...)
	}
	if env.Input != nil {
		q, _ := json.Marshal(*env.Input) // a string always marshals
		b = append(b, `,"input":`...)
		b = append(b, q...)
	}
	if env.Response != nil {
		b = append(b, `,"response":`...)
		b = append(b, env.Response...)
	}
	return append(b, '}')
}

type reply struct {
	OK     bool               `json:"ok"`
	Result json.RawMessage    `json:"result"`
	Error  *core.HarnessError `json:"error"`
}

// call sends env and decodes the result into out. An ok:false envelope comes
// back as a *core.HarnessError; a host fault as an ASK_FAILED error that
// wraps it.
func (c Client) call(ctx context.Context, env envelope, out any) (json.RawMessage, error) {
	outBytes, err := c.Core.Handle(ctx, env.bytes())
	if err != nil {
		return nil, &HostError{Err: err}
	}
	var rep reply
	if err := json.Unmarshal(outBytes, &rep); err != nil {
		return nil, &HostError{Err: fmt.Errorf("core returned an unreadable envelope: %w", err)}
	}
	if !rep.OK {
		if rep.Error == nil {
			return nil, &HostError{Err: fmt.Errorf("core returned ok:false without an error")}
		}
		return nil, rep.Error
	}
	if err := json.Unmarshal(rep.Result, out); err != nil {
		return nil, &HostError{Err: fmt.Errorf("core returned an unexpected result: %w", err)}
	}
	return rep.Result, nil
}

// HostError is a fault of the engine itself (a trap, a closed engine, a
// cancelled ctx), not a verdict of the rules.
type HostError struct{ Err error }

func (e *HostError) Error() string { return "askcore engine: " + e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }
