package askcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
)

// angleBrackets is a call of n bytes exactly, its 40 options' descriptions
// full of '<': every one of them encoding/json writes as six bytes
// (\u003c), so the envelope it writes is six times longer than the one
// Core sends.
func angleBrackets(t *testing.T, n int) string {
	t.Helper()
	const options = 40
	head, tail := `{"question":"Which?","options":[`, `]}`
	var parts []string
	size := len(head) + len(tail)
	for i := range options {
		p := fmt.Sprintf(`{"label":"O%d","description":""}`, i)
		parts = append(parts, p)
		size += len(p)
	}
	size += options - 1 // commas
	fill := n - size
	require.True(t, fill > 0 && fill <= options*core.MaxDescriptionChars, "n=%d", n)
	for i := range parts {
		k := fill / (options - i)
		fill -= k
		parts[i] = strings.Replace(parts[i], `""`, `"`+strings.Repeat("<", k)+`"`, 1)
	}
	text := head + strings.Join(parts, ",") + tail
	require.Len(t, text, n)
	return text
}

// normalizeEnv is op "normalize" for text, as any host may write it with
// encoding/json (escaping '<' as \u003c, invalid UTF-8 as \ufffd).
func normalizeEnv(text string) map[string]any {
	return map[string]any{"op": "normalize", "arguments": text}
}

// The verdict on arguments is the core's on the text, whatever escaping
// the envelope used: a text full of '<', sent by Core unescaped and by
// encoding/json's default six times longer, is one verdict, through
// Normalize and through Service.Ask.
func TestArgumentsVerdictDoesNotDependOnEscaping(t *testing.T) {
	ok := angleBrackets(t, 77342)
	require.Greater(t, strings.Count(ok, "<"), 75000)
	tooLong := `{"question":"` + strings.Repeat("<", 77342-len(`{"question":""}`)) + `"}`
	require.Len(t, tooLong, 77342)

	for name, text := range map[string]string{"within the limits": ok, "a question too long": tooLong} {
		env := handle(t, normalizeEnv(text))
		escaped, err := json.Marshal(normalizeEnv(text))
		require.NoError(t, err)
		require.Greater(t, len(escaped), 5*len(text), "encoding/json escaped every '<'")
		onEngines(t, func(t *testing.T, c *askcore.Core) {
			t.Run(name, func(t *testing.T) {
				rec := &recorder{Engine: c.Engine()}
				c := askcore.NewCore(rec)
				call, err := c.Normalize(context.Background(), text)
				sent := rec.lastInput()
				assert.Less(t, len(sent), len(text)*11/10, "Core sends '<' as it is")
				assert.Equal(t, env, rec.lastOutput(), "the same envelope back")

				var asked *askcore.Call
				svc := askcore.NewService(c)
				register(t, svc, askcore.ProviderFunc(func(_ context.Context, call *askcore.Call) (askcore.Reply, error) {
					asked = call
					return askcore.Lines("1"), nil
				}))
				a, askErr := svc.Ask(context.Background(), text, askcore.AskOptions{})

				if strings.HasPrefix(env, `{"ok":false`) {
					e := requireCode(t, err, askcore.CodeInvalidRequest)
					assert.Equal(t, errorObject(t, env), string(e.JSON()))
					assert.Contains(t, e.Message, "question")
					e = requireCode(t, askErr, askcore.CodeInvalidRequest)
					assert.Equal(t, errorObject(t, env), string(e.JSON()), "Service.Ask gives the same verdict")
					assert.Nil(t, asked, "the provider is never asked")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, okResult(t, env), string(call.JSON()))
				require.NoError(t, askErr)
				require.NotNil(t, asked)
				assert.Equal(t, okResult(t, env), string(asked.JSON()), "Service.Ask asks the same call")
				assert.Equal(t, `{"answer":"O0","selected":{"index":0,"label":"O0","value":"O0"}}`, string(a.JSON()))
			})
		})
	}
}

// An arguments text over core.MaxArgumentsBytes is not copied into the
// envelope: Core sends its length alone, and the core's verdict names the
// arguments' size, never the envelope's (a text of 5 MiB would otherwise
// be an envelope over core.MaxInputBytes, and one full of '<' or of
// invalid UTF-8 grows as it is escaped).
func TestArgumentsOverTheLimitSendTheirLength(t *testing.T) {
	const limit = core.MaxArgumentsBytes
	for _, tc := range []struct {
		name string
		text string
		n    int // the length the core reads
	}{
		{"ASCII, one byte over", `{"question":"` + strings.Repeat("a", limit-len(`{"question":""}`)+1) + `"}`, limit + 1},
		{"full of <", strings.Repeat("<", 1<<20), 1 << 20},
		{"over the input limit", `{"question":"` + strings.Repeat("a", 5<<20) + `"}`, 5<<20 + len(`{"question":""}`)},
		{"multi-byte", strings.Repeat("é", limit/2+1), limit + 2},
		{"invalid UTF-8 counts 3 a byte", strings.Repeat("\xff", limit/3+1), 3 * (limit/3 + 1)},
		{"invalid and valid", strings.Repeat("\xffa", limit/4+1), 4 * (limit/4 + 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Greater(t, tc.n, limit)
			env := fmt.Sprintf(`{"op":"normalize","argumentsBytes":%d}`, tc.n) // as the JS host writes it
			want := string(core.Handle([]byte(env)))
			e := requireCode(t, func() error { _, err := native.Normalize(context.Background(), tc.text); return err }(), askcore.CodeInvalidRequest)
			assert.Equal(t, errorObject(t, want), string(e.JSON()))
			assert.Equal(t, "the arguments are "+strconv.Itoa(tc.n)+" bytes; at most "+strconv.Itoa(limit)+
				" are allowed: shorten the question, the options or their descriptions", e.Message)
			if escaped, _ := json.Marshal(normalizeEnv(tc.text)); len(escaped) <= core.MaxInputBytes {
				assert.Equal(t, want, handle(t, normalizeEnv(tc.text)), "the core's verdict on the text itself")
			}

			onEngines(t, func(t *testing.T, c *askcore.Core) {
				rec := &recorder{Engine: c.Engine()}
				svc := askcore.NewService(askcore.NewCore(rec))
				var calls int
				register(t, svc, askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
					calls++
					return askcore.Lines("1"), nil
				}))
				_, err := svc.Ask(context.Background(), tc.text, askcore.AskOptions{})
				e := requireCode(t, err, askcore.CodeInvalidRequest)
				assert.Equal(t, errorObject(t, want), string(e.JSON()))
				assert.Equal(t, env, rec.lastInput(), "the envelope holds the length alone")
				assert.Zero(t, calls)
			})
		})
	}
}

// A text at the limit, as the core reads it, is sent whole: the core
// judges it.
func TestArgumentsAtTheLimitAreSent(t *testing.T) {
	const limit = core.MaxArgumentsBytes
	padded := `{"question":"Ship it?"}` + strings.Repeat(" ", limit-len(`{"question":"Ship it?"}`))
	for name, text := range map[string]string{
		"ASCII":                          padded,
		"invalid UTF-8 at the limit":     strings.Repeat("\xff", limit/3),
		"multi-byte at the limit":        strings.Repeat("é", limit/2),
		"invalid UTF-8 in a valid call":  `{"question":"` + strings.Repeat("\xff", (limit-len(`{"question":""}`))/3) + `"}`,
		"short text with invalid UTF-8":  `{"question":"` + "\xff\xfe" + `"}`,
		"invalid UTF-8 one byte shorter": strings.Repeat("\xff", limit/3-1),
	} {
		t.Run(name, func(t *testing.T) {
			want := handle(t, normalizeEnv(text))
			onEngines(t, func(t *testing.T, c *askcore.Core) {
				rec := &recorder{Engine: c.Engine()}
				_, err := askcore.NewCore(rec).Normalize(context.Background(), text)
				assert.Equal(t, want, rec.lastOutput(), "the verdict on the text")
				assert.True(t, strings.HasPrefix(rec.lastInput(), `{"arguments":`), "the text is sent")
				if strings.HasPrefix(want, `{"ok":false`) {
					assert.NotContains(t, askcore.AsError(err).Message, " bytes; at most ", "within the limit")
				} else {
					assert.NoError(t, err)
				}
			})
		})
	}
}
