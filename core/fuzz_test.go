package core

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// checkEnvelope fails unless out is a valid UTF-8 JSON envelope.
func checkEnvelope(t *testing.T, in, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("output is not valid UTF-8 for input %q: %q", in, out)
	}
	var e struct {
		OK     *bool           `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  *harnessError   `json:"error"`
	}
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatalf("output is not JSON (%v) for input %q: %q", err, in, out)
	}
	switch {
	case e.OK == nil:
		t.Fatalf("no ok field: %q", out)
	case *e.OK && (e.Result == nil || e.Error != nil):
		t.Fatalf("ok:true without a result: %q", out)
	case !*e.OK && (e.Error == nil || e.Error.Name != ErrorName || e.Error.Code == "" || e.Error.Message == ""):
		t.Fatalf("ok:false without a full error: %q", out)
	}
	var tree any
	_ = json.Unmarshal(out, &tree)
	checkClean(t, tree, out)
}

// checkClean fails when any string in v carries a character sanitization
// removes.
func checkClean(t *testing.T, v any, out []byte) {
	t.Helper()
	switch v := v.(type) {
	case string:
		for _, r := range v {
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || isBidiControl(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("unsanitized character %U in output %q", r, out)
			}
		}
	case []any:
		for _, x := range v {
			checkClean(t, x, out)
		}
	case map[string]any:
		for k, x := range v {
			checkClean(t, k, out)
			checkClean(t, x, out)
		}
	}
}

// seedCorpus adds every conformance input as a seed.
func seedCorpus(f *testing.F) [][]byte {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "*.in"))
	var seeds [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil && len(b) < 8<<10 {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

func FuzzHandle(f *testing.F) {
	for _, s := range seedCorpus(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := handle(in) // not Handle: a panic must fail the fuzzer, not be recovered
		checkEnvelope(t, in, out)
		if again := handle(in); !bytes.Equal(out, again) {
			t.Fatalf("not deterministic for %q:\n%q\n%q", in, out, again)
		}
		// A normalized request normalizes to itself.
		var e struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		}
		// The op is read as the core reads it: the exact key "op". A struct
		// tag would also match "Op" or "OP" (encoding/json folds case), keys
		// the core ignores as unknown fields.
		var envelope map[string]json.RawMessage
		if json.Unmarshal(in, &envelope) == nil && string(envelope["op"]) == `"normalize"` && json.Unmarshal(out, &e) == nil && e.OK {
			in2 := []byte(`{"op":"normalize","request":` + string(e.Result) + `}`)
			out2 := handle(in2)
			if !bytes.Equal(out, out2) {
				t.Fatalf("normalize is not idempotent:\n%s\n%s", out, out2)
			}
		}
	})
}

func FuzzResolve(f *testing.F) {
	reqs := []string{reqDB, reqDBCustom, reqNoDefault, reqOpen, reqTwoRec, reqCafeNFC, reqMulti, reqMultiCustom, reqLayout, reqLayoutMulti}
	for i, line := range []string{"", "1", "2.", "３", "sqlite", " PostgreSQL ", "cafe\u0301", "\x1b[31m2", "\u200b", "99999999999", "free text", "1,3", "chat, voice, x", ",,",
		"2 // keep v15", "// only notes", "https://x//y", "1 //", "a//b // c", "1,2 // \x1b[2Jnotes"} {
		f.Add(uint8(i), line)
	}
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		r := reqs[int(which)%len(reqs)]
		b, _ := json.Marshal(line)
		in := []byte(`{"op":"resolve","request":` + r + `,"input":` + string(b) + `}`)
		out := handle(in)
		checkEnvelope(t, in, out)
		// The typed API agrees with the envelope.
		var req request
		if err := json.Unmarshal([]byte(r), &req); err != nil {
			t.Fatal(err)
		}
		a, err := typedResolve(req, line)
		var want []byte
		if err != nil {
			want = errorEnvelope(err.(*harnessError))
		} else {
			want = append(append([]byte(`{"ok":true,"result":`), a.JSON()...), '}')
		}
		if utf8.ValidString(line) && !bytes.Equal(out, want) {
			t.Fatalf("typed Resolve differs from Handle:\n%s\n%s", out, want)
		}
		// A selected option is one of the request's, and answer is its value.
		if req.MultiSelect {
			return
		}
		var res struct {
			OK     bool
			Result answer
		}
		if json.Unmarshal(out, &res) == nil && res.OK && res.Result.Selected != nil {
			n, _ := typedNormalize(req)
			s := res.Result.Selected
			if s.Index < 0 || s.Index >= len(n.Options) || n.Options[s.Index].Value != res.Result.Answer || s.Value != res.Result.Answer {
				t.Fatalf("bad selection %+v for %s", res.Result, out)
			}
		}
	})
}

func FuzzElicitationResult(f *testing.F) {
	reqs := []string{reqDB, reqDBCustom, reqOpen, reqTwoRec, reqMulti, reqMultiCustom, reqBatch, reqBatchMixed, reqLayoutBatch}
	for i, resp := range []string{
		`{"action":"accept","content":{"choices":["auth"],"custom_answer":"x"}}`,
		`{"action":"accept","content":{"choice_1":"sqlite","choices_2":["auth","chat"],"answer_3":"x"}}`,
		`{"action":"accept","content":{"choices":"auth"}}`,
		`{"action":"accept","content":{"choice":"mysql"}}`,
		`{"action":"accept","content":{"custom_answer":"x","choice":"sqlite"}}`,
		`{"action":"accept","content":{"answer":"x"}}`,
		`{"action":"decline"}`, `{"action":"cancel"}`, `{"action":"x"}`, `{}`, `[]`, `null`,
		`{"action":"accept","content":{"choice":1}}`,
		`{"action":"accept","content":{"choice":"sqlite","notes":"keep v15"}}`,
		`{"action":"accept","content":{"choice_1":"early-return","notes_1":"x","choices_2":["Dashboard"],"answer_3":"y","notes_3":7}}`,
	} {
		f.Add(uint8(i), []byte(resp))
	}
	f.Fuzz(func(t *testing.T, which uint8, resp []byte) {
		r := reqs[int(which)%len(reqs)]
		in := []byte(`{"op":"elicitation_result","request":` + r + `,"response":` + string(resp) + `}`)
		out := handle(in)
		checkEnvelope(t, in, out)
		if !bytes.Equal(out, handle(in)) {
			t.Fatalf("not deterministic")
		}
	})
}
