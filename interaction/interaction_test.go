package interaction_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const request = `{"header":" Lang ","question":"Which language?","options":[` +
	`{"label":"Go","value":"go","description":"fast builds","recommended":true},` +
	`{"label":"Rust"}],"allowCustom":true}`

var client = engine.Client{Core: engine.Native{}}

func requireCode(t *testing.T, err error, code core.Code) *core.HarnessError {
	t.Helper()
	require.Error(t, err)
	var he *core.HarnessError
	require.True(t, errors.As(err, &he), "want a *core.HarnessError, got %T: %v", err, err)
	assert.Equal(t, core.ErrorName, he.Name)
	assert.Equal(t, code, he.Code, "message: %s", he.Message)
	assert.NotEmpty(t, he.Message)
	return he
}

// blocking is a provider that waits for ctx and reports when it was reached.
func blocking(started chan<- struct{}) interaction.ProviderFunc {
	return func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		close(started)
		<-ctx.Done()
		return engine.Result{}, ctx.Err()
	}
}

func TestNoProviderFailsFastWithoutAnAnswer(t *testing.T) {
	svc := interaction.NewService(client)
	start := time.Now()
	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeNoProvider)
	assert.Less(t, time.Since(start), time.Second)
	assert.Nil(t, res.Raw, "never an empty answer")
	assert.Empty(t, res.Answer.Answer)
}

func TestProviderReceivesNormalizedQuestionAndIdentity(t *testing.T) {
	svc := interaction.NewService(client)
	var got interaction.Question
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		got = q
		return client.Resolve(ctx, q.Raw, "rust")
	}))
	require.NoError(t, err)
	defer dispose()

	from := interaction.Identity{AgentID: "agent-1", SessionID: "sess-1", ToolCallID: "call-1"}
	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{From: from})
	require.NoError(t, err)

	assert.Equal(t, from, got.From)
	assert.Equal(t, "Lang", got.Request.Header, "strings are trimmed")
	require.Len(t, got.Request.Options, 2)
	assert.Equal(t, "Rust", got.Request.Options[1].Value, "value defaults to label")
	assert.True(t, json.Valid(got.Raw))

	assert.Equal(t, "Rust", res.Answer.Answer)
	require.NotNil(t, res.Answer.Selected)
	assert.Equal(t, 1, res.Answer.Selected.Index)
	assert.JSONEq(t, `{"answer":"Rust","selected":{"index":1,"label":"Rust","value":"Rust"}}`, string(res.Raw))
}

func TestDuplicateProviderRejectedUntilDisposed(t *testing.T) {
	svc := interaction.NewService(client)
	answer := interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		return client.Resolve(ctx, q.Raw, "")
	})
	dispose1, err := svc.Register(answer)
	require.NoError(t, err)

	dispose2, err := svc.Register(answer)
	requireCode(t, err, core.CodeDuplicateProvider)
	assert.Nil(t, dispose2)

	dispose1()
	dispose1() // safe twice
	dispose3, err := svc.Register(answer)
	require.NoError(t, err)
	dispose1() // a stale dispose does not unregister the new provider

	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	require.NoError(t, err)
	assert.Equal(t, "go", res.Answer.Answer, "empty line: the recommended option")
	dispose3()

	_, err = svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeNoProvider)
}

func TestDisposeRejectsPendingQuestion(t *testing.T) {
	svc := interaction.NewService(client)
	started := make(chan struct{})
	dispose, err := svc.Register(blocking(started))
	require.NoError(t, err)

	errc := make(chan error, 1)
	go func() {
		_, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
		errc <- err
	}()
	<-started
	dispose()
	he := requireCode(t, <-errc, core.CodeAskAborted)
	assert.Contains(t, he.Message, "disposed")
}

func TestAbortBeforeProviderIsNeverReached(t *testing.T) {
	svc := interaction.NewService(client)
	var calls atomic.Int32
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		calls.Add(1)
		return client.Resolve(ctx, q.Raw, "1")
	}))
	require.NoError(t, err)
	defer dispose()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = svc.Ask(ctx, json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeAskAborted)
	assert.Zero(t, calls.Load())
}

func TestCancelWhileAsking(t *testing.T) {
	svc := interaction.NewService(client)
	started := make(chan struct{})
	dispose, err := svc.Register(blocking(started))
	require.NoError(t, err)
	defer dispose()

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := svc.Ask(ctx, json.RawMessage(request), interaction.AskOptions{})
		errc <- err
	}()
	<-started
	cancel()
	requireCode(t, <-errc, core.CodeAskAborted)
}

func TestTimeoutIsOptInAndReportedAsTimeout(t *testing.T) {
	svc := interaction.NewService(client)
	started := make(chan struct{})
	dispose, err := svc.Register(blocking(started))
	require.NoError(t, err)
	defer dispose()

	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{Timeout: 20 * time.Millisecond})
	he := requireCode(t, err, core.CodeAskTimeout)
	assert.Contains(t, he.Message, "nothing was chosen")
	assert.Nil(t, res.Raw, "a timeout never picks the recommended option")
}

func TestNoTimeoutByDefault(t *testing.T) {
	svc := interaction.NewService(client)
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return engine.Result{}, ctx.Err()
		}
		return client.Resolve(ctx, q.Raw, "typed text")
	}))
	require.NoError(t, err)
	defer dispose()
	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	require.NoError(t, err)
	assert.Equal(t, "typed text", res.Answer.Answer)
	assert.Nil(t, res.Answer.Selected)
}

func TestProviderPanicIsAskFailed(t *testing.T) {
	svc := interaction.NewService(client)
	dispose, err := svc.Register(interaction.ProviderFunc(func(context.Context, interaction.Question) (engine.Result, error) {
		panic("terminal gone")
	}))
	require.NoError(t, err)
	defer dispose()
	_, err = svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	he := requireCode(t, err, core.CodeAskFailed)
	assert.Contains(t, he.Message, "terminal gone")
}

func TestProviderErrorsKeepTheirStructure(t *testing.T) {
	svc := interaction.NewService(client)
	var next error
	dispose, err := svc.Register(interaction.ProviderFunc(func(context.Context, interaction.Question) (engine.Result, error) {
		return engine.Result{}, next
	}))
	require.NoError(t, err)
	defer dispose()

	next = core.NewError(core.CodeAskDeclined, "the person declined")
	_, err = svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeAskDeclined)

	next = errors.New("broken pipe")
	_, err = svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	he := requireCode(t, err, core.CodeAskFailed)
	assert.Contains(t, he.Message, "broken pipe")
}

func TestInvalidRequestsNeverReachTheProvider(t *testing.T) {
	svc := interaction.NewService(client)
	var calls atomic.Int32
	dispose, err := svc.Register(interaction.ProviderFunc(func(ctx context.Context, q interaction.Question) (engine.Result, error) {
		calls.Add(1)
		return client.Resolve(ctx, q.Raw, "1")
	}))
	require.NoError(t, err)
	defer dispose()

	for name, req := range map[string]string{
		"not JSON":         `{"question":`,
		"empty":            ``,
		"no question":      `{"options":[{"label":"A"}]}`,
		"duplicate labels": `{"question":"q","options":[{"label":"A"},{"label":"A"}]}`,
		"wrong type":       `{"question":42}`,
		"not an object":    `["question"]`,
		"trailing garbage": `{"question":"q"} x`,
		"duplicate values": `{"question":"q","options":[{"label":"A","value":"v"},{"label":"B","value":"v"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := svc.Ask(context.Background(), json.RawMessage(req), interaction.AskOptions{})
			requireCode(t, err, core.CodeInvalidRequest)
		})
	}
	assert.Zero(t, calls.Load())
}

func TestNoProviderAfterAbortedContextStillAborts(t *testing.T) {
	// A done ctx wins over everything else: the asking side gave up.
	svc := interaction.NewService(client)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := svc.Ask(ctx, json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeAskAborted)
}

func TestProviderWithoutAnswerOrErrorIsAskFailed(t *testing.T) {
	svc := interaction.NewService(client)
	dispose, err := svc.Register(interaction.ProviderFunc(func(context.Context, interaction.Question) (engine.Result, error) {
		return engine.Result{}, nil
	}))
	require.NoError(t, err)
	defer dispose()
	res, err := svc.Ask(context.Background(), json.RawMessage(request), interaction.AskOptions{})
	requireCode(t, err, core.CodeAskFailed)
	assert.Nil(t, res.Raw)
}
