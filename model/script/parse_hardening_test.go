package script_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/model/script"
)

// replies plays every line of m, in order, as the conversation advances.
func replies(t *testing.T, m *script.Model) []agent.Reply {
	t.Helper()
	var out []agent.Reply
	for n := 0; n < m.Len(); n++ {
		r, err := m.Complete(ctx, assistant(n), nil)
		if err != nil {
			t.Fatalf("Complete at line %d: %v", n, err)
		}
		out = append(out, r)
	}
	return out
}

// encodeLine writes r back as one script line. Arguments always go out as
// a JSON string: the text the model wrote, valid JSON or not.
func encodeLine(t *testing.T, r agent.Reply) []byte {
	t.Helper()
	type call struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	l := struct {
		Content   *string `json:"content,omitempty"`
		ToolCalls []call  `json:"tool_calls,omitempty"`
	}{}
	if r.Content != "" || len(r.ToolCalls) == 0 {
		c := r.Content
		l.Content = &c
	}
	for _, c := range r.ToolCalls {
		l.ToolCalls = append(l.ToolCalls, call{c.ID, c.Name, string(c.Arguments)})
	}
	b, err := json.Marshal(l)
	require.NoError(t, err)
	return b
}

// FuzzParse: the scripted-model parser never panics on any file; a script
// it accepts plays every line without error, every tool call has a name,
// and an id, past the end it ends the turn, and writing the
// replies back as a script parses to the same replies.
func FuzzParse(f *testing.F) {
	f.Add([]byte(threeLines))
	f.Add([]byte(`{"content":"{{answer}}"}`))
	f.Add([]byte(`{"tool_calls":[{"id":"x","name":"ask_user_question","arguments":"{\"question\": "}]}`))
	f.Add([]byte("{\"content\":\"a\"}\r\n\r\n{\"tool_calls\":[{\"name\":\"n\",\"arguments\":null}]}"))
	f.Add([]byte(`{"tool_calls":[{"name":"n","arguments":[1,{"a":"\u0000"}]}]}`))
	f.Add([]byte("\xef\xbb\xbf{\"content\":\"bom\"}"))
	f.Add([]byte(`{"content":"a","content":"b"}`))
	f.Add([]byte(`{"tool_calls":null,"content":null}`))
	f.Add([]byte(`{"tool_calls":[{"name":"a","arguments":"\ud800"}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := script.Parse(bytes.NewReader(src))
		if err != nil {
			if m != nil {
				t.Fatalf("a model with an error: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "script") {
				t.Fatalf("error does not say where: %v", err)
			}
			return
		}
		if m.Len() == 0 {
			t.Fatal("accepted an empty script")
		}
		got := replies(t, m)
		var again bytes.Buffer
		for i, r := range got {
			for _, c := range r.ToolCalls {
				if c.Name == "" || c.ID == "" {
					t.Fatalf("line %d: incomplete tool call %+v", i, c)
				}
			}
			again.Write(encodeLine(t, r))
			again.WriteByte('\n')
		}
		end, err := m.Complete(ctx, assistant(m.Len()), nil)
		if err != nil || end.Content != script.Finished || len(end.ToolCalls) != 0 {
			t.Fatalf("past the end: %+v, %v", end, err)
		}
		m2, err := script.Parse(&again)
		if err != nil {
			t.Fatalf("the replies written back do not parse: %v\n%s", err, again.Bytes())
		}
		if got2 := replies(t, m2); !assert.ObjectsAreEqual(normalizeArgs(got), normalizeArgs(got2)) {
			t.Fatalf("round trip changed the replies:\n%+v\n%+v", got, got2)
		}
	})
}

// normalizeArgs turns Arguments into strings so that equal text compares
// equal whatever its capacity. Arguments are kept as the script wrote them,
// invalid UTF-8 included (the core replaces it); writing them back through
// encoding/json turns each invalid byte into U+FFFD, so the comparison does
// the same.
func normalizeArgs(rs []agent.Reply) []any {
	var out []any
	for _, r := range rs {
		calls := []string{}
		for _, c := range r.ToolCalls {
			calls = append(calls, c.ID+"\x00"+c.Name+"\x00"+validUTF8(c.Arguments))
		}
		out = append(out, r.Content, calls)
	}
	return out
}

func validUTF8(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			s.WriteRune(utf8.RuneError)
		} else {
			s.Write(b[:size])
		}
		b = b[size:]
	}
	return s.String()
}

// Hostile scripts: each is refused with an error naming the line, never a
// panic or a hang.
func TestParseHostileScripts(t *testing.T) {
	huge := `{"content":"` + strings.Repeat("a", 17<<20) + `"}`
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for name, tc := range map[string]struct{ src, want string }{
		"line over 16 MiB":        {"{\"content\":\"ok\"}\n" + huge, "line 2"},
		"byte order mark":         {"\xef\xbb\xbf{\"content\":\"a\"}", "line 1"},
		"nul byte":                {"{\"content\":\"a\"}\x00", "line 1"},
		"depth bomb in arguments": {`{"tool_calls":[{"name":"a","arguments":` + deep + `}]}`, "line 1"},
		"truncated":               {`{"tool_calls":[{"name":"a","arguments":{"question":"q"`, "line 1"},
		"tool_calls not a list":   {`{"tool_calls":{"name":"a"}}`, "line 1"},
		"name wrong type":         {`{"tool_calls":[{"name":7}]}`, "line 1"},
		"id wrong type":           {`{"tool_calls":[{"name":"a","id":{}}]}`, "line 1"},
		"arguments bad escape":    {`{"tool_calls":[{"name":"a","arguments":"\q"}]}`, "line 1"},
		"two objects":             {`{"content":"a"}{"content":"b"}`, "line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := script.Parse(strings.NewReader(tc.src))
			require.Error(t, err)
			assert.Nil(t, m)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// Text the script carries is passed on as it is: neutralizing it is the
// core's job (for questions) and the front door's (for text). The parser
// must keep invalid arguments and odd bytes intact for the core to judge.
func TestParseKeepsHostileTextForTheCore(t *testing.T) {
	m := parse(t, `{"content":"\u001b]8;;http://evil\u0007x\u001b]8;;\u0007 \u202e","tool_calls":[{"name":"ask_user_question","arguments":"{\"question\":\"q\",\"options\":[{\"label\":\"a\u200b\"},{\"label\":\"a\"}]"}]}`)
	r, err := m.Complete(ctx, nil, nil)
	require.NoError(t, err)
	assert.Contains(t, r.Content, "\x1b]8;;http://evil\a")
	assert.False(t, json.Valid(r.ToolCalls[0].Arguments), "truncated arguments stay truncated")
}
