package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/internal/testing/leaktest"
	"github.com/askcore/askcore/model/openai"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// Response bodies in the shape OpenAI's (and DeepSeek's) chat completions
// endpoint sends them.
const (
	plainReply = `{
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4.1-mini-2025-04-14",
  "choices": [
    {
      "index": 0,
      "message": {"role": "assistant", "content": "Hello! How can I help?", "refusal": null, "annotations": []},
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
  "service_tier": "default",
  "system_fingerprint": "fp_6ec83003ad"
}`
	toolCallReply = `{
  "id": "930c60df-bf64-41c9-a88e-3ec75f81e00e",
  "object": "chat.completion",
  "created": 1741570500,
  "model": "deepseek-chat",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "Let me ask you.",
        "tool_calls": [
          {
            "index": 0,
            "id": "call_0_8f6c2d1e",
            "type": "function",
            "function": {"name": "ask_user_question", "arguments": "{\"question\":\"Which database?\",\"options\":[{\"label\":\"Postgres\",\"value\":\"pg\"}]}"}
          }
        ]
      },
      "logprobs": null,
      "finish_reason": "tool_calls"
    }
  ],
  "usage": {"prompt_tokens": 250, "completion_tokens": 40, "total_tokens": 290, "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 250},
  "system_fingerprint": "fp_3a5770e1b4_prod0225"
}`
	authError = `{
  "error": {
    "message": "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
    "type": "invalid_request_error",
    "param": null,
    "code": "invalid_api_key"
  }
}`
	serverError = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
)

// server is a chat completions endpoint that answers with the given
// handlers in turn (the last one repeats) and records the request bodies.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []map[string]any
	headers  []http.Header
	handlers []http.HandlerFunc
}

func newServer(t *testing.T, handlers ...http.HandlerFunc) *server {
	s := &server{handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		h := s.handlers[min(n, len(s.handlers)-1)]
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After-Ms", "1") // keep retries fast
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func newModel(t *testing.T, s *server, mutate ...func(*openai.Config)) *openai.Model {
	t.Helper()
	cfg := openai.Config{BaseURL: s.URL + "/v1", APIKey: "sk-test", Model: "test-model", HTTPClient: s.Client()}
	for _, f := range mutate {
		f(&cfg)
	}
	m, err := openai.New(cfg)
	require.NoError(t, err)
	return m
}

// askSpec is the ask tool as the core describes it (op schema).
var askSpec = func() askcore.Tool {
	spec, err := askcore.NewCore(nil).Tool(context.Background())
	if err != nil {
		panic(err)
	}
	return spec
}()

func TestPlainReply(t *testing.T) {
	s := newServer(t, reply(200, plainReply))
	m := newModel(t, s)
	r, err := m.Complete(context.Background(), []agent.Message{
		{Role: agent.RoleSystem, Content: "be brief"},
		{Role: agent.RoleUser, Content: "hi"},
	}, []askcore.Tool{askSpec})
	require.NoError(t, err)
	assert.Equal(t, agent.Reply{Content: "Hello! How can I help?"}, r)

	require.Equal(t, 1, s.requests())
	assert.Equal(t, "Bearer sk-test", s.headers[0].Get("Authorization"))
	tools, _ := json.Marshal(s.bodies[0]["tools"])
	delete(s.bodies[0], "tools")
	body, _ := json.Marshal(s.bodies[0])
	assert.JSONEq(t, `{
	  "model": "test-model",
	  "messages": [
	    {"role": "system", "content": "be brief"},
	    {"role": "user", "content": "hi"}
	  ]
	}`, string(body))

	// The tools parameter the server receives is the core's tool: its
	// name, its description, and its schema as op schema wrote it.
	var got []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	require.NoError(t, json.Unmarshal(tools, &got))
	require.Len(t, got, 1)
	assert.Equal(t, "function", got[0].Type)
	assert.Equal(t, askcore.ToolName, got[0].Function.Name)
	assert.Equal(t, askcore.ToolName, askSpec.Name)
	assert.Equal(t, askSpec.Description, got[0].Function.Description)
	assert.JSONEq(t, string(askSpec.Parameters), string(got[0].Function.Parameters))
	// One top-level object schema (what function calling accepts) that
	// offers both a single question and a batch.
	var params struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		OneOf      any                        `json:"oneOf"`
		AnyOf      any                        `json:"anyOf"`
	}
	require.NoError(t, json.Unmarshal(got[0].Function.Parameters, &params))
	assert.Equal(t, "object", params.Type)
	assert.Contains(t, params.Properties, "multiSelect")
	assert.Contains(t, params.Properties, "questions")
	assert.Contains(t, params.Properties, "question")
	assert.Nil(t, params.OneOf)
	assert.Nil(t, params.AnyOf)
}

// TestToolsParameterCarriesPreview: the tools parameter the server
// receives offers an option's preview in both places an
// option is described, a single question's options and each batch
// question's options, as the core's schema says it: a string, bounded,
// described for options compared by looking.
func TestToolsParameterCarriesPreview(t *testing.T) {
	s := newServer(t, reply(200, plainReply))
	m := newModel(t, s)
	_, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, []askcore.Tool{askSpec})
	require.NoError(t, err)
	require.Equal(t, 1, s.requests())

	wire, err := json.Marshal(s.bodies[0]["tools"])
	require.NoError(t, err)
	type property struct {
		Type        string `json:"type"`
		Description string `json:"description"`
		MaxLength   int    `json:"maxLength"`
	}
	type options struct {
		Items struct {
			Properties           map[string]property `json:"properties"`
			AdditionalProperties *bool               `json:"additionalProperties"`
		} `json:"items"`
	}
	var tools []struct {
		Function struct {
			Parameters struct {
				Properties struct {
					Options   options `json:"options"`
					Questions struct {
						Items struct {
							Properties struct {
								Options options `json:"options"`
							} `json:"properties"`
						} `json:"items"`
					} `json:"questions"`
				} `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	}
	require.NoError(t, json.Unmarshal(wire, &tools))
	require.Len(t, tools, 1)
	params := tools[0].Function.Parameters.Properties
	for where, o := range map[string]options{"options": params.Options, "questions[].options": params.Questions.Items.Properties.Options} {
		p, ok := o.Items.Properties["preview"]
		require.True(t, ok, "%s: the option properties carry preview: %s", where, wire)
		assert.Equal(t, "string", p.Type, where)
		assert.Equal(t, 8000, p.MaxLength, where)
		assert.Contains(t, p.Description, "compared by looking", where)
		assert.Contains(t, o.Items.Properties, "description", where)
		require.NotNil(t, o.Items.AdditionalProperties, where)
		assert.False(t, *o.Items.AdditionalProperties, "%s: a closed object, so preview is declared, not tolerated", where)
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	s := newServer(t, reply(200, toolCallReply), reply(200, plainReply))
	m := newModel(t, s)
	history := []agent.Message{{Role: agent.RoleUser, Content: "set it up"}}
	r, err := m.Complete(context.Background(), history, []askcore.Tool{askSpec})
	require.NoError(t, err)
	assert.Equal(t, "Let me ask you.", r.Content)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, "call_0_8f6c2d1e", r.ToolCalls[0].ID)
	assert.Equal(t, "ask_user_question", r.ToolCalls[0].Name)
	assert.Equal(t, `{"question":"Which database?","options":[{"label":"Postgres","value":"pg"}]}`, string(r.ToolCalls[0].Arguments))

	history = append(history,
		agent.Message{Role: agent.RoleAssistant, Content: r.Content, ToolCalls: r.ToolCalls},
		agent.Message{Role: agent.RoleTool, ToolCallID: "call_0_8f6c2d1e", ToolName: "ask_user_question",
			Content: `{"answer":"pg","selected":{"index":0,"label":"Postgres","value":"pg"}}`},
		agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_2", Name: "ask_user_question", Arguments: json.RawMessage(`{"question": "bro`)}}},
		agent.Message{Role: agent.RoleTool, ToolCallID: "call_2", ToolName: "ask_user_question", IsError: true,
			Content: `{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"not JSON"}`},
	)
	_, err = m.Complete(context.Background(), history, []askcore.Tool{askSpec})
	require.NoError(t, err)
	require.Equal(t, 2, s.requests())
	msgs, _ := json.Marshal(s.bodies[1]["messages"])
	assert.JSONEq(t, `[
	  {"role": "user", "content": "set it up"},
	  {"role": "assistant", "content": "Let me ask you.", "tool_calls": [{"id": "call_0_8f6c2d1e", "type": "function",
	    "function": {"name": "ask_user_question", "arguments": "{\"question\":\"Which database?\",\"options\":[{\"label\":\"Postgres\",\"value\":\"pg\"}]}"}}]},
	  {"role": "tool", "tool_call_id": "call_0_8f6c2d1e", "content": "{\"answer\":\"pg\",\"selected\":{\"index\":0,\"label\":\"Postgres\",\"value\":\"pg\"}}"},
	  {"role": "assistant", "tool_calls": [{"id": "call_2", "type": "function",
	    "function": {"name": "ask_user_question", "arguments": "{\"question\": \"bro"}}]},
	  {"role": "tool", "tool_call_id": "call_2", "content": "{\"name\":\"UserInteractionError\",\"code\":\"INVALID_REQUEST\",\"message\":\"not JSON\"}"}
	]`, string(msgs))
}

func TestAPIErrorIsClearAndNotRetried(t *testing.T) {
	s := newServer(t, reply(401, authError))
	m := newModel(t, s)
	_, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.Error(t, err)
	var apiErr *openai.APIError
	require.True(t, errors.As(err, &apiErr), "%T: %v", err, err)
	assert.Equal(t, 401, apiErr.StatusCode)
	assert.Equal(t, "invalid_api_key", apiErr.Code)
	assert.Equal(t, "invalid_request_error", apiErr.Type)
	assert.Contains(t, apiErr.Message, "Incorrect API key")
	assert.Contains(t, err.Error(), "HTTP 401")
	assert.Contains(t, err.Error(), "invalid_api_key")
	assert.Equal(t, 1, s.requests(), "a 4xx is not retried")
}

func TestServerErrorThenSuccessIsRetried(t *testing.T) {
	s := newServer(t, reply(500, serverError), reply(503, serverError), reply(200, plainReply))
	m := newModel(t, s, func(c *openai.Config) { c.MaxRetries = 2 })
	r, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Hello! How can I help?", r.Content)
	assert.Equal(t, 3, s.requests())
}

func TestRetriesAreBounded(t *testing.T) {
	s := newServer(t, reply(500, serverError))
	m := newModel(t, s, func(c *openai.Config) { c.MaxRetries = 2 })
	_, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	var apiErr *openai.APIError
	require.True(t, errors.As(err, &apiErr), "%T: %v", err, err)
	assert.Equal(t, 500, apiErr.StatusCode)
	assert.Contains(t, err.Error(), "server_error")
	assert.Equal(t, 3, s.requests(), "one attempt plus two retries")

	s2 := newServer(t, reply(500, serverError))
	m2 := newModel(t, s2, func(c *openai.Config) { c.MaxRetries = -1 })
	_, err = m2.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.Error(t, err)
	assert.Equal(t, 1, s2.requests(), "negative: no retry")
}

func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// hangReached hangs like hang and closes reached when the request arrived.
func hangReached(reached chan struct{}) http.HandlerFunc {
	var once sync.Once
	return func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(reached) })
		hang(w, r)
	}
}

// The arguments a model sent come back as the text the API carried,
// unchanged: spacing, escapes, invalid JSON and all.
func TestArgumentsAreTheTextTheAPISent(t *testing.T) {
	for _, args := range []string{
		`{ "question" : "Which?\u003c" , "options": ["a"] }`,
		`{"question": "bro`,
		`{"question":"Q?","options":["a","b"]},"junk":1`,
		``,
	} {
		encoded, err := json.Marshal(args)
		require.NoError(t, err)
		body := `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
			`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ask_user_question","arguments":` +
			string(encoded) + `}}]}}]}`
		s := newServer(t, reply(200, body))
		r, err := newModel(t, s).Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
		require.NoError(t, err)
		require.Len(t, r.ToolCalls, 1)
		assert.Equal(t, args, string(r.ToolCalls[0].Arguments))
	}
}

func TestRequestTimeout(t *testing.T) {
	s := newServer(t, hang)
	m := newModel(t, s, func(c *openai.Config) {
		c.RequestTimeout = 50 * time.Millisecond
		c.MaxRetries = -1
	})
	start := time.Now()
	_, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "timed out")
	assert.Contains(t, err.Error(), "test-model")
}

func TestContextCancellation(t *testing.T) {
	reached := make(chan struct{})
	s := newServer(t, hangReached(reached))
	m := newModel(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-reached
		cancel()
	}()
	_, err := m.Complete(ctx, []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, s.requests(), "no retry after cancellation")
}

func TestNoChoicesAndBadConfig(t *testing.T) {
	s := newServer(t, reply(200, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`))
	_, err := newModel(t, s).Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no choices")

	_, err = openai.New(openai.Config{Model: "m"})
	require.Error(t, err)
	_, err = openai.New(openai.Config{BaseURL: "http://x"})
	require.Error(t, err)
}

// TestDrivesTheAgentLoop runs the real loop against the server, with the
// real ask tool: the model is offered the core's tool, the tool call is
// executed (a person answers "1") and the core's answer is sent back with
// the call's id.
func TestDrivesTheAgentLoop(t *testing.T) {
	s := newServer(t, reply(200, toolCallReply), reply(200, plainReply))
	c := askcore.NewCore(nil)
	svc := askcore.NewService(c)
	var asked []string
	dispose, err := svc.Register(askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
		asked = append(asked, call.Questions[0].Question)
		return askcore.Lines("1"), nil
	}))
	require.NoError(t, err)
	defer dispose()
	reg := agent.NewRegistry(c)
	require.NoError(t, reg.AddAsk(context.Background(), svc, 0))
	a := &agent.Agent{Model: newModel(t, s), Tools: reg}
	require.NoError(t, a.Run(context.Background(), "go"))
	require.Equal(t, 2, s.requests())
	assert.Equal(t, []string{"Which database?"}, asked)
	for i := range 2 {
		tools, err := json.Marshal(s.bodies[i]["tools"])
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"function","function":{"name":"ask_user_question","description":`+
			mustJSON(t, askSpec.Description)+`,"parameters":`+string(askSpec.Parameters)+`}}]`, string(tools), "request %d", i)
	}
	msgs := s.bodies[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	assert.Equal(t, "tool", last["role"])
	assert.Equal(t, "call_0_8f6c2d1e", last["tool_call_id"])
	assert.Equal(t, `{"answer":"pg","selected":{"index":0,"label":"Postgres","value":"pg"}}`, last["content"])
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// A Retry-After the server sends is honoured up to Config.MaxRetryDelay;
// an error code that is a number (some compatible servers) reads as text.
func TestRetryAfterAndNumericCode(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","code":429}}`)
	})
	m := newModel(t, s, func(c *openai.Config) { c.MaxRetries = 1; c.MaxRetryDelay = time.Millisecond })
	start := time.Now()
	_, err := m.Complete(context.Background(), []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, nil)
	assert.Less(t, time.Since(start), 10*time.Second, "the 30 s asked for is capped")
	var apiErr *openai.APIError
	require.True(t, errors.As(err, &apiErr), "%T: %v", err, err)
	assert.Equal(t, 429, apiErr.StatusCode)
	assert.Equal(t, "429", apiErr.Code)
	assert.Equal(t, "slow down", apiErr.Message)
	assert.Equal(t, 2, s.requests())
}
