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
		v, err := new(Parser).Parse(data, 64)
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
		v, err := new(Parser).Parse(out, 1)
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
		_, err := new(Parser).Parse([]byte(in), 64)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestLookupCountsDuplicates(t *testing.T) {
	v, err := new(Parser).Parse([]byte(`{"a":1,"b":2,"a":3}`), 4)
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

// TestParserReuse: a Parser kept from input to input (valid or not, after
// a Reset or not) decodes each as a fresh Parser does, the Values of one
// round stay intact while it parses more, and a large input's buffers are
// not kept by the Reset after it.
func TestParserReuse(t *testing.T) {
	big := `[` + strings.Repeat(`{"a":"\u00e9","b":[1,2]},`, 3000) + `{}]`
	inputs := []string{
		`{"op":"normalize","request":{"question":"Q?","options":[{"label":"A"},{"label":"B","value":"b"}]}}`,
		`{"a":[1,2,{"b":"x\ny"}],"a":null}`,
		`{"a":[1,2,`, // an error half-way, its members and items left on the stacks
		big,
		`[[],{},"é",-0.5e3]`,
		`{"op":"normalize","request":{"question":"Q?","options":[{"label":"A"},{"label":"B","value":"b"}]}}`,
	}
	var p Parser
	for _, round := range [][]string{inputs, {inputs[0], inputs[1], inputs[4]}} {
		var kept []Value
		var want []string
		for _, in := range round {
			fresh, ferr := new(Parser).Parse([]byte(in), 64)
			got, err := p.Parse([]byte(in), 64)
			if (err == nil) != (ferr == nil) {
				t.Fatalf("%.40q: reused parser err %v, fresh %v", in, err, ferr)
			}
			if err != nil {
				continue
			}
			a, _ := json.Marshal(toAny(got))
			b, _ := json.Marshal(toAny(fresh))
			if !bytes.Equal(a, b) {
				t.Fatalf("%.40q: reused parser decoded %s, fresh %s", in, a, b)
			}
			kept, want = append(kept, got), append(want, string(a))
		}
		for i, v := range kept {
			if a, _ := json.Marshal(toAny(v)); string(a) != want[i] {
				t.Fatalf("value %d changed by the parses after it: %s, was %s", i, a, want[i])
			}
		}
		p.Reset()
		if c := cap(p.p.memberArena) + cap(p.p.itemArena) + cap(p.p.members) + cap(p.p.items); c > 4*keepEntries {
			t.Fatalf("Reset kept buffers of %d entries", c)
		}
	}
}
