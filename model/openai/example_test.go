package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/model/openai"
)

// An agent on an OpenAI-compatible API: the model calls ask_user_question,
// the person answers, and the model receives the core's answer.
func ExampleNew() {
	api := fakeChatAPI() // stands in for the API (see fakeChatAPI)
	defer api.Close()
	model, err := openai.New(openai.Config{
		BaseURL:    api.URL + "/v1", // e.g. openai.OpenAIBaseURL
		APIKey:     "sk-test",
		Model:      openai.OpenAIModel,
		HTTPClient: api.Client(),
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines(""), nil // Enter: the recommended option
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	tools := agent.NewRegistry(svc.Core())
	if err := tools.AddAsk(ctx, svc, 0); err != nil {
		log.Fatal(err)
	}

	a := &agent.Agent{Model: model, Tools: tools, Hooks: agent.Hooks{OnText: func(text string) { fmt.Println(text) }}}
	if err := a.Run(ctx, "Set up a database for the app."); err != nil {
		log.Fatal(err)
	}
	// Output:
	// asked: Which database?
	// The tool said: {"answer":"pg","selected":{"index":0,"label":"PostgreSQL","value":"pg"}}
}

// fakeChatAPI is a chat completions endpoint whose model calls
// ask_user_question once (when it was given the tool), then replies with the
// tool result it received.
func fakeChatAPI() *httptest.Server {
	const toolCall = `{"id":"chatcmpl-1","object":"chat.completion","created":0,"model":"gpt-4.1-mini","choices":[{"index":0,` +
		`"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",` +
		`"function":{"name":"ask_user_question","arguments":%s}}]}}]}`
	const final = `{"id":"chatcmpl-2","object":"chat.completion","created":0,"model":"gpt-4.1-mini","choices":[{"index":0,` +
		`"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`
	arguments := `{"question":"Which database?","options":[{"label":"PostgreSQL","value":"pg","recommended":true},{"label":"SQLite"}]}`
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Function struct{ Name string }
			}
			Messages []struct {
				Role    string
				Content string
			}
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil ||
			len(req.Tools) != 1 || req.Tools[0].Function.Name != askcore.ToolName {
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			fmt.Fprintf(w, final, jsonString("The tool said: "+last.Content))
			return
		}
		fmt.Fprintf(w, toolCall, jsonString(arguments))
	}))
}

// jsonString is s as a JSON string.
func jsonString(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}
