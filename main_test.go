package askcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
)

// wasmOptions configure every WebAssembly engine of these tests and
// examples: compiled code stays in this process (nothing is written to the
// user's cache), and, being one configuration, the module is compiled once
// for them all.
var wasmOptions = []hostgo.Option{hostgo.WithMemoryCompilationCache()}

// wasm is the WebAssembly engine the tests run on besides the native one,
// opened once for the package.
var wasm *hostgo.Engine

func TestMain(m *testing.M) {
	e, err := hostgo.New(context.Background(), wasmOptions...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wasm = e
	code := m.Run()
	// Close waits for the background compile of the tiered start too.
	if err := wasm.Close(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// engineCase is one engine the tests run on.
type engineCase struct {
	name   string
	engine askcore.Engine
}

func allEngines() []engineCase {
	return []engineCase{{"native", askcore.Native{}}, {"wasm", wasm}}
}

// onEngines runs f once per engine, with a core over it.
func onEngines(t *testing.T, f func(t *testing.T, c *askcore.Core)) {
	t.Helper()
	for _, e := range allEngines() {
		t.Run(e.name, func(t *testing.T) { f(t, askcore.NewCore(e.engine)) })
	}
}

// native is the reference: the rules run natively.
var native = askcore.NewCore(nil)

// failure is the core's error for f, as the native core writes it.
func failure(f askcore.Failure) *askcore.Error {
	return native.Fail(context.Background(), f)
}

// requireCode checks that err is an *askcore.Error the core wrote, with
// code: its JSON is the core's bytes, which decode to its fields.
func requireCode(t *testing.T, err error, code askcore.Code) *askcore.Error {
	t.Helper()
	require.Error(t, err)
	var e *askcore.Error
	require.True(t, errors.As(err, &e), "want an *askcore.Error, got %T: %v", err, err)
	assert.Equal(t, code, e.Code, "message: %s", e.Message)
	raw := e.JSON()
	require.True(t, json.Valid(raw), "%s", raw)
	var decoded askcore.Error
	require.NoError(t, json.Unmarshal(raw, &decoded))
	assert.Equal(t, e.Name, decoded.Name)
	assert.Equal(t, e.Code, decoded.Code)
	assert.Equal(t, e.Message, decoded.Message)
	assert.Equal(t, string(raw), string(decoded.JSON()), "the core's bytes are encoding/json's")
	return e
}

// requireSituation checks that err is exactly the core's error for f.
func requireSituation(t *testing.T, err error, f askcore.Failure) *askcore.Error {
	t.Helper()
	want := failure(f)
	e := requireCode(t, err, want.Code)
	assert.Equal(t, string(want.JSON()), string(e.JSON()))
	return e
}

// recorder keeps the envelopes an engine was sent and returned, so that a
// test can check what went to the core and that what came back is kept
// byte for byte.
type recorder struct {
	askcore.Engine
	mu      sync.Mutex
	inputs  [][]byte
	outputs [][]byte
}

func (r *recorder) Handle(ctx context.Context, in []byte) ([]byte, error) {
	out, err := r.Engine.Handle(ctx, in)
	r.mu.Lock()
	r.inputs = append(r.inputs, bytes.Clone(in))
	r.outputs = append(r.outputs, out)
	r.mu.Unlock()
	return out, err
}

func (r *recorder) lastInput() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.inputs) == 0 {
		return ""
	}
	return string(r.inputs[len(r.inputs)-1])
}

func (r *recorder) lastOutput() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.outputs) == 0 {
		return ""
	}
	return string(r.outputs[len(r.outputs)-1])
}

// handle is core.Handle of the envelope encoding/json writes for env (with
// its default escaping of '<', '>' and '&'): what any host may send.
func handle(t *testing.T, env any) string {
	t.Helper()
	in, err := json.Marshal(env)
	require.NoError(t, err)
	return string(core.Handle(in))
}

// okResult and errorObject split an envelope the core wrote.
func okResult(t *testing.T, env string) string {
	t.Helper()
	const prefix = `{"ok":true,"result":`
	require.True(t, len(env) > len(prefix) && env[:len(prefix)] == prefix, "not an ok envelope: %.300s", env)
	return env[len(prefix) : len(env)-1]
}

func errorObject(t *testing.T, env string) string {
	t.Helper()
	const prefix = `{"ok":false,"error":`
	require.True(t, len(env) > len(prefix) && env[:len(prefix)] == prefix, "not an error envelope: %.300s", env)
	return env[len(prefix) : len(env)-1]
}
