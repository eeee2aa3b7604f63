package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Hostile input classes that the conformance corpus (testdata/conformance)
// does not already pin; docs/HARDENING.md lists both. Every input must come
// back as a well-formed envelope, quickly (at most a second of CPU time,
// see WorkTime), with the expected code or with the hostile part
// neutralized.

type hostileCase struct {
	in   string
	code errCode // "" : ok:true
	// check, when set, inspects the ok:true result.
	check func(t *testing.T, result json.RawMessage)
}

func hostileRun(t *testing.T, class string, cases []hostileCase) {
	t.Helper()
	for i, c := range cases {
		var out []byte
		took := WorkTime(t, func() { out = Handle([]byte(c.in)) }) // CPU time: load does not count
		if took > time.Second {
			t.Errorf("%s #%d: %v for %d bytes", class, i, took, len(c.in))
		}
		if !utf8.Valid(out) {
			t.Fatalf("%s #%d: output is not UTF-8: %q", class, i, out)
		}
		var env struct {
			OK     bool
			Result json.RawMessage
			Error  *harnessError
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("%s #%d: output is not JSON: %v: %.300s", class, i, err, out)
		}
		switch {
		case c.code == "" && !env.OK:
			t.Errorf("%s #%d: %.120q: want ok, got %s", class, i, c.in, out)
		case c.code != "" && (env.OK || env.Error.Code != c.code):
			t.Errorf("%s #%d: %.120q: want %s, got %.300s", class, i, c.in, c.code, out)
		case c.check != nil && env.OK:
			c.check(t, env.Result)
		}
		if len(out) > 4096 && !env.OK {
			t.Errorf("%s #%d: a %d-byte error message", class, i, len(out))
		}
	}
}

func hNorm(request string) string { return `{"op":"normalize","request":` + request + `}` }

func hResolve(request, input string) string {
	b, _ := json.Marshal(input)
	return `{"op":"resolve","request":` + request + `,"input":` + string(b) + `}`
}

func hQuestionIs(want string) func(t *testing.T, r json.RawMessage) {
	return func(t *testing.T, r json.RawMessage) {
		var req request
		if err := json.Unmarshal(r, &req); err != nil || req.Question != want {
			t.Errorf("question %q (%v), want %q", req.Question, err, want)
		}
	}
}

func TestHostileNumbersInBooleanFields(t *testing.T) {
	var cases []hostileCase
	for _, v := range []string{"1e999", "-0", "1", "0", `"true"`, "[]", "{}", "-1e-999", strings.Repeat("9", 100000)} {
		cases = append(cases,
			hostileCase{in: hNorm(`{"question":"q","allowCustom":` + v + `}`), code: CodeInvalidRequest},
			hostileCase{in: hNorm(`{"question":"q","options":[{"label":"a","recommended":` + v + `}]}`), code: CodeInvalidRequest})
	}
	hostileRun(t, "numbers in boolean fields", cases)
}

func TestHostileNumberLookalikeAnswers(t *testing.T) {
	noCustom := `{"question":"q","options":[{"label":"a"},{"label":"b"}],"allowCustom":false}`
	var cases []hostileCase
	for _, in := range []string{"1e0", "-1", "+1", "0x1", "1.0", "½", "١", "१", "Ⅰ", "1 2", "1\u00002", "99999999999999999999999", "-0", "NaN", "Infinity"} {
		cases = append(cases, hostileCase{in: hResolve(noCustom, in), code: CodeInvalidAnswer})
	}
	hostileRun(t, "number look-alike answers", cases)
}

func TestHostileMalformedUTF8(t *testing.T) {
	var cases []hostileCase
	for _, bad := range []string{"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe\xff", "\x80", "\xc3"} {
		cases = append(cases,
			hostileCase{in: hNorm(`{"question":"q` + bad + `"}`), check: func(t *testing.T, r json.RawMessage) {
				if !strings.Contains(string(r), "\ufffd") {
					t.Errorf("invalid UTF-8 %q not replaced: %s", bad, r)
				}
			}},
			hostileCase{in: hResolve(`{"question":"q"}`, "x"+bad)})
	}
	hostileRun(t, "malformed UTF-8", cases)
}

func TestHostileTerminalSequences(t *testing.T) {
	const esc = "\\u001b"
	cases := []hostileCase{
		// OSC 8 hyperlinks, ST- and BEL-terminated: the link text stays, the link goes.
		{in: hNorm(`{"question":"` + esc + `]8;;https://evil.example` + esc + `\\click` + esc + `]8;;` + esc + `\\"}`), check: hQuestionIs("click")},
		{in: hNorm(`{"question":"` + esc + `]8;id=1;file:///etc/passwd\u0007open` + esc + `]8;;\u0007"}`), check: hQuestionIs("open")},
		// Window title, clipboard write (OSC 52), cursor moves, screen clear.
		{in: hNorm(`{"question":"` + esc + `]0;pwned\u0007q"}`), check: hQuestionIs("q")},
		{in: hNorm(`{"question":"` + esc + `]52;c;cm0gLXJmIH4=\u0007q"}`), check: hQuestionIs("q")},
		{in: hNorm(`{"question":"` + esc + `[2J` + esc + `[H` + esc + `[1Aq"}`), check: hQuestionIs("q")},
		// Device status report request (makes a terminal type a reply).
		{in: hNorm(`{"question":"q` + esc + `[6n"}`), check: hQuestionIs("q")},
		// Many unterminated sequences in a row.
		{in: hNorm(`{"question":"` + strings.Repeat(esc+"[", 5000) + `q"}`), code: CodeInvalidRequest}, // 'q' ends the CSI: nothing left
		{in: hNorm(`{"question":"` + strings.Repeat(esc+"]", 5000) + `"}`), code: CodeInvalidRequest},
		// 8-bit C1 CSI only: nothing left to ask.
		{in: hNorm(`{"question":"\u009b2J\u009d0;t\u009c"}`), code: CodeInvalidRequest},
	}
	hostileRun(t, "terminal sequences", cases)
	// None survives in any output string.
	for _, c := range cases {
		out := string(Handle([]byte(c.in)))
		var v any
		_ = json.Unmarshal([]byte(out), &v)
		if s := fmt.Sprint(v); strings.ContainsAny(s, "\x1b\x07\u009b\u009d") {
			t.Errorf("a control character survived: %.200q", s)
		}
	}
}

func TestHostileWideAndRepetitive(t *testing.T) {
	var wide strings.Builder
	wide.WriteString(`{"question":"q"`)
	for i := range 10000 {
		fmt.Fprintf(&wide, `,"k%d":[{"x":1}]`, i)
	}
	wide.WriteString(`}`)
	var dupKeys strings.Builder
	dupKeys.WriteString(`{`)
	for range 5000 {
		dupKeys.WriteString(`"question":"q",`)
	}
	dupKeys.WriteString(`"options":[]}`)
	manyEmpty := `{"question":"q","options":[` + strings.Repeat(`{"label":""},`, 3000) + `{"label":"x"}]}`
	cases := []hostileCase{
		{in: hNorm(wide.String()), check: hQuestionIs("q")}, // unknown fields are ignored, within the size limit
		{in: hNorm(dupKeys.String()), code: CodeInvalidRequest},
		{in: hNorm(manyEmpty), code: CodeInvalidRequest},
		{in: hNorm(`{"question":"` + strings.Repeat(`\ud800`, 2000) + `"}`)},
		{in: hNorm(`{"question":"` + strings.Repeat(`\\`, 60000) + `"}`), code: CodeInvalidRequest},                 // too long
		{in: hNorm(`{"question":"q","options":[` + strings.Repeat(`"s",`, 63) + `"t"]}`), code: CodeInvalidRequest}, // 64 duplicates
		{in: strings.Repeat(" ", MaxInputBytes-20) + `{"op":"schema"}`},
	}
	hostileRun(t, "wide and repetitive", cases)
}

// Invisible characters that make two labels look the same: every Unicode
// Default_Ignorable_Code_Point must be ignored when labels are compared.
// Every Default_Ignorable_Code_Point (and the bidi controls, which are
// stripped before comparison) must leave "Y?es" a duplicate of "Yes".
func TestHostileInvisibleDuplicateLabels(t *testing.T) {
	covered := []rune{0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0xad, 0xfe0f, 0xe0041, 0x202a, 0x2066, 0x61c, 0x200e, 0x200f}
	more := []rune{0x34f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180e, 0x2061, 0x2064, 0x206a, 0x206f, 0x3164, 0xffa0, 0x1bca0, 0x1d173}
	dup := func(r rune) hostileCase {
		opts, _ := json.Marshal([]map[string]string{{"label": "Yes"}, {"label": "Y" + string(r) + "es"}})
		return hostileCase{in: hNorm(`{"question":"q","options":` + string(opts) + `}`), code: CodeInvalidRequest}
	}
	var cases []hostileCase
	for _, r := range covered {
		cases = append(cases, dup(r))
	}
	for _, r := range more {
		cases = append(cases, dup(r))
	}
	hostileRun(t, "invisible duplicate labels", cases)
}
