package askcore_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
)

// A call as the strict tool makes a model write it: every field present,
// null for the ones left out, the questions in questions.
const argsStrict = `{"questions":[{"header":null,"question":"Deploy now?","options":[` +
	`{"label":"Yes","value":null,"description":null,"preview":null,"recommended":true},` +
	`{"label":"No","value":"no","description":"After the review.","preview":null,"recommended":null}],"allowCustom":null},` +
	`{"header":"Features","question":"Which features?","options":[` +
	`{"label":"Auth","value":null,"description":null,"preview":null,"recommended":null},` +
	`{"label":"Search","value":null,"description":null,"preview":null,"recommended":null}],"allowCustom":true,"multiSelect":true}]}`

// StrictTool is op "schema" with "strict":true, on every engine, and its
// parameters differ from Tool's: only questions, required.
func TestStrictTool(t *testing.T) {
	want := core.Handle([]byte(`{"op":"schema","strict":true}`))
	for _, ec := range allEngines() {
		t.Run(ec.name, func(t *testing.T) {
			c := askcore.NewCore(ec.engine)
			strict, err := c.StrictTool(context.Background())
			require.NoError(t, err)
			plain, err := c.Tool(context.Background())
			require.NoError(t, err)
			assert.Equal(t, askcore.ToolName, strict.Name)
			b, err := json.Marshal(strict)
			require.NoError(t, err)
			assert.JSONEq(t, string(want[len(`{"ok":true,"result":`):len(want)-1]), string(b))
			assert.NotEqual(t, plain.Description, strict.Description)

			var p struct {
				Required             []string                   `json:"required"`
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			require.NoError(t, json.Unmarshal(strict.Parameters, &p))
			assert.Equal(t, []string{"questions"}, p.Required)
			assert.Len(t, p.Properties, 1)
			require.NotNil(t, p.AdditionalProperties)
			assert.False(t, *p.AdditionalProperties)
		})
	}
}

// What the strict tool makes a model write, null fields included, is a call
// the core takes and a Service answers, null read as absent.
func TestStrictCallAnswers(t *testing.T) {
	for _, ec := range allEngines() {
		t.Run(ec.name, func(t *testing.T) {
			c := askcore.NewCore(ec.engine)
			call, err := c.Normalize(context.Background(), argsStrict)
			require.NoError(t, err)
			require.True(t, call.Batch)
			require.Len(t, call.Questions, 2)
			q := call.Questions[0]
			assert.Empty(t, q.Header)
			assert.False(t, q.AllowCustom)
			assert.Equal(t, "Yes", q.Options[0].Value, "a null value defaults to the label")
			assert.True(t, q.Options[0].Recommended)
			assert.False(t, q.Options[1].Recommended)
			assert.True(t, call.Questions[1].MultiSelect)

			svc := askcore.NewService(c)
			dispose, err := svc.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
				return askcore.Lines("", "1,2"), nil
			}))
			require.NoError(t, err)
			defer dispose()
			a, err := svc.Ask(context.Background(), argsStrict, askcore.AskOptions{})
			require.NoError(t, err)
			assert.JSONEq(t, `{"answers":[{"question":"Deploy now?","answer":"Yes","selected":{"index":0,"label":"Yes","value":"Yes"}},`+
				`{"question":"Which features?","answers":["Auth","Search"],"selected":[{"index":0,"label":"Auth","value":"Auth"},{"index":1,"label":"Search","value":"Search"}]}]}`,
				string(a.JSON()))
		})
	}
}
