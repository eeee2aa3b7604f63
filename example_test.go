package askcore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
)

// A provider of your own hands back what the person gave (here: they typed
// 2); the core turns it into the answer the model receives.
func ExampleService() {
	svc := askcore.NewService(nil) // the rules, natively
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines("2"), nil
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	arguments := `{"question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite"}]}`
	answer, err := svc.Ask(context.Background(), arguments, askcore.AskOptions{})
	result, isError := askcore.ToolResult(answer, err)
	fmt.Println(string(result), isError)
	// Output:
	// asked: Which database?
	// {"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}} false
}

// A provider that re-asks until the line fits: CheckLine's error is the
// core's message for the person, and its summary the echo of what the line
// chose.
func ExampleCall_CheckLine() {
	typed := bufio.NewScanner(strings.NewReader("7\nMySQL\n2\n")) // what the person types
	provider := askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		for typed.Scan() {
			line := typed.Text()
			fmt.Println(">", line)
			chose, err := call.CheckLine(ctx, 0, line)
			if err != nil {
				fmt.Println(askcore.AsError(err).Message) // ask again
				continue
			}
			fmt.Println("→", chose)
			return askcore.Lines(line), nil
		}
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationEOF}
	})

	svc := askcore.NewService(nil)
	dispose, err := svc.Register(provider)
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()
	answer, err := svc.Ask(context.Background(), `{"question":"Which database?","options":["PostgreSQL","SQLite"]}`, askcore.AskOptions{})
	result, _ := askcore.ToolResult(answer, err)
	fmt.Println(string(result))
	// Output:
	// > 7
	// "7" is not one of the options. Type the number of an option (1-2) or its label.
	// > MySQL
	// "MySQL" is not one of the options. Type the number of an option (1-2) or its label.
	// > 2
	// → SQLite
	// {"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}
}

// The same rules compiled to WebAssembly, run by wazero: the same bytes.
func Example_wasm() {
	ctx := context.Background()
	// hostgo.New(ctx) caches the compiled module on disk; this example
	// keeps it in memory.
	engine, err := hostgo.New(ctx, hostgo.WithMemoryCompilationCache())
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)

	svc := askcore.NewService(askcore.NewCore(engine))
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return askcore.Lines("2"), nil
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	arguments := `{"question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite"}]}`
	answer, err := svc.Ask(ctx, arguments, askcore.AskOptions{})
	result, isError := askcore.ToolResult(answer, err)
	fmt.Println(string(result), isError)
	// Output:
	// {"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}} false
}

// Adding ask_user_question to an openai-go chat-completions loop: the
// core's tool as a function tool, and each call's arguments, as the model
// wrote them, to Service.Ask.
func Example_openai() {
	ctx := context.Background()
	api := fakeOpenAI() // stands in for the OpenAI API (see fakeOpenAI)
	defer api.Close()
	client := openai.NewClient(option.WithBaseURL(api.URL))

	svc := askcore.NewService(nil)
	// A person who presses Enter; in a terminal program: termui.Open(ctx, svc.Core()).
	dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		fmt.Println("asked:", call.Questions[0].Question)
		return askcore.Lines(""), nil
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer dispose()

	tool, err := svc.Core().Tool(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var parameters openai.FunctionParameters
	if err := json.Unmarshal(tool.Parameters, &parameters); err != nil {
		log.Fatal(err)
	}
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_4Mini,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Set up a database for the app.")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: tool.Name, Description: openai.String(tool.Description), Parameters: parameters,
		})},
	}
	for {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		message := completion.Choices[0].Message
		if len(message.ToolCalls) == 0 {
			fmt.Println(message.Content)
			return
		}
		params.Messages = append(params.Messages, message.ToParam())
		for _, toolCall := range message.ToolCalls {
			if toolCall.Function.Name == askcore.ToolName {
				answer, err := svc.Ask(ctx, toolCall.Function.Arguments, askcore.AskOptions{})
				result, _ := askcore.ToolResult(answer, err) // the answer, or the error for the model
				params.Messages = append(params.Messages, openai.ToolMessage(string(result), toolCall.ID))
			}
		}
	}
	// Output:
	// asked: Which database?
	// the tool said: {"answer":"PostgreSQL","selected":{"index":0,"label":"PostgreSQL","value":"PostgreSQL"}}
}

// fakeOpenAI is a chat-completions endpoint whose model calls
// ask_user_question once, then answers with the tool result it received.
func fakeOpenAI() *httptest.Server {
	const toolCall = `{"id":"chatcmpl-1","object":"chat.completion","created":0,"model":"gpt-5.4-mini","choices":[{"index":0,` +
		`"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",` +
		`"function":{"name":"ask_user_question","arguments":%s}}]}}]}`
	const final = `{"id":"chatcmpl-2","object":"chat.completion","created":0,"model":"gpt-5.4-mini","choices":[{"index":0,` +
		`"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`
	arguments := `{"question":"Which database?","options":[{"label":"PostgreSQL","recommended":true},{"label":"SQLite"}]}`
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools    []json.RawMessage
			Messages []struct {
				Role    string
				Content string
			}
		}
		if r.URL.Path != "/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Tools) != 1 {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			fmt.Fprintf(w, toolCall, jsonString(arguments))
			return
		}
		fmt.Fprintf(w, final, jsonString("the tool said: "+last.Content))
	}))
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
