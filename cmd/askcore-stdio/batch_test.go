package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// Arguments texts as a model writes them.
const (
	colourArgs = `{"header":"Colour","question":"Which colour?","options":[{"label":"Red","value":"red"},` +
		`{"label":"Blue","value":"blue","recommended":true},{"label":"Green","value":"green"}]}`
	featuresArgs = `{"header":"Features","question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},` +
		`{"label":"Billing","value":"billing"},{"label":"Search","value":"search"}],"multiSelect":true,"allowCustom":true}`
	checksArgs = `{"question":"Which checks?","options":[{"label":"Lint","value":"lint"},{"label":"Tests","value":"tests"},` +
		`{"label":"Fuzz","value":"fuzz"}],"multiSelect":true}`
	nameArgs  = `{"question":"What should the release be called?"}`
	batchArgs = `{"questions":[` + colourArgs + `,` + checksArgs + `,` + nameArgs + `]}`
)

// resolveAll is the core's answer to arguments from one line per question.
func resolveAll(t *testing.T, arguments string, lines ...string) string {
	t.Helper()
	call := nativeCall(t, arguments)
	res, err := call.Resolve(context.Background(), askcore.Lines(lines...))
	require.NoError(t, err)
	return string(res.JSON())
}

// present is the core's text for question i of arguments.
func present(t *testing.T, arguments string, i int) string {
	t.Helper()
	p, err := nativeCall(t, arguments).Present(context.Background(), i)
	require.NoError(t, err)
	return strings.TrimRight(p.Text, "\n")
}

// fakeModel is an OpenAI-compatible chat completions server: its first
// reply calls ask_user_question with arguments (as text, as OpenAI sends
// them); the next reply ends the turn. It records the tool result the model
// received.
type fakeModel struct {
	*httptest.Server
	mu         sync.Mutex
	toolResult string
}

func newFakeModel(t *testing.T, arguments string) *fakeModel {
	t.Helper()
	m := &fakeModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var tool *string
		for _, msg := range body.Messages {
			if msg.Role == "tool" {
				var s string
				_ = json.Unmarshal(msg.Content, &s)
				tool = &s
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if tool == nil {
			args, _ := json.Marshal(arguments)
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"fake","choices":[{"index":0,`+
				`"message":{"role":"assistant","content":"Let me ask.","tool_calls":[{"id":"call_1","type":"function",`+
				`"function":{"name":"ask_user_question","arguments":%s}}]},"finish_reason":"tool_calls"}]}`, args)
			return
		}
		m.mu.Lock()
		m.toolResult = *tool
		m.mu.Unlock()
		_, _ = io.WriteString(w, `{"id":"c2","object":"chat.completion","created":1,"model":"fake","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"Thanks."},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *fakeModel) env() []string {
	return baseEnv("OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+m.URL, "OPENAI_MODEL=fake")
}

func (m *fakeModel) received() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.toolResult
}

// TestChatBatchThroughPipe: a model asks a batch with a multi-select
// question; the person answers line by line through a pipe, with invalid
// lines re-asked; the model receives the core's answer to the whole batch,
// byte for byte. On both engines.
func TestChatBatchThroughPipe(t *testing.T) {
	for _, eng := range []string{"native", "wasm"} {
		t.Run(eng, func(t *testing.T) {
			model := newFakeModel(t, batchArgs)
			stdout, stderr, code := runWith(t, model.env(), strings.Join([]string{
				"plan the release", // the prompt
				"1",                // Colour: Blue (recommended, shown first)
				"2, nope",          // Which checks: no free text: asked again
				"fuzz,Tests",       // by label and value, any order
				"",                 // the name: an empty line is asked again
				"Aurora",
			}, "\n")+"\n", "--engine", eng)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Empty(t, stderr)

			assert.Equal(t, resolveAll(t, batchArgs, "1", "fuzz,Tests", "Aurora"), model.received())
			assert.Equal(t, `{"answers":[{"question":"Which colour?","answer":"blue","selected":{"index":1,"label":"Blue","value":"blue"}},`+
				`{"question":"Which checks?","answers":["tests","fuzz"],"selected":[{"index":1,"label":"Tests","value":"tests"},`+
				`{"index":2,"label":"Fuzz","value":"fuzz"}]},{"question":"What should the release be called?","answer":"Aurora"}]}`,
				model.received())

			rule := "\n? " + strings.Repeat("─", 46) + "\n"
			assert.Equal(t, "Let me ask.\n"+
				rule+present(t, batchArgs, 0)+"\n? \n→ Blue\n"+
				rule+present(t, batchArgs, 1)+"\n? \n"+reprompt(t, batchArgs, 1, "2, nope")+"\n? \n→ Tests, Fuzz\n"+
				rule+present(t, batchArgs, 2)+"\n? \n"+reprompt(t, batchArgs, 2, "")+"\n? \n→ Aurora\n"+
				"Thanks.\n", stdout)
		})
	}
}

// TestChatErrorKeepsTheCoresBytes: a request the core rejects reaches the
// model as the core wrote it, byte for byte (the core escapes '<' as
// \u003c, as encoding/json does), and its message quotes the model's text
// as it is ("<A>") in the line on stderr, for people.
func TestChatErrorKeepsTheCoresBytes(t *testing.T) {
	const args = `{"question":"Q?","options":["<a>","<A>"]}`
	_, rejected := native.Normalize(context.Background(), args)
	var he *askcore.Error
	require.ErrorAs(t, rejected, &he)
	require.Contains(t, he.Message, `"<A>"`)
	require.Contains(t, string(he.JSON()), `\"\u003cA\u003e\"`)

	model := newFakeModel(t, args)
	stdout, stderr, code := runWith(t, model.env(), "go\n", "--engine", "wasm")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "Thanks.\n")
	assert.Equal(t, string(he.JSON()), model.received())
	assert.Equal(t, "askcore-stdio: ask_user_question: INVALID_REQUEST: "+he.Message+"\n", stderr)
	assert.NotContains(t, stderr, `\u003c`, "people read the text, not its JSON escapes")
}

// TestAskBatchAndMultiSelect runs "ask" through pipes on both engines: the
// answer on stdout is the core's, the prompts on stderr.
func TestAskBatchAndMultiSelect(t *testing.T) {
	batch := `{"questions":[` + colourArgs + `,` + featuresArgs + `,` + nameArgs + `]}`
	type invalid struct {
		question int
		line     string
	}
	cases := []struct {
		name, args string
		typed      []string // what is typed, invalid lines included
		lines      []string // the lines that resolved, one per question
		echoes     []string
		invalid    *invalid // a line that was asked again
	}{
		{"multi-select with free text", featuresArgs, []string{"3, Slack, auth"}, []string{"3, Slack, auth"}, []string{"Auth, Search, Slack"}, nil},
		{"multi-select default", featuresArgs, []string{""}, []string{""}, []string{"Auth"}, nil},
		{"multi-select, an invalid part then valid", checksArgs, []string{"lint, Slack", "lint, 3"}, []string{"lint, 3"}, []string{"Lint, Fuzz"},
			&invalid{0, "lint, Slack"}},
		{"batch", batch, []string{"green", "2,Chat", "", "Aurora"}, []string{"green", "2,Chat", "Aurora"}, []string{"Green", "Billing, Chat", "Aurora"},
			&invalid{2, ""}},
	}
	for _, eng := range []string{"native", "wasm"} {
		for _, c := range cases {
			t.Run(eng+"/"+c.name, func(t *testing.T) {
				stdout, stderr, code := runWith(t, baseEnv(), strings.Join(c.typed, "\n")+"\n",
					"ask", "--engine", eng, "--request", c.args)
				require.Equal(t, askExitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
				assert.Equal(t, resolveAll(t, c.args, c.lines...)+"\n", stdout)
				for i, echo := range c.echoes {
					assert.Contains(t, stderr, present(t, c.args, i)+"\n? ")
					assert.Contains(t, stderr, "\n→ "+echo+"\n")
				}
				if c.invalid != nil {
					assert.Contains(t, stderr, "\n? \n"+reprompt(t, c.args, c.invalid.question, c.invalid.line)+"\n? ")
				}
			})
		}
	}
}

func TestAskBatchFailsWhole(t *testing.T) {
	t.Run("EOF after the first question", func(t *testing.T) {
		stdout, stderr, code := runWith(t, baseEnv(), "1\n", "ask", "--engine", "native", "--request", batchArgs)
		assert.Equal(t, askExitAborted, code)
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationEOF}), stdout)
		assert.Contains(t, stderr, "→ Blue\n")
		assert.Contains(t, stderr, "Question 2 of 3")
		assert.NotContains(t, stderr, "Question 3 of 3")
		assert.True(t, strings.HasSuffix(stderr, "? \n"+said(askcore.SituationEOF)+"\n"), stderr)
	})
	t.Run("a batch the core rejects", func(t *testing.T) {
		args := `{"questions":[` + nameArgs + `,` + nameArgs + `]}`
		_, want := native.Normalize(context.Background(), args)
		var he *askcore.Error
		require.ErrorAs(t, want, &he)
		stdout, stderr, code := runWith(t, baseEnv(), "", "ask", "--engine", "native", "--request", args)
		assert.Equal(t, askExitInvalidRequest, code)
		assert.Equal(t, string(he.JSON())+"\n", stdout)
		assert.Empty(t, stderr, "no question is shown")
	})
}
