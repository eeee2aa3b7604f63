// Package openai is an agent.Model over any OpenAI-compatible chat
// completions API with tool calling (OpenAI, DeepSeek, local servers).
// It speaks the one endpoint it needs (POST /chat/completions) with
// net/http and encoding/json: the official client, github.com/openai/
// openai-go, was half of a front door's stripped binary (16 MB of 31)
// and most of its cold build, for this one request (RATIONALE.md,
// "Weight").
//
// The client reads nothing from the environment by itself: every setting
// comes from Config (package frontdoor/openaimodel maps the environment
// variables). Requests are retried a bounded number of times on connection
// errors, 408, 409, 429 and 5xx (honouring Retry-After-Ms and
// Retry-After), each attempt has its own timeout, and ctx bounds the whole
// call. API errors come back as *APIError with the HTTP status and the
// server's error code and message. A response body is read up to
// Config.MaxResponseBytes (default 16 MiB) and no further: a longer one (or
// one whose Content-Length says so) fails the call with
// *ResponseTooLargeError naming the limit, never retried.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	cfg      Config
	url      string // BaseURL + "/chat/completions"
	retries  int
	timeout  time.Duration
	limit    int64
	maxDelay time.Duration
	hc       *http.Client
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
	m := &Model{
		cfg:      cfg,
		url:      strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions",
		retries:  cfg.MaxRetries,
		timeout:  cfg.RequestTimeout,
		limit:    cfg.MaxResponseBytes,
		maxDelay: maxBackoff,
		hc:       cfg.HTTPClient,
	}
	switch {
	case m.retries == 0:
		m.retries = DefaultMaxRetries
	case m.retries < 0:
		m.retries = 0
	}
	if m.timeout <= 0 {
		m.timeout = DefaultRequestTimeout
	}
	if m.limit <= 0 {
		m.limit = DefaultMaxResponseBytes
	}
	if cfg.MaxRetryDelay > 0 {
		m.maxDelay = cfg.MaxRetryDelay
	}
	if m.hc == nil {
		m.hc = &http.Client{}
	}
	return m, nil
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

// Complete sends the conversation and the tools and returns the first
// choice as a reply. A tool call's arguments are the text the API sent,
// unchanged (valid JSON or not): the tool, and for ask_user_question the
// core, judges them.
func (m *Model) Complete(ctx context.Context, messages []agent.Message, tools []askcore.Tool) (agent.Reply, error) {
	req, err := m.request(messages, tools)
	if err != nil {
		return agent.Reply{}, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return agent.Reply{}, fmt.Errorf("openai: %w", err)
	}
	var res chatResponse
	if err := m.post(ctx, body, &res); err != nil {
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

// The backoff between attempts when the server names no delay: doubling
// from initialBackoff up to maxBackoff, less up to a quarter of jitter
// (the schedule of the official clients).
const (
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
	// maxRetryAfter is the longest Retry-After honoured; a longer one
	// falls back to the backoff.
	maxRetryAfter = 60 * time.Second
)

// post sends body and decodes a 2xx reply into out, retrying as the
// package comment says.
func (m *Model) post(ctx context.Context, body []byte, out any) error {
	for attempt := 0; ; attempt++ {
		status, header, data, err := m.attempt(ctx, body)
		var tooLarge *ResponseTooLargeError
		final := attempt >= m.retries || ctx.Err() != nil || errors.As(err, &tooLarge) && status < 300
		switch {
		case err != nil && (final || status != 0 && !retryable(status)):
			return err
		case err == nil && status < 300:
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("decoding the reply: %w", err)
			}
			return nil
		case err == nil && (final || !retryable(status)):
			return apiError(status, data)
		}
		t := time.NewTimer(m.delay(header, attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// attempt is one request within its own timeout: the status (0 when no
// response came), the headers and the body read up to the limit.
func (m *Model) attempt(ctx context.Context, body []byte) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if m.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	res, err := m.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	tooLarge := &ResponseTooLargeError{StatusCode: res.StatusCode, Limit: m.limit}
	if res.ContentLength > m.limit {
		return res.StatusCode, res.Header, nil, tooLarge
	}
	// One byte past the limit tells it was over.
	data, err := io.ReadAll(io.LimitReader(res.Body, m.limit+1))
	if err != nil {
		return res.StatusCode, res.Header, nil, err
	}
	if int64(len(data)) > m.limit {
		return res.StatusCode, res.Header, nil, tooLarge
	}
	return res.StatusCode, res.Header, data, nil
}

// retryable is a status worth another attempt.
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// delay is the wait before the attempt after attempt: what the server
// asked for (Retry-After-Ms, else Retry-After in seconds or as a date)
// when it is within maxRetryAfter, else the backoff; at most
// Config.MaxRetryDelay when set.
func (m *Model) delay(h http.Header, attempt int) time.Duration {
	d := time.Duration(-1)
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil {
		d = time.Duration(ms * float64(time.Millisecond))
	} else if v := h.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(secs * float64(time.Second))
		} else if at, err := http.ParseTime(v); err == nil {
			d = time.Until(at)
		}
	}
	if d < 0 || d > maxRetryAfter {
		d = min(initialBackoff<<attempt, maxBackoff)
		d -= time.Duration(rand.Float64() * 0.25 * float64(d))
	}
	return min(d, m.maxDelay)
}

// apiError is the error a non-2xx reply carries ({"error": {...}}).
func apiError(status int, data []byte) error {
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	e := &APIError{StatusCode: status}
	if json.Unmarshal(data, &body) == nil {
		e.Message, e.Type = body.Error.Message, body.Error.Type
		// The code is a string for OpenAI, a number or null elsewhere.
		if err := json.Unmarshal(body.Error.Code, &e.Code); err != nil && string(body.Error.Code) != "null" {
			e.Code = string(body.Error.Code)
		}
	}
	return e
}

func (m *Model) wrap(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("openai: %w (%v)", ctxErr, err)
	}
	var apiErr *APIError
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &apiErr) || errors.As(err, &tooLarge) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai: %s at %s: request timed out: %w", m.cfg.Model, m.cfg.BaseURL, err)
	}
	return fmt.Errorf("openai: %s at %s: %w", m.cfg.Model, m.cfg.BaseURL, err)
}

// The request and reply bodies of POST /chat/completions, the fields used.
type (
	chatRequest struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
		Tools    []chatTool    `json:"tools,omitempty"`
	}
	chatMessage struct {
		Role       string         `json:"role"`
		Content    *string        `json:"content,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
		ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	}
	chatToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	chatTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters,omitempty"`
		} `json:"function"`
	}
	chatResponse struct {
		Choices []struct {
			Message struct {
				Content   string         `json:"content"`
				Refusal   string         `json:"refusal"`
				ToolCalls []chatToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
)

func (m *Model) request(messages []agent.Message, tools []askcore.Tool) (chatRequest, error) {
	p := chatRequest{Model: m.cfg.Model}
	for _, msg := range messages {
		switch msg.Role {
		case agent.RoleSystem, agent.RoleUser:
			p.Messages = append(p.Messages, chatMessage{Role: string(msg.Role), Content: &msg.Content})
		case agent.RoleTool:
			p.Messages = append(p.Messages, chatMessage{Role: string(msg.Role), Content: &msg.Content, ToolCallID: msg.ToolCallID})
		case agent.RoleAssistant:
			a := chatMessage{Role: string(msg.Role)}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content = &msg.Content
			}
			for _, c := range msg.ToolCalls {
				tc := chatToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name = c.Name
				tc.Function.Arguments = string(c.Arguments)
				if tc.Function.Arguments == "" {
					tc.Function.Arguments = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, tc)
			}
			p.Messages = append(p.Messages, a)
		default:
			return p, fmt.Errorf("openai: message with unknown role %q", msg.Role)
		}
	}
	for _, t := range tools {
		def := chatTool{Type: "function"}
		def.Function.Name, def.Function.Description = t.Name, t.Description
		if len(t.Parameters) > 0 {
			var params map[string]json.RawMessage
			if err := json.Unmarshal(t.Parameters, &params); err != nil || params == nil {
				if err == nil {
					err = errors.New("null")
				}
				return p, fmt.Errorf("openai: tool %q: parameters are not a JSON object: %w", t.Name, err)
			}
			def.Function.Parameters = t.Parameters
		}
		p.Tools = append(p.Tools, def)
	}
	return p, nil
}
