package core

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct {
		name, in  string
		multiline bool
		want      string
	}{
		{"plain", "  hello  ", false, "hello"},
		{"csi", "\x1b[1;31mred\x1b[0m", false, "red"},
		{"csi private", "\x1b[?25lhidden cursor", false, "hidden cursor"},
		{"osc8 hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", false, "link"},
		{"osc bel", "\x1b]2;title\x07text", false, "text"},
		{"osc unterminated", "text\x1b]2;title", false, "text"},
		{"osc ended by csi", "a\x1b]2;t\x1b[31mb", false, "ab"},
		{"c1 osc st", "a\u009d0;t\u009cb", false, "ab"},
		{"apc", "a\x1b_payload\x1b\\b", false, "ab"},
		{"charset", "a\x1b(Bb", false, "ab"},
		{"lone esc then letter", "a\x1b\u00e9b", false, "aéb"},
		{"controls", "a\x00b\x07c\x08d\x7fe", false, "abcde"},
		{"tab", "a\tb", false, "a b"},
		{"crlf multiline", "a\r\nb\rc", true, "a\nb\nc"},
		{"fold newline", "a  \n  b", false, "a b"},
		{"fold crlf twice", "a\r\n\r\nb", false, "a b"},
		{"u2028 multiline", "a\u2028b", true, "a\nb"},
		{"bidi", "\u202ea\u2066b\u2069\u200fc\u061c", false, "abc"},
		{"zwj kept inside", "👩\u200d💻", false, "👩\u200d💻"},
		{"zero width trimmed", "\u200b\ufeffx\u2060", false, "x"},
		{"invalid utf8", "a\xffb", false, "a\uFFFDb"},
		{"nbsp trimmed", "\u00a0x\u3000", false, "x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, sanitize(c.in, c.multiline))
			require.Equal(t, c.want, sanitize(c.want, c.multiline), "sanitize is idempotent")
		})
	}
}

func TestKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Yes", " yes "},
		{"Use  Postgres", "use postgres"},
		{"Café", "Cafe\u0301"},
		{"ÉCOLE", "e\u0301cole"},
		{"Łódź", "łódź"},
		{"Straße", "STRAßE"},
		{"Y\u200bes", "yes"},
		{"✔️", "✔"},
		{"ＹＥＳ", "yes"},
		{"Москва", "МОСКВА"},
		{"Ş", "S\u0327"},
		{"Ț", "T\u0326"},
	} {
		if key(c.a) != key(c.b) {
			t.Errorf("key(%q)=%q != key(%q)=%q", c.a, key(c.a), c.b, key(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{{"yes", "no"}, {"e", "é"}, {"a b", "ab"}, {"1", "l"}} {
		if key(c.a) == key(c.b) {
			t.Errorf("key(%q) == key(%q)", c.a, c.b)
		}
	}
}

func TestNormalizeTyped(t *testing.T) {
	in := request{
		Header:   " DB ",
		Question: "Which?\x1b[0m",
		Options: []option{
			{Label: " A ", Description: "first"},
			{Label: "B", Value: "b", Recommended: true},
		},
	}
	got, err := typedNormalize(in)
	require.NoError(t, err)
	require.Equal(t, request{Header: "DB", Question: "Which?", Options: []option{
		{Label: "A", Value: "A", Description: "first"},
		{Label: "B", Value: "b", Recommended: true},
	}}, got)
	require.Equal(t, " A ", in.Options[0].Label, "input not modified")

	open, err := typedNormalize(request{Question: "Name?"})
	require.NoError(t, err)
	require.True(t, open.AllowCustom, "optionless questions are free-form")

	_, err = typedNormalize(request{Question: "Q", Options: []option{{Label: "x"}, {Label: "X "}}})
	var he *harnessError
	require.True(t, errors.As(err, &he), "errors.As finds *HarnessError")
	require.Equal(t, CodeInvalidRequest, he.Code)
	require.Equal(t, ErrorName, he.Name)

	_, err = typedNormalize(request{Question: "Q", Options: make([]option, MaxOptions+1)})
	require.True(t, errors.As(err, &he) && strings.Contains(he.Message, "at most 64"), "%v", err)
}

func TestNormalizeMatchesHandle(t *testing.T) {
	var r request
	require.NoError(t, json.Unmarshal([]byte(reqDB), &r))
	n, err := typedNormalize(r)
	require.NoError(t, err)
	out := Handle([]byte(env("normalize", reqDB)))
	require.Equal(t, `{"ok":true,"result":`+string(n.JSON())+`}`, string(out))
	// encoding/json reads the core's bytes back into the same Request.
	var back struct{ Result request }
	require.NoError(t, json.Unmarshal(out, &back))
	require.Equal(t, n, back.Result)
}

func TestResolveTyped(t *testing.T) {
	r := request{Question: "Q?", Options: []option{{Label: "Alpha"}, {Label: "Beta", Recommended: true}}}
	for _, c := range []struct {
		line  string
		want  string
		index int
		code  errCode
	}{
		{"", "Beta", 1, ""},
		{"1", "Beta", 1, ""},
		{"2", "Alpha", 0, ""},
		{"ALPHA", "Alpha", 0, ""},
		{"gamma", "", 0, CodeInvalidAnswer},
		{"3", "", 0, CodeInvalidAnswer},
	} {
		a, err := typedResolve(r, c.line)
		if c.code != "" {
			var he *harnessError
			require.True(t, errors.As(err, &he) && he.Code == c.code, "%q: %v", c.line, err)
			continue
		}
		require.NoError(t, err, c.line)
		require.Equal(t, c.want, a.Answer, c.line)
		require.Equal(t, c.index, a.Selected.Index, c.line)
	}
	r.AllowCustom = true
	a, err := typedResolve(r, " gamma ")
	require.NoError(t, err)
	require.Equal(t, answer{Answer: "gamma"}, a)
}

func TestElicitationTyped(t *testing.T) {
	r := request{Header: "H", Question: "Q?", Options: []option{{Label: "A", Value: "a"}, {Label: "B", Value: "b", Recommended: true}}, AllowCustom: true}
	f, err := typedElicitation(r)
	require.NoError(t, err)
	require.Equal(t, "Q?", f.Message)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(f.RequestedSchema, &schema))
	require.Equal(t, "H", schema["title"])
	require.True(t, json.Valid(f.JSON()))

	for _, c := range []struct {
		resp elicitationResponse
		want string
		code errCode
	}{
		{elicitationResponse{Action: "accept", Content: map[string]any{"choice": "a"}}, "a", ""},
		{elicitationResponse{Action: "accept", Content: map[string]any{"choice": "b", "custom_answer": "zed"}}, "zed", ""},
		{elicitationResponse{Action: "accept", Content: map[string]any{"choice": "c"}}, "", CodeInvalidAnswer},
		{elicitationResponse{Action: "accept", Content: map[string]any{"choice": 1.0}}, "", CodeInvalidAnswer},
		{elicitationResponse{Action: "accept"}, "", CodeInvalidAnswer},
		{elicitationResponse{Action: "decline"}, "", CodeAskDeclined},
		{elicitationResponse{Action: "cancel"}, "", CodeAskCancelled},
		{elicitationResponse{Action: "other"}, "", CodeAskFailed},
	} {
		a, err := typedElicitationResult(r, c.resp)
		if c.code != "" {
			var he *harnessError
			require.True(t, errors.As(err, &he) && he.Code == c.code, "%+v: %v", c.resp, err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, c.want, a.Answer)
	}
}

func TestSchema(t *testing.T) {
	out := Handle([]byte(`{"op":"schema"}`))
	require.False(t, strings.Contains(string(out), "desc\""), "the tool schema never mentions desc")
	var e struct {
		Result struct {
			Name        string
			Description string
			Parameters  map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out, &e))
	require.Equal(t, ToolName, e.Result.Name)
	require.Equal(t, "object", e.Result.Parameters["type"])
	tool := schemaTool()
	require.Equal(t, `{"ok":true,"result":`+string(tool.JSON())+`}`, string(out))
}

func TestPresentLayout(t *testing.T) {
	p, err := typedPresent(request{Header: "Database", Question: "Which database should I use?", Options: []option{
		{Label: "PostgreSQL", Description: "Reliable; needs a server."},
		{Label: "SQLite", Description: "A single file.", Recommended: true},
		{Label: "MySQL"},
	}, AllowCustom: true})
	require.NoError(t, err)
	require.Equal(t, "[Database] Which database should I use?\n"+
		"\n"+
		"  1. SQLite (recommended)\n"+
		"     A single file.\n"+
		"  2. PostgreSQL\n"+
		"     Reliable; needs a server.\n"+
		"  3. MySQL\n"+
		"\n"+
		"Type a number (1-3) or a label, or type your own answer. Enter picks 1 (SQLite).", p.Text)
	require.Equal(t, []int{1, 0, 2}, p.Order)
}

func TestOutputsAreValidUTF8JSON(t *testing.T) {
	for _, c := range conformanceCases() {
		out := Handle([]byte(c.in))
		require.True(t, utf8.Valid(out) && json.Valid(out), c.name)
	}
}

func TestMaxInputBytes(t *testing.T) {
	big := make([]byte, MaxInputBytes+1)
	var e struct{ Error harnessError }
	require.NoError(t, json.Unmarshal(Handle(big), &e))
	require.Equal(t, CodeInvalidRequest, e.Error.Code)
	require.True(t, strings.Contains(e.Error.Message, "at most 262144"), e.Error.Message)
}

func TestErrorJSON(t *testing.T) {
	e := newError(CodeAskDeclined, "no \"thanks\"")
	require.Equal(t, `{"name":"UserInteractionError","code":"ASK_DECLINED","message":"no \"thanks\""}`, string(e.JSON()))
	require.Equal(t, "ASK_DECLINED: no \"thanks\"", e.Error())
}

// TestNoQuadraticBlowUp feeds the largest inputs the limit allows through
// the paths that loop per character.
func TestNoQuadraticBlowUp(t *testing.T) {
	n := MaxInputBytes - 100
	for name, label := range map[string]string{
		"newlines": strings.Repeat(`\n`, n/2),
		"spaced":   strings.Repeat(` \n`, n/3),
		"escapes":  strings.Repeat(`\u001b[`, n/8),
		"marks":    "e" + strings.Repeat(`\u0301`, n/7),
	} {
		in := []byte(`{"op":"normalize","request":{"question":"Q?","options":[{"label":"` + label + `"}]}}`)
		require.True(t, len(in) <= MaxInputBytes, name)
		var out []byte
		took := WorkTime(t, func() { out = Handle(in) }) // CPU time: load does not count
		require.True(t, took < 2*time.Second, "%s took %v", name, took)
		require.True(t, json.Valid(out), name)
	}
}
