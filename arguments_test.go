package askcore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// TestCallArguments: a provider sees the model's arguments text exactly
// as written (spacing, key order, escapes), to send it on to a core of
// its own (the hub's).
func TestCallArguments(t *testing.T) {
	const args = "{ \"options\":[{\"label\":\"A\"},{\"label\":\"B\"}],\n \"question\":\"Pick \\u0041?\" }"
	var got string
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(_ context.Context, c *askcore.Call) (askcore.Reply, error) {
		got = c.Arguments()
		return askcore.Lines("1"), nil
	}))
	require.NoError(t, err)
	defer dispose()
	_, err = svc.Ask(context.Background(), args, askcore.AskOptions{})
	require.NoError(t, err)
	assert.Equal(t, args, got)

	call, err := askcore.NewCore(nil).Normalize(context.Background(), args)
	require.NoError(t, err)
	assert.Equal(t, args, call.Arguments())
}
