// Package openaimodel chooses a model served over OpenAI's chat API from
// the environment, for a front door with a model: set
// frontdoor.Settings.FromEnv to FromEnv. It is apart from frontdoor so
// that the front doors without a model (askcore-mcp, askcore-hub) do not
// link the OpenAI client (see RATIONALE.md, "Weight").
package openaimodel

import (
	"fmt"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/model/openai"
)

// Environment variables read by FromEnv.
const (
	EnvDeepSeekAPIKey = "DEEPSEEK_API_KEY"
	EnvOpenAIAPIKey   = "OPENAI_API_KEY"
	EnvOpenAIBaseURL  = "OPENAI_BASE_URL"
	EnvOpenAIModel    = "OPENAI_MODEL"
)

// FromEnv is a frontdoor.ModelFromEnv: DEEPSEEK_API_KEY, else
// OPENAI_API_KEY (with OPENAI_BASE_URL, OPENAI_MODEL), else no model.
func FromEnv(getenv func(string) string) (agent.Model, frontdoor.ModelSource, string, error) {
	if key := getenv(EnvDeepSeekAPIKey); key != "" {
		m, err := openai.New(openai.Config{BaseURL: openai.DeepSeekBaseURL, APIKey: key, Model: openai.DeepSeekModel})
		if err != nil {
			return nil, "", "", err
		}
		return m, frontdoor.SourceDeepSeek, fmt.Sprintf("DeepSeek %s at %s", m.Name(), m.BaseURL()), nil
	}
	if key := getenv(EnvOpenAIAPIKey); key != "" {
		cfg := openai.Config{BaseURL: getenv(EnvOpenAIBaseURL), APIKey: key, Model: getenv(EnvOpenAIModel)}
		if cfg.BaseURL == "" {
			cfg.BaseURL = openai.OpenAIBaseURL
		}
		if cfg.Model == "" {
			cfg.Model = openai.OpenAIModel
		}
		m, err := openai.New(cfg)
		if err != nil {
			return nil, "", "", err
		}
		return m, frontdoor.SourceOpenAI, fmt.Sprintf("%s at %s", m.Name(), m.BaseURL()), nil
	}
	return nil, "", "", nil
}
