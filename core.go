package askcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askcore/askcore/core"
)

// Core speaks the core's envelope in Go types, on an Engine. Everything a
// person or a model sees comes out of it as the core wrote it: answers and
// errors keep the core's bytes, and even the messages of situations the
// rules do not judge (no provider, an abort, a timeout) are the core's
// (Fail). A Core is safe for concurrent use when its engine is (Native and
// *hostgo.Engine are).
type Core struct {
	engine Engine
}

// NewCore returns a Core that runs the rules on e; nil means Native.
func NewCore(e Engine) *Core {
	if e == nil {
		e = Native{}
	}
	return &Core{engine: e}
}

// core returns c, or the native core for a nil *Core, so that a zero
// Service or Registry still has the core write its errors.
func (c *Core) core() *Core {
	if c == nil {
		return nativeCore
	}
	return c
}

var nativeCore = NewCore(Native{})

// Engine returns the engine c runs on.
func (c *Core) Engine() Engine { return c.core().engine }

// Tool returns the model-facing ask_user_question tool (op "schema").
func (c *Core) Tool(ctx context.Context) (Tool, error) {
	var t Tool
	_, err := c.call(ctx, envelope{"op": "schema"}, &t)
	return t, err
}

// StrictTool returns the ask_user_question tool for OpenAI's strict
// function calling (op "schema" with "strict":true): every object closed
// and listing all its properties in required, an optional field typed
// [T, "null"] (the core reads null as absent), and the questions always in
// questions, one entry for one question, so that its answer is always
// {"answers":[...]}. Send it with strict set to true; Tool's schema is for
// function calling that is not strict.
func (c *Core) StrictTool(ctx context.Context) (Tool, error) {
	var t Tool
	_, err := c.call(ctx, envelope{"op": "schema", "strict": true}, &t)
	return t, err
}

// Normalize has the core parse and normalize arguments, the model's
// ask_user_question arguments exactly as the model wrote them (valid JSON
// or not: the core names an offset inside them), into a call ready to put
// to a person. Service.Ask does this itself; Normalize is for front doors
// that show a call without asking through a Service. A text over
// core.MaxArgumentsBytes (its UTF-8 length, an invalid byte counting 3) is
// not copied into the envelope: the core is sent its length, and refuses
// it by that length, as it would the text.
func (c *Core) Normalize(ctx context.Context, arguments string) (*Call, error) {
	in, err := normalizeEnvelope(arguments)
	if err != nil {
		return nil, err
	}
	raw, err := c.send(ctx, in, nil)
	if err != nil {
		return nil, err
	}
	return c.decodeCall(raw)
}

// normalizeEnvelope is op "normalize" for the model's arguments text:
// the text itself, which the core parses, or, for a text over
// core.MaxArgumentsBytes, its length alone ("argumentsBytes"), so that a
// huge text never becomes a huge envelope; the core gives the same verdict
// for the length as for the text. The JS host sends the same bytes
// (hostjs/lib/core.js, argumentsField).
func normalizeEnvelope(arguments string) ([]byte, error) {
	// A byte takes at most 3 as the core reads it: count only when it
	// matters.
	if len(arguments) > core.MaxArgumentsBytes/3 {
		if n := coreLength(arguments); n > core.MaxArgumentsBytes {
			return []byte(`{"op":"normalize","argumentsBytes":` + strconv.Itoa(n) + `}`), nil
		}
	}
	return encode(envelope{"op": "normalize", "arguments": arguments})
}

// coreLength is the length in bytes of s as the core reads it: its UTF-8,
// an invalid byte counting 3, as encoding/json writes it as U+FFFD.
func coreLength(s string) int {
	n := 0
	for _, r := range s {
		n += utf8.RuneLen(r) // utf8.RuneError, an invalid byte's rune, is 3 bytes
	}
	return n
}

func (c *Core) decodeCall(raw json.RawMessage) (*Call, error) {
	call := &Call{raw: raw, core: c.core()}
	var v struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, &EngineError{Err: fmt.Errorf("the core returned an unreadable call: %w", err)}
	}
	if v.Questions != nil {
		call.Questions, call.Batch = v.Questions, true
		return call, nil
	}
	var q Question
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, &EngineError{Err: fmt.Errorf("the core returned an unreadable call: %w", err)}
	}
	call.Questions = []Question{q}
	return call, nil
}

// Fail returns the core's error for a situation (op "fail"). It always
// returns that error: when the engine cannot answer (closed, trapped) the
// same rules run natively, which write the same bytes, so a message never
// turns into an engine fault.
func (c *Core) Fail(ctx context.Context, f Failure) *Error {
	// Host text of any length is cut as the core reads it, so that the
	// envelope stays small and the bytes stay the same.
	env := envelope{"op": "fail", "situation": string(f.Situation)}
	if f.Detail != "" {
		env["detail"] = failText(f.Detail)
	}
	if f.Millis != 0 {
		env["ms"] = f.Millis
	}
	if f.Tool != "" {
		env["tool"] = failText(f.Tool)
	}
	if f.Tools != nil {
		env["tools"] = failTexts(f.Tools)
	}
	if f.Reasons != nil {
		env["reasons"] = failTexts(f.Reasons)
	}
	var e Error
	raw, err := c.call(context.WithoutCancel(ctx), env, &e)
	var ce *Error
	switch {
	case err == nil:
		e.raw = raw
		e.situation, e.reason = f.Situation, f.reason(e.Message)
		return &e
	case errors.As(err, &ce):
		return ce // an unknown situation: INVALID_REQUEST
	}
	raw, err = nativeCore.call(ctx, env, &e)
	if err != nil {
		if errors.As(err, &ce) {
			return ce
		}
		// Unreachable: the native core answers every envelope.
		return &Error{Name: ErrorName, Code: CodeAskFailed, Message: err.Error()}
	}
	e.raw = raw
	e.situation, e.reason = f.Situation, f.reason(e.Message)
	return &e
}

// reason is why f's surface could not show the question, for a
// no_surface list: its detail, its reasons, or the core's message.
func (f Failure) reason(message string) string {
	switch {
	case f.Detail != "":
		return f.Detail
	case len(f.Reasons) > 0:
		return strings.Join(f.Reasons, "; ")
	}
	return message
}

// failTexts cuts a list of host texts as op "fail" reads it: the first
// core.MaxFailTools entries, each cut by failText.
func failTexts(list []string) []string {
	list = list[:min(len(list), core.MaxFailTools)]
	out := make([]string, len(list))
	for i, t := range list {
		out[i] = failText(t)
	}
	return out
}

// Terminal decides what a terminal front door does with the facts it read
// (op "terminal"): the keyboard picker or the line mode, colour or not.
func (c *Core) Terminal(ctx context.Context, t TerminalFacts) (TerminalMode, error) {
	var m TerminalMode
	_, err := c.call(ctx, envelope{"op": "terminal", "stdinTTY": t.StdinTTY, "stderrTTY": t.StderrTTY,
		"outTTY": t.OutTTY, "term": t.Term, "noColor": t.NoColor, "plain": t.Plain, "plainFlag": t.PlainFlag}, &m)
	return m, err
}

// Sanitize makes any text (a model's reply, a message) safe to show on a
// terminal or in a client, by the rule that governs every text the core
// writes (op "sanitize").
func (c *Core) Sanitize(ctx context.Context, text string) (string, error) {
	return c.sanitize(ctx, text, "text")
}

// SanitizeTitle makes text fit one line of a title (op "sanitize" as
// "title": one line, cut).
func (c *Core) SanitizeTitle(ctx context.Context, text string) (string, error) {
	return c.sanitize(ctx, text, "title")
}

func (c *Core) sanitize(ctx context.Context, text, as string) (string, error) {
	var s struct {
		Text string `json:"text"`
	}
	_, err := c.call(ctx, envelope{"op": "sanitize", "text": text, "as": as}, &s)
	return s.Text, err
}

// failText is the part of host text op "fail" reads: its first
// core.MaxFailTextChars characters (an invalid UTF-8 byte is one, as the
// core decodes it to one U+FFFD).
func failText(s string) string {
	n := 0
	for i := range s {
		if n == core.MaxFailTextChars {
			return s[:i]
		}
		n++
	}
	return s
}

// envelope is one call to the core, encoded with encoding/json: strings
// (model text among them) are encoded, never pasted; json.RawMessage
// values are bytes the core wrote, passed through as they are.
type envelope map[string]any

const (
	okPrefix    = `{"ok":true,"result":`
	errorPrefix = `{"ok":false,"error":`
)

// call sends env and decodes the result into out (when not nil); it
// returns the result's bytes as the core wrote them. An ok:false envelope
// is a *Error holding the core's bytes; a fault of the engine an
// *EngineError.
func (c *Core) call(ctx context.Context, env envelope, out any) (json.RawMessage, error) {
	in, err := encode(env)
	if err != nil {
		return nil, err
	}
	return c.send(ctx, in, out)
}

// encode writes env as the envelope's bytes.
func encode(env envelope) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // smaller; the core judges sizes on the text itself
	if err := enc.Encode(env); err != nil {
		return nil, &EngineError{Err: fmt.Errorf("building the envelope: %w", err)}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// send is call for an envelope already written.
func (c *Core) send(ctx context.Context, in []byte, out any) (json.RawMessage, error) {
	outBytes, err := c.core().engine.Handle(ctx, in)
	if err != nil {
		return nil, &EngineError{Err: err}
	}
	if raw := between(outBytes, errorPrefix); raw != nil {
		var e Error
		if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" {
			return nil, &EngineError{Err: fmt.Errorf("the core returned an unreadable error: %q", outBytes)}
		}
		e.raw = raw
		return nil, &e
	}
	raw := between(outBytes, okPrefix)
	if raw == nil || !json.Valid(raw) {
		return nil, &EngineError{Err: fmt.Errorf("the core returned an unreadable envelope: %.200q", outBytes)}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, &EngineError{Err: fmt.Errorf("the core returned an unexpected result: %w", err)}
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
