package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// toAny converts v to the shape encoding/json decodes into (last key wins).
func toAny(v Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Str)
	case String:
		return v.Str
	case Array:
		a := make([]any, len(v.Arr))
		for i, x := range v.Arr {
			a[i] = toAny(x)
		}
		return a
	default:
		m := map[string]any{}
		for _, mb := range v.Obj {
			m[mb.Key] = toAny(mb.Val)
		}
		return m
	}
}

func decodeStd(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, &SyntaxError{Msg: "invalid"}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func depth(data []byte) int {
	d, max := 0, 0
	for _, c := range data {
		switch c {
		case '[', '{':
			d++
			if d > max {
				max = d
			}
		case ']', '}':
			d--
		}
	}
	return max
}

func FuzzParseMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,-2.5e+3,true,false,null,"x\u00e9\ud83d\ude00"]}`, `"\ud800"`, "\"\xff\"", `01`, `1.`, `{"a":1,"a":2}`, ` [ 1 , 2 ] `, `{"a" 1}`, `tru`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, 64)
		std, stdErr := decodeStd(data)
		if depth(data) > 60 {
			return // our depth limit is lower than encoding/json's
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("disagree on %q: jsonx %v, encoding/json %v", data, err, stdErr)
		}
		if err != nil {
			return
		}
		a, _ := json.Marshal(toAny(v))
		b, _ := json.Marshal(std)
		if !bytes.Equal(a, b) {
			t.Fatalf("decoded differently %q:\n%s\n%s", data, a, b)
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "\u2028\u2029<>&", "\xff", "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 output %q", out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("not a JSON string %q: %v", out, err)
		}
		if back != strings.ToValidUTF8(s, "\uFFFD") && utf8.ValidString(s) {
			t.Fatalf("round trip %q -> %q -> %q", s, out, back)
		}
		// A fixed point of encoding/json: json.Marshal of a value holding
		// these bytes (a json.RawMessage, a MarshalJSON result) writes them
		// unchanged, as it only ever rewrites '<', '>', '&', U+2028, U+2029.
		var esc bytes.Buffer
		json.HTMLEscape(&esc, out)
		if !bytes.Equal(esc.Bytes(), out) {
			t.Fatalf("encoding/json would rewrite %q as %q", out, esc.Bytes())
		}
		v, err := Parse(out, 1)
		if err != nil || v.Str != back {
			t.Fatalf("jsonx cannot read its own output %q: %v", out, err)
		}
	})
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        `"plain"`,
		"q\"b\\":       `"q\"b\\"`,
		"\b\f\n\r\t":   `"\b\f\n\r\t"`,
		"\x00\x1b\x7f": `"\u0000\u001b\u007f"`,
		"\u2028\u2029": `"\u2028\u2029"`,
		"<a>&amp;":     `"\u003ca\u003e\u0026amp;"`,
		"bad\xffbyte":  "\"bad\uFFFDbyte\"",
		"emoji 👩‍💻 é":  "\"emoji 👩‍💻 é\"",
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		``:                      "unexpected end of input at byte 0",
		`[1,]`:                  "unexpected character ']' where a value was expected at byte 3",
		`{"a":1 "b":2}`:         "unexpected character '\"' where ',' or '}' was expected at byte 7",
		strings.Repeat("[", 70): "nested more than 64 levels deep at byte 64",
		`"a` + "\n" + `"`:       "raw control character 0xa in a string (escape it) at byte 2",
		`-`:                     "invalid number at byte 1",
		`1e`:                    "invalid number (digits expected in the exponent) at byte 2",
		`nul`:                   "invalid literal (want null) at byte 0",
		"\"\\uZZZZ\"":           "invalid \\u escape (four hex digits expected) at byte 3",
		`{"a":1}}`:              "unexpected character '}' after the JSON value at byte 7",
	} {
		_, err := Parse([]byte(in), 64)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestLookupCountsDuplicates(t *testing.T) {
	v, err := Parse([]byte(`{"a":1,"b":2,"a":3}`), 4)
	if err != nil {
		t.Fatal(err)
	}
	got, n := v.Lookup("a")
	if n != 2 || got.Str != "3" {
		t.Fatalf("Lookup(a) = %v, %d", got, n)
	}
	if _, n := v.Lookup("c"); n != 0 {
		t.Fatalf("Lookup(c) found %d", n)
	}
}
