package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/hostgo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const request = `{"header":"DB","question":"Which database?","options":[` +
	`{"label":"PostgreSQL","value":"postgres","recommended":true},{"label":"SQLite","description":"embedded"}]}`

// clients opens both engines; every typed call must give the same result
// and the same raw bytes on both.
func clients(t *testing.T) map[string]engine.Client {
	t.Helper()
	out := map[string]engine.Client{}
	for _, name := range []string{engine.NameNative, engine.NameWasm} {
		c, closeFn, err := engine.Open(context.Background(), name, hostgo.WithMemoryCompilationCache())
		require.NoError(t, err, name)
		t.Cleanup(func() { require.NoError(t, closeFn(context.Background())) })
		out[name] = engine.Client{Core: c}
	}
	return out
}

func TestTypedCallsAgreeAcrossEngines(t *testing.T) {
	ctx := context.Background()
	type results struct {
		normalized json.RawMessage
		req        core.Request
		tool       engine.Tool
		present    engine.Presentation
		resolved   engine.Result
		form       json.RawMessage
		answered   engine.Result
	}
	got := map[string]results{}
	for name, c := range clients(t) {
		var r results
		var err error
		r.req, r.normalized, err = c.Normalize(ctx, json.RawMessage(request))
		require.NoError(t, err, name)
		r.tool, err = c.Schema(ctx)
		require.NoError(t, err, name)
		r.present, err = c.Present(ctx, r.normalized)
		require.NoError(t, err, name)
		r.resolved, err = c.Resolve(ctx, r.normalized, "2")
		require.NoError(t, err, name)
		_, r.form, err = c.Elicitation(ctx, r.normalized)
		require.NoError(t, err, name)
		r.answered, err = c.ElicitationResult(ctx, r.normalized, json.RawMessage(`{"action":"accept","content":{"choice":"postgres"}}`))
		require.NoError(t, err, name)
		got[name] = r
	}
	native, wasm := got[engine.NameNative], got[engine.NameWasm]
	assert.Equal(t, native, wasm)

	assert.Equal(t, "postgres", native.req.Options[0].Value)
	assert.Equal(t, "SQLite", native.req.Options[1].Value, "value defaults to label")
	assert.Equal(t, "ask_user_question", native.tool.Name)
	assert.Equal(t, []int{0, 1}, native.present.Order)
	assert.Equal(t, "SQLite", native.resolved.Answer.Answer)
	require.NotNil(t, native.resolved.Answer.Selected)
	assert.Equal(t, 1, native.resolved.Answer.Selected.Index)
	assert.JSONEq(t, `{"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}`, string(native.resolved.Raw))
	assert.Equal(t, "postgres", native.answered.Answer.Answer)
}

// A malformed request reaches the core as it is, and the core's structured
// error comes back: the Go side never judges a request itself.
func TestRulesErrorsAreHarnessErrors(t *testing.T) {
	ctx := context.Background()
	for name, c := range clients(t) {
		for _, tc := range []struct {
			call func() error
			code core.Code
		}{
			{func() error { _, _, err := c.Normalize(ctx, json.RawMessage(`{"question":`)); return err }, core.CodeInvalidRequest},
			{func() error { _, _, err := c.Normalize(ctx, json.RawMessage(`{"question":"q"},"op":"schema"`)); return err }, core.CodeInvalidRequest},
			{func() error { _, err := c.Resolve(ctx, json.RawMessage(request), "nope"); return err }, core.CodeInvalidAnswer},
			{func() error {
				_, err := c.ElicitationResult(ctx, json.RawMessage(request), json.RawMessage(`{"action":"decline"}`))
				return err
			}, core.CodeAskDeclined},
		} {
			err := tc.call()
			var he *core.HarnessError
			require.ErrorAs(t, err, &he, name)
			assert.Equal(t, tc.code, he.Code, "%s: %v", name, err)
			assert.Equal(t, core.ErrorName, he.Name)
			var hostErr *engine.HostError
			assert.False(t, errors.As(err, &hostErr), "a rule violation is not a host fault")
		}
	}
}

// The typed line is JSON-encoded into the envelope, so no text a person
// types can change the envelope's shape.
func TestTypedLineCannotEscapeTheEnvelope(t *testing.T) {
	c := engine.Client{Core: engine.Native{}}
	res, err := c.Resolve(context.Background(), json.RawMessage(`{"question":"Name?"}`), `x","op":"schema`)
	require.NoError(t, err)
	assert.Equal(t, `x","op":"schema`, res.Answer.Answer)
}

func TestHostFaultsAreHostErrors(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := engine.Open(ctx, engine.NameWasm, hostgo.WithMemoryCompilationCache())
	require.NoError(t, err)
	require.NoError(t, closeFn(ctx))
	_, _, err = engine.Client{Core: c}.Normalize(ctx, json.RawMessage(request))
	var hostErr *engine.HostError
	require.ErrorAs(t, err, &hostErr)
	assert.ErrorIs(t, err, hostgo.ErrClosed)
}

func TestOpenUnknownEngine(t *testing.T) {
	_, _, err := engine.Open(context.Background(), "jvm")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"wasm"`)
}
