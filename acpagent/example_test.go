package acpagent_test

import (
	"context"
	"fmt"
	"io"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/acpagent"
	"github.com/askcore/askcore/agent"
)

// A Go program serves askcore's ACP agent with its own service and its own
// conversation (here one that asks a question and reports the answer; an
// *agent.Agent running a model is the usual one). The client is
// acp-go-sdk's client side over pipes, answering the form in place of an
// editor.
func Example() {
	core := askcore.NewCore(nil)
	svc := askcore.NewService(core)
	a := acpagent.New(acpagent.Options{Start: acpagent.Ready(acpagent.Backend{
		Core:    core,
		Service: svc,
		NewConversation: func(agentID, sessionID string, hooks agent.Hooks) acpagent.Conversation {
			return asker{svc, askcore.Identity{AgentID: agentID, SessionID: sessionID, ToolCallID: "call_1"}, hooks}
		},
	})})
	defer a.Close(context.Background())

	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	go a.Serve(context.Background(), toAgent, fromAgent)

	ctx := context.Background()
	conn := acp.NewClientSideConnection(editor{}, fromClient, toClient)
	conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}},
	})
	s, _ := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	r, _ := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
	fmt.Println(r.StopReason)
	fromClient.Close()
	// Output:
	// asked: Which database?
	// agent: the core's answer: {"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}
	// end_turn
}

// asker is a conversation that asks one question through the service.
type asker struct {
	svc   *askcore.Service
	from  askcore.Identity
	hooks agent.Hooks
}

func (c asker) Run(ctx context.Context, prompt string) error {
	a, err := c.svc.Ask(ctx, `{"question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite"}]}`,
		askcore.AskOptions{From: c.from})
	if err != nil {
		return err
	}
	c.hooks.OnText("the core's answer: " + string(a.JSON()))
	return nil
}

// editor is the client: it shows the form (it prints its message) and
// picks SQLite.
type editor struct{ acp.Client }

func (editor) UnstableCreateElicitation(_ context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	fmt.Println("asked:", p.Form.Message)
	return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"choice": "sqlite"}}}, nil
}

func (editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		fmt.Println("agent:", c.Content.Text.Text)
	}
	return nil
}
