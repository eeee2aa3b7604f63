// Package openai is an agent.Model over any OpenAI-compatible chat
// completions API with tool calling (OpenAI, DeepSeek, local servers),
// through the official github.com/openai/openai-go/v3 client.
//
// The client reads nothing from the environment by itself: every setting
// comes from Config (package frontdoor maps the environment variables).
// Requests are retried a bounded number of times on connection errors, 408,
// 409, 429 and 5xx (honouring Retry-After), each attempt has its own
// timeout, and ctx bounds the whole call. API errors come back as *APIError
// with the HTTP status and the server's error code and message. A response
// body is read up to Config.MaxResponseBytes (default 16 MiB) and no
// further: a longer one (or one whose Content-Length says so) fails the
// call with *ResponseTooLargeError naming the limit, never retried.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
)

// Defaults.
const (
	// DeepSeekBaseURL is DeepSeek's public OpenAI-compatible endpoint.
	DeepSeekBaseURL = "https://api.deepseek.com"
	// DeepSeekModel is the model used with DEEPSEEK_API_KEY.
	DeepSeekModel = "deepseek-chat"
	// OpenAIBaseURL is OpenAI's API, used when OPENAI_BASE_URL is unset.
	OpenAIBaseURL = "https://api.openai.com/v1"
	// OpenAIModel is the model used with OPENAI_API_KEY when OPENAI_MODEL
	// is unset: small, cheap, and good at tool calling.
	OpenAIModel = "gpt-4.1-mini"

	DefaultMaxRetries     = 2
	DefaultRequestTimeout = 120 * time.Second
	// DefaultMaxResponseBytes bounds one response body: far above any
	// chat completion (a reply of 100,000 tokens is under 1 MiB of JSON),
	// far below what would hurt the process.
	DefaultMaxResponseBytes = 16 << 20
)

// Config selects the server and model.
type Config struct {
	BaseURL string // required, e.g. OpenAIBaseURL
	APIKey  string // sent as a bearer token; may be empty for local servers
	Model   string // required
	// MaxRetries is how many times a failed attempt is retried (so at most
	// MaxRetries+1 requests). 0 means DefaultMaxRetries; negative means no
	// retry.
	MaxRetries int
	// RequestTimeout bounds each attempt (0: DefaultRequestTimeout). ctx
	// bounds the whole call, retries included.
	RequestTimeout time.Duration
	// MaxRetryDelay, when positive, caps the wait between attempts.
	MaxRetryDelay time.Duration
	// MaxResponseBytes bounds the body of each response, error replies
	// included (0 or negative: DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// HTTPClient, when set, sends the requests.
	HTTPClient *http.Client
}

// Model is an agent.Model over chat completions. Safe for concurrent use.
type Model struct {
	cfg  Config
	chat oai.ChatCompletionService
}

var _ agent.Model = (*Model)(nil)

// New returns a model for cfg.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: no base URL")
	}
	if cfg.Model == "" {
		return nil, errors.New("openai: no model name")
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(timeout),
		option.WithHTTPClient(hc),
	}
	if cfg.MaxRetryDelay > 0 {
		opts = append(opts, option.WithMaxRetryDelay(cfg.MaxRetryDelay))
	}
	limit := cfg.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	opts = append(opts, option.WithMiddleware(limitBody(limit)))
	// The service alone, not oai.NewClient: NewClient would also read
	// OPENAI_* variables from the process environment behind our back.
	return &Model{cfg: cfg, chat: oai.NewChatCompletionService(opts...)}, nil
}

// Name is the model name sent with each request.
func (m *Model) Name() string { return m.cfg.Model }

// BaseURL is the server the model talks to.
func (m *Model) BaseURL() string { return m.cfg.BaseURL }

// APIError is an error reply from the server.
type APIError struct {
	StatusCode int
	Type       string // the error object's "type", when given
	Code       string // the error object's "code", when given
	Message    string // the error object's "message", when given
	Err        error  // the client's error (*oai.Error)
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model API error: HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	} else if e.Type != "" {
		fmt.Fprintf(&b, " (%s)", e.Type)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Err }

// ResponseTooLargeError is a response body over Config.MaxResponseBytes:
// the client stopped reading it at the limit.
type ResponseTooLargeError struct {
	StatusCode int
	Limit      int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("the response (HTTP %d) is over %d bytes, the limit on a model API response (openai.Config.MaxResponseBytes); it was not read further",
		e.StatusCode, e.Limit)
}

// limitBody makes every response body fail once more than limit bytes
// were read (at once when Content-Length is over it).
func limitBody(limit int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err == nil && res != nil && res.Body != nil {
			b := &limitedBody{rc: res.Body, left: limit, tooLarge: &ResponseTooLargeError{StatusCode: res.StatusCode, Limit: limit}}
			if res.ContentLength > limit {
				b.err = b.tooLarge
			}
			res.Body = b
		}
		return res, err
	}
}

// limitedBody is a response body that fails past its limit.
type limitedBody struct {
	rc       io.ReadCloser
	left     int64 // bytes still allowed
	err      error // set once over the limit
	tooLarge error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the limit tells it was over
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		b.err = b.tooLarge
		return 0, b.err
	}
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// Complete sends the conversation and the tools and returns the first
// choice as a reply. A tool call's arguments are the text the API sent,
// unchanged (valid JSON or not): the tool, and for ask_user_question the
// core, judges them.
func (m *Model) Complete(ctx context.Context, messages []agent.Message, tools []askcore.Tool) (agent.Reply, error) {
	params, err := m.params(messages, tools)
	if err != nil {
		return agent.Reply{}, err
	}
	res, err := m.chat.New(ctx, params)
	if err != nil {
		return agent.Reply{}, m.wrap(ctx, err)
	}
	if len(res.Choices) == 0 {
		return agent.Reply{}, fmt.Errorf("openai: %s replied with no choices", m.cfg.Model)
	}
	msg := res.Choices[0].Message
	reply := agent.Reply{Content: msg.Content}
	if reply.Content == "" && msg.Refusal != "" {
		reply.Content = msg.Refusal
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		reply.ToolCalls = append(reply.ToolCalls, agent.ToolCall{
			ID:        tc.ID,
			Name:      tc.Function.Name,
			Arguments: json.RawMessage(tc.Function.Arguments),
		})
	}
	return reply, nil
}

func (m *Model) wrap(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("openai: %w (%v)", ctxErr, err)
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		return &APIError{
			StatusCode: apiErr.StatusCode,
			Type:       apiErr.Type,
			Code:       apiErr.Code,
			Message:    apiErr.Message,
			Err:        err,
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai: %s at %s: request timed out: %w", m.cfg.Model, m.cfg.BaseURL, err)
	}
	return fmt.Errorf("openai: %s at %s: %w", m.cfg.Model, m.cfg.BaseURL, err)
}

func (m *Model) params(messages []agent.Message, tools []askcore.Tool) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(m.cfg.Model)}
	for _, msg := range messages {
		switch msg.Role {
		case agent.RoleSystem:
			p.Messages = append(p.Messages, oai.SystemMessage(msg.Content))
		case agent.RoleUser:
			p.Messages = append(p.Messages, oai.UserMessage(msg.Content))
		case agent.RoleTool:
			p.Messages = append(p.Messages, oai.ToolMessage(msg.Content, msg.ToolCallID))
		case agent.RoleAssistant:
			a := oai.ChatCompletionAssistantMessageParam{}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = oai.String(msg.Content)
			}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID: c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      c.Name,
							Arguments: args,
						},
					},
				})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			return p, fmt.Errorf("openai: message with unknown role %q", msg.Role)
		}
	}
	for _, t := range tools {
		def := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			def.Description = oai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			var params shared.FunctionParameters
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return p, fmt.Errorf("openai: tool %q: parameters are not a JSON object: %w", t.Name, err)
			}
			def.Parameters = params
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(def))
	}
	return p, nil
}
