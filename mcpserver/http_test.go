package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/coretest"
)

// TestHandlerServesSessionsOverHTTP: two clients over streamable HTTP,
// each its own session (a fresh go-sdk server each), list the core's tool
// and get the core's answers from the service's provider.
func TestHandlerServesSessionsOverHTTP(t *testing.T) {
	ctx := context.Background()
	svc := askcore.NewService(nativeCore)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines("2"), nil
	}))
	require.NoError(t, err)
	defer dispose()
	srv, err := New(svc, nil)
	require.NoError(t, err)
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler(nil))
	defer hs.Close()

	want, isErr := coretest.FormAnswer(t, strictArgs, `{"action":"accept","content":{"choice":"prod"}}`)
	require.False(t, isErr)
	tool, err := nativeCore.Tool(ctx)
	require.NoError(t, err)
	sessions := map[string]bool{}
	for i := range 2 {
		c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		require.NoError(t, err, "client %d", i)
		sessions[cs.ID()] = true
		tools, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		require.Len(t, tools.Tools, 1)
		assert.Equal(t, tool.Name, tools.Tools[0].Name)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(strictArgs)})
		require.NoError(t, err)
		assertBytes(t, res, want, false)
		require.NoError(t, cs.Close())
	}
	assert.Len(t, sessions, 2, "each client its own session")
}
