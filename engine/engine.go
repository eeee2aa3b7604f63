// Package engine chooses where the askcore rules run (natively, or in the
// WebAssembly module under wazero) and gives Go callers typed access to the
// core's JSON envelope. Every front door talks to the core through a Client,
// so the bytes a person or a model sees are the core's bytes whichever engine
// runs them: answers and errors keep the core's own bytes (Result.Raw,
// core.HarnessError.Raw), and even the messages of situations the core does
// not judge itself (no provider, an abort, a timeout) come from it
// (Client.Fail).
package engine

import (
	"bytes"
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

// Call is a normalized ask_user_question call: the core's bytes, to pass
// back to the core unchanged, and their decoded form.
type Call struct {
	// Raw is the normalized call as the core wrote it (op "normalize").
	Raw json.RawMessage
	// Questions are the call's questions, decoded: exactly one unless
	// Batch.
	Questions []core.Request
	// Batch reports a {"questions":[...]} call, answered with
	// {"answers":[...]}.
	Batch bool
}

// Presentation is what a terminal shows for one question (op "present").
type Presentation struct {
	Text string `json:"text"`
	// Order lists option indices (positions in the request as given) in
	// display order: the option numbered n on screen is Order[n-1].
	Order []int `json:"order"`
}

// Form is the elicitation form (op "elicitation"), for ACP and MCP.
type Form struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// Result is an answer as the core wrote it: the bytes the model receives.
type Result struct {
	Raw json.RawMessage
}

// Input is one question's input to resolve: a line the person typed, or
// (when Pick is set) what a keyboard picker chose.
type Input struct {
	Line string
	Pick *core.Pick
}

// MarshalJSON writes the input as op "resolve" reads it: a string, or a
// pick {"options":[...],"text":"..."}.
func (in Input) MarshalJSON() ([]byte, error) {
	if in.Pick == nil {
		return json.Marshal(in.Line)
	}
	options := in.Pick.Options
	if options == nil {
		options = []int{}
	}
	return json.Marshal(struct {
		Options []int  `json:"options"`
		Text    string `json:"text"`
	}{options, in.Pick.Text})
}

// NormalizeArguments normalizes the model's tool arguments, passed to the
// core as the text the model wrote (envelope field "arguments"): the core
// parses them, so invalid JSON is reported with an offset inside the
// arguments, the same on every engine and in every host.
func (c Client) NormalizeArguments(ctx context.Context, arguments string) (Call, error) {
	raw, err := c.call(ctx, envelope{"op": "normalize", "arguments": arguments}, nil)
	if err != nil {
		return Call{}, err
	}
	return decodeCall(raw)
}

// Normalize normalizes a request object (bytes the core wrote, or a value
// the caller serialized itself; never model text: use NormalizeArguments).
func (c Client) Normalize(ctx context.Context, request json.RawMessage) (Call, error) {
	raw, err := c.call(ctx, envelope{"op": "normalize", "request": request}, nil)
	if err != nil {
		return Call{}, err
	}
	return decodeCall(raw)
}

func decodeCall(raw json.RawMessage) (Call, error) {
	var v struct {
		Questions []core.Request `json:"questions"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Call{}, &HostError{Err: fmt.Errorf("core returned an unexpected request: %w", err)}
	}
	if v.Questions != nil {
		return Call{Raw: raw, Questions: v.Questions, Batch: true}, nil
	}
	var q core.Request
	if err := json.Unmarshal(raw, &q); err != nil {
		return Call{}, &HostError{Err: fmt.Errorf("core returned an unexpected request: %w", err)}
	}
	return Call{Raw: raw, Questions: []core.Request{q}}, nil
}

// Schema returns the model-facing ask_user_question tool.
func (c Client) Schema(ctx context.Context) (Tool, error) {
	var t Tool
	_, err := c.call(ctx, envelope{"op": "schema"}, &t)
	return t, err
}

// Present returns what a terminal shows for question index of a normalized
// call (0 for a single question).
func (c Client) Present(ctx context.Context, call json.RawMessage, index int) (Presentation, error) {
	var p Presentation
	_, err := c.call(ctx, envelope{"op": "present", "request": call, "index": index}, &p)
	return p, err
}

// Resolve answers question index of a normalized call from one input: the
// answer of that question alone, or an INVALID_ANSWER error whose message
// is the re-prompt.
func (c Client) Resolve(ctx context.Context, call json.RawMessage, index int, in Input) (Result, error) {
	raw, err := c.call(ctx, envelope{"op": "resolve", "request": call, "index": index, "input": in}, nil)
	return Result{Raw: raw}, err
}

// ResolveAll answers a whole normalized call from one input per question:
// the answer the model receives ({"answers":[...]} for a batch).
func (c Client) ResolveAll(ctx context.Context, call json.RawMessage, inputs []Input) (Result, error) {
	raw, err := c.call(ctx, envelope{"op": "resolve", "request": call, "inputs": inputs}, nil)
	return Result{Raw: raw}, err
}

// Picker returns what a keyboard picker shows for a normalized call (op
// "picker"), as the core wrote it; termui decodes it.
func (c Client) Picker(ctx context.Context, call json.RawMessage) (json.RawMessage, error) {
	return c.call(ctx, envelope{"op": "picker", "request": call}, nil)
}

// Summary says in one line per question what a call's answer (the core's
// bytes) chose: for echo lines and tool cards.
func (c Client) Summary(ctx context.Context, call, answer json.RawMessage) (string, error) {
	var s struct {
		Text string `json:"text"`
	}
	_, err := c.call(ctx, envelope{"op": "summary", "request": call, "answer": answer}, &s)
	return s.Text, err
}

// SummaryOf says in one line what the answer of question index alone (as
// Resolve wrote it) chose.
func (c Client) SummaryOf(ctx context.Context, call json.RawMessage, index int, answer json.RawMessage) (string, error) {
	var s struct {
		Text string `json:"text"`
	}
	_, err := c.call(ctx, envelope{"op": "summary", "request": call, "index": index, "answer": answer}, &s)
	return s.Text, err
}

// Elicitation returns the form for a normalized call, decoded and as the
// core wrote it.
func (c Client) Elicitation(ctx context.Context, call json.RawMessage) (Form, json.RawMessage, error) {
	var f Form
	raw, err := c.call(ctx, envelope{"op": "elicitation", "request": call}, &f)
	return f, raw, err
}

// ElicitationFor returns the form for a normalized call as target's
// clients read it (core.ForACP, core.ForMCP; see core.FormTarget).
func (c Client) ElicitationFor(ctx context.Context, call json.RawMessage, target core.FormTarget) (Form, json.RawMessage, error) {
	var f Form
	raw, err := c.call(ctx, envelope{"op": "elicitation", "request": call, "for": string(target)}, &f)
	return f, raw, err
}

// ElicitationResult turns a client's response to the form
// ({"action":...,"content":{...}}, valid JSON as the client sent it) into
// the call's answer or an error.
func (c Client) ElicitationResult(ctx context.Context, call, response json.RawMessage) (Result, error) {
	raw, err := c.call(ctx, envelope{"op": "elicitation_result", "request": call, "response": response}, nil)
	return Result{Raw: raw}, err
}

// Fail returns the core's error for a situation (op "fail"), with Raw set.
// It always returns the situation's error. When the engine cannot answer
// (closed, trapped) or refuses the envelope, the same rules run natively
// through core.Fail, which writes the same bytes: the message must not turn
// into an engine fault or an envelope error. The envelope is refused when
// the detail or the tool name (host or model text of any length, which the
// core cuts itself) makes it longer than core.MaxInputBytes; an unknown
// situation gets the same INVALID_REQUEST from core.Fail as from the engine.
func (c Client) Fail(ctx context.Context, f core.Failure) *core.HarnessError {
	env := envelope{"op": "fail", "situation": string(f.Situation)}
	if f.Detail != "" {
		env["detail"] = f.Detail
	}
	if f.Millis != 0 {
		env["ms"] = f.Millis
	}
	if f.Tool != "" {
		env["tool"] = f.Tool
	}
	if f.Tools != nil {
		env["tools"] = f.Tools
	}
	var he core.HarnessError
	raw, err := c.call(context.WithoutCancel(ctx), env, &he)
	if err != nil {
		native := core.Fail(f)
		native.Raw = native.JSON()
		return native
	}
	he.Raw = raw
	return &he
}

// Terminal decides what a terminal front door does (op "terminal").
func (c Client) Terminal(ctx context.Context, t core.Terminal) (core.TerminalMode, error) {
	var m struct {
		Picker bool `json:"picker"`
		Color  bool `json:"color"`
	}
	_, err := c.call(ctx, envelope{"op": "terminal", "stdinTTY": t.StdinTTY, "stderrTTY": t.StderrTTY,
		"outTTY": t.OutTTY, "term": t.Term, "noColor": t.NoColor, "plain": t.Plain, "plainFlag": t.PlainFlag}, &m)
	return core.TerminalMode{Picker: m.Picker, Color: m.Color}, err
}

// Sanitize makes any text (a model's reply, an error message) safe to show
// (op "sanitize").
func (c Client) Sanitize(ctx context.Context, text string) (string, error) {
	return c.sanitize(ctx, text, "text")
}

// SanitizeTitle makes model text fit for one line of a title (op
// "sanitize" as "title": one line, cut).
func (c Client) SanitizeTitle(ctx context.Context, text string) (string, error) {
	return c.sanitize(ctx, text, "title")
}

func (c Client) sanitize(ctx context.Context, text, as string) (string, error) {
	var s struct {
		Text string `json:"text"`
	}
	_, err := c.call(ctx, envelope{"op": "sanitize", "text": text, "as": as}, &s)
	return s.Text, err
}

// envelope is one call to the core. It is encoded with encoding/json:
// strings (model text among them) are encoded, never pasted; the
// json.RawMessage values are bytes the core wrote (a normalized call, an
// answer) or a client's response, passed through as they are. '<', '>' and
// '&' are not escaped, as JSON.stringify does not escape them in the JS
// host: the envelope's length is what the core's answer to an oversized
// input names, so both hosts give the same verdict for the same text.
type envelope map[string]any

const (
	okPrefix    = `{"ok":true,"result":`
	errorPrefix = `{"ok":false,"error":`
)

type reply struct {
	OK     bool               `json:"ok"`
	Result json.RawMessage    `json:"result"`
	Error  *core.HarnessError `json:"error"`
}

// call sends env and decodes the result into out (when not nil); it
// returns the result's bytes as the core wrote them. An ok:false envelope
// comes back as a *core.HarnessError whose Raw is the error object as the
// core wrote it; a host fault as a *HostError.
func (c Client) call(ctx context.Context, env envelope, out any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, &HostError{Err: fmt.Errorf("building the envelope: %w", err)}
	}
	in := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	outBytes, err := c.Core.Handle(ctx, in)
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
		rep.Error.Raw = between(outBytes, errorPrefix)
		return nil, rep.Error
	}
	raw := between(outBytes, okPrefix)
	if raw == nil {
		raw = rep.Result
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, &HostError{Err: fmt.Errorf("core returned an unexpected result: %w", err)}
		}
	}
	return raw, nil
}

// between returns the bytes of env after prefix, without the envelope's
// closing brace: the result or error object exactly as the core wrote it.
func between(env []byte, prefix string) json.RawMessage {
	if len(env) < len(prefix)+1 || string(env[:len(prefix)]) != prefix || env[len(env)-1] != '}' {
		return nil
	}
	return json.RawMessage(env[len(prefix) : len(env)-1])
}

// HostError is a fault of the engine itself (a trap, a closed engine, a
// cancelled ctx), not a verdict of the rules. Callers report it to a model
// as the core's engine_fault situation (Client.Fail), keeping Err for logs.
type HostError struct{ Err error }

func (e *HostError) Error() string { return "askcore engine: " + e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }
