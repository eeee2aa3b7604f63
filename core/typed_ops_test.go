package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func okEnvelope(result []byte) string { return `{"ok":true,"result":` + string(result) + `}` }

func requireCode(t *testing.T, err error, code errCode) *harnessError {
	t.Helper()
	var he *harnessError
	require.True(t, errors.As(err, &he), "want a *HarnessError, got %v", err)
	require.Equal(t, code, he.Code, he.Message)
	return he
}

// The JSON methods write exactly the bytes Handle writes.
func TestJSONMethodsMatchHandle(t *testing.T) {
	var r request
	require.NoError(t, json.Unmarshal([]byte(reqMulti), &r))
	p, err := typedPresent(r)
	require.NoError(t, err)
	require.Equal(t, string(Handle([]byte(env("present", reqMulti)))), okEnvelope(p.JSON()))

	f, err := typedElicitation(r)
	require.NoError(t, err)
	require.Equal(t, string(Handle([]byte(env("elicitation", reqMulti)))), okEnvelope(f.JSON()))

	require.Equal(t, string(Handle([]byte(`{"op":"schema"}`))), okEnvelope(schemaTool().JSON()))

	var batch struct{ Questions []request }
	require.NoError(t, json.Unmarshal([]byte(reqBatch), &batch))
	a, err := typedNormalizeAsk(call{Questions: batch.Questions, Batch: true})
	require.NoError(t, err)
	require.Equal(t, string(Handle([]byte(env("normalize", reqBatch)))), okEnvelope(a.JSON()))

	answers := make([]answer, 3)
	texts := make([]string, 3)
	for i, line := range []string{"1", "", "Aurora"} {
		answers[i], err = typedResolve(a.Questions[i], line)
		require.NoError(t, err)
		texts[i] = a.Questions[i].Question
	}
	require.Equal(t, string(Handle([]byte(inputsEnv(reqBatch, "1", "", "Aurora")))),
		okEnvelope(batchAnswer{Questions: texts, Answers: answers}.JSON()))
	require.Equal(t, string(Handle([]byte(`{"op":"fail","situation":"eof"}`))),
		okEnvelope(failFor(failure{Situation: SituationEOF}).JSON()))
}

func TestNormalizeAskTyped(t *testing.T) {
	q := func(s string) request { return request{Question: s} }
	_, err := typedNormalizeAsk(call{Questions: []request{q("A?"), q(" a? ")}, Batch: true})
	he := requireCode(t, err, CodeInvalidRequest)
	require.True(t, strings.HasPrefix(he.Message, "questions[0] and questions[1] ask the same question"), he.Message)

	_, err = typedNormalizeAsk(call{Questions: []request{q("A?"), q("B?")}})
	requireCode(t, err, CodeInvalidRequest) // a single-question call has one question

	many := make([]request, MaxQuestions+1)
	for i := range many {
		many[i] = q("Q" + strconv.Itoa(i) + "?")
	}
	_, err = typedNormalizeAsk(call{Questions: many, Batch: true})
	he = requireCode(t, err, CodeInvalidRequest)
	require.True(t, strings.Contains(he.Message, "at most 10"), he.Message)

	in := call{Questions: []request{{Question: " Which? ", Options: []option{{Label: " A "}}, MultiSelect: true}}, Batch: true}
	n, err := typedNormalizeAsk(in)
	require.NoError(t, err)
	require.Equal(t, " A ", in.Questions[0].Options[0].Label, "the input is not modified")
	require.Equal(t, "A", n.Questions[0].Options[0].Value)
	require.True(t, n.Questions[0].MultiSelect)
}

func TestResolveMultiAndPicksTyped(t *testing.T) {
	r := request{Question: "Which?", Options: []option{{Label: "Red"}, {Label: "Green", Recommended: true}, {Label: "Blue"}},
		MultiSelect: true, AllowCustom: true}
	a, err := typedResolve(r, "")
	require.NoError(t, err)
	require.Equal(t, []string{"Green"}, a.Answers)
	require.Equal(t, `{"answers":["Green"],"selected":[{"index":1,"label":"Green","value":"Green"}]}`, string(a.JSON()))

	a, err = typedResolve(r, "3, red, teal")
	require.NoError(t, err)
	require.Equal(t, []string{"Red", "Blue", "teal"}, a.Answers)
	require.Equal(t, 2, len(a.Choices))

	a, err = typedResolvePick(r, pick{Options: []int{2, 0}, Text: " teal "})
	require.NoError(t, err)
	require.Equal(t, []string{"Red", "Blue", "teal"}, a.Answers)

	_, err = typedResolvePick(r, pick{Options: []int{3}})
	requireCode(t, err, CodeInvalidAnswer)

	single := request{Question: "One?", Options: []option{{Label: "Yes"}, {Label: "No"}}}
	a, err = typedResolvePick(single, pick{Options: []int{1}})
	require.NoError(t, err)
	require.Equal(t, "No", a.Answer)
	_, err = typedResolvePick(single, pick{Text: "maybe"})
	requireCode(t, err, CodeInvalidAnswer)
	_, err = typedResolve(request{Question: "Which?", MultiSelect: true}, "x")
	requireCode(t, err, CodeInvalidRequest)
}

func TestElicitationResultMultiTyped(t *testing.T) {
	r := request{Question: "Which?", Options: []option{{Label: "Red", Value: "r"}, {Label: "Blue", Value: "b"}}, MultiSelect: true}
	for _, content := range []map[string]any{
		{"choices": []any{"b", "r"}},
		{"choices": []string{"r", "b"}},
	} {
		a, err := typedElicitationResult(r, elicitationResponse{Action: "accept", Content: content})
		require.NoError(t, err)
		require.Equal(t, []string{"r", "b"}, a.Answers)
	}
	for content, want := range map[string]string{
		"string": `The form's field "choices" must be an array of the chosen options' values, got a string.`,
		"number": `The form's field "choices" must hold strings (the chosen options' values), got a number.`,
	} {
		v := map[string]any{"string": "r", "number": []any{1.0}}[content]
		_, err := typedElicitationResult(r, elicitationResponse{Action: "accept", Content: map[string]any{"choices": v}})
		require.Equal(t, want, requireCode(t, err, CodeInvalidAnswer).Message)
	}
}

// Every situation has its own code and message, op "fail" agrees with
// Fail, and situationList names exactly the situations Fail knows.
func TestFailEverySituation(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range strings.Split(situationList, ", ") {
		require.False(t, seen[s], "%s listed twice", s)
		seen[s] = true
		e := failFor(failure{Situation: situation(s), Detail: "d", Tool: "t", Millis: 1000})
		require.True(t, (e.Code != CodeInvalidRequest || s == "usage") && e.Message != "", "%s: %v", s, e)
		out := Handle([]byte(`{"op":"fail","situation":"` + s + `","detail":"d","tool":"t","ms":1000}`))
		require.Equal(t, okEnvelope(e.JSON()), string(out), s)
	}
	require.Equal(t, 32, len(seen))
	requireCode(t, failFor(failure{Situation: "nope"}), CodeInvalidRequest)
	// Host text is sanitized, folded to one line and cut.
	e := failFor(failure{Situation: SituationClientError, Detail: "\x1b[2Jline\nnext" + strings.Repeat("x", 2*maxDetailChars)})
	require.True(t, !strings.ContainsAny(e.Message, "\x1b\n") && strings.HasSuffix(e.Message, "…"), e.Message)
	require.Equal(t, len("the client could not ask the question: ")+maxDetailChars+len("…"), len(e.Message))
}

func TestFormatMillis(t *testing.T) {
	for ms, want := range map[int64]string{
		0: "0ms", 35: "35ms", 999: "999ms", 1000: "1s", 1500: "1.5s", 1050: "1.05s", 45000: "45s",
		60000: "1m", 90000: "1m30s", 120000: "2m", 3600000: "1h", 5430250: "1h30m30.25s", 2592000000: "720h", -3: "0ms",
	} {
		require.Equal(t, want, formatMillis(ms), ms)
	}
}

func TestTerminalModeFor(t *testing.T) {
	tty := terminalFacts{StdinTTY: true, StderrTTY: true, OutTTY: true, Term: "xterm"}
	require.Equal(t, terminalMode{Picker: true, Color: true}, terminalModeFor(tty))
	for name, c := range map[string]struct {
		t    func(*terminalFacts)
		want terminalMode
	}{
		"stdin pipe":    {func(x *terminalFacts) { x.StdinTTY = false }, terminalMode{Color: true}},
		"stderr pipe":   {func(x *terminalFacts) { x.StderrTTY = false }, terminalMode{Color: true}},
		"out pipe":      {func(x *terminalFacts) { x.OutTTY = false }, terminalMode{Picker: true}},
		"dumb":          {func(x *terminalFacts) { x.Term = "dumb" }, terminalMode{}},
		"NO_COLOR":      {func(x *terminalFacts) { x.NoColor = "1" }, terminalMode{Picker: true}},
		"ASKCORE_PLAIN": {func(x *terminalFacts) { x.Plain = "yes" }, terminalMode{Color: true}},
		"PLAIN=0":       {func(x *terminalFacts) { x.Plain = "0" }, terminalMode{Picker: true, Color: true}},
		"--plain":       {func(x *terminalFacts) { x.PlainFlag = true }, terminalMode{Color: true}},
	} {
		x := tty
		c.t(&x)
		require.Equal(t, c.want, terminalModeFor(x), name)
	}
}

func TestSummaryTyped(t *testing.T) {
	var batch struct{ Questions []request }
	require.NoError(t, json.Unmarshal([]byte(reqBatch), &batch))
	a, err := typedNormalizeAsk(call{Questions: batch.Questions, Batch: true})
	require.NoError(t, err)
	answers := []answer{
		{Answer: "x", Selected: &selected{Label: "PostgreSQL"}},
		{Multi: true, Answers: []string{"auth", "\x1b[31mevil"}, Choices: []selected{{Label: "Auth"}}},
		{Answer: "Aurora"},
	}
	require.Equal(t, "Database: PostgreSQL\nFeatures: Auth, evil\nWhat should the release be called?: Aurora", summaryText(a, answers))
}

// The tool description states the batch limit in words; keep them equal.
func TestSchemaStatesTheLimits(t *testing.T) {
	require.Equal(t, strconv.Itoa(MaxQuestions), maxQuestionsText)
	tool := schemaTool()
	var params struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(tool.Parameters, &params))
	require.Equal(t, "object", params.Type)
	for _, k := range []string{"header", "question", "options", "allowCustom", "multiSelect", "questions"} {
		_, ok := params.Properties[k]
		require.True(t, ok, "no property %s", k)
	}
	require.True(t, !bytes.Contains(tool.JSON(), []byte(`"desc"`)), "desc is input-only")
	require.True(t, strings.Contains(tool.Description, "questions") && strings.Contains(tool.Description, "multiSelect"), tool.Description)
}

// A valid JSON object gives the same result as arguments (text) and as a
// request (object), in every op.
func TestArgumentsMatchRequest(t *testing.T) {
	for _, req := range []string{reqDB, reqMulti, reqBatch, reqOpen, `{"question":"Q?","options":["<a>","b"]}`, `{"question":3}`} {
		for _, op := range []string{"normalize", "present", "picker", "elicitation"} {
			require.Equal(t, string(Handle([]byte(env(op, req)))), string(Handle([]byte(argsEnv(op, req)))), op+" "+req)
		}
	}
}

func FuzzArguments(f *testing.F) {
	for _, s := range []string{reqDB, reqMulti, reqBatch, reqOpen, `{"question": `, ``, `[]`, `{"question":"Q?"}junk`, "\ufeff{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		b, _ := json.Marshal(args)
		in := []byte(`{"op":"normalize","arguments":` + string(b) + `}`)
		out := handle(in)
		checkEnvelope(t, in, out)
		// Valid JSON objects give what the same object as a request gives.
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(args), &obj) == nil && obj != nil && len(args) < MaxInputBytes/2 {
			if !strings.Contains(args, "\ufffd") && json.Valid([]byte(args)) {
				viaRequest := handle([]byte(`{"op":"normalize","request":` + args + `}`))
				if !bytes.Equal(out, viaRequest) && !bytes.Contains(viaRequest, []byte("not valid JSON")) {
					t.Fatalf("arguments and request disagree for %q:\n%s\n%s", args, out, viaRequest)
				}
			}
		}
	})
}

func FuzzPick(f *testing.F) {
	reqs := []string{reqDB, reqDBCustom, reqOpen, reqMulti, reqMultiCustom}
	f.Add(uint8(0), []byte(`[0]`), "")
	f.Add(uint8(2), []byte(`[]`), "text")
	f.Add(uint8(4), []byte(`[2,0,2]`), "Helix")
	f.Fuzz(func(t *testing.T, which uint8, options []byte, text string) {
		r := reqs[int(which)%len(reqs)]
		tb, _ := json.Marshal(text)
		in := []byte(`{"op":"resolve","request":` + r + `,"input":{"options":` + string(options) + `,"text":` + string(tb) + `}}`)
		out := handle(in)
		checkEnvelope(t, in, out)
		var req request
		var opts []int
		if json.Unmarshal([]byte(r), &req) != nil || json.Unmarshal(options, &opts) != nil || !utf8Valid(text) {
			return
		}
		for _, o := range opts {
			if o < 0 || o > 999999 {
				return
			}
		}
		if !bytes.HasPrefix(bytes.TrimSpace(options), []byte("[")) || bytes.ContainsAny(options, ".eE-") || bytes.Contains(options, []byte("00")) {
			return // literals the typed API reads differently (1.0, 1e0, 01)
		}
		a, err := typedResolvePick(req, pick{Options: opts, Text: text})
		want := ""
		if err != nil {
			want = string(errorEnvelope(err.(*harnessError)))
		} else {
			want = okEnvelope(a.JSON())
		}
		if want != string(out) {
			t.Fatalf("typed ResolvePick differs from Handle:\n%s\n%s", out, want)
		}
	})
}

func utf8Valid(s string) bool {
	return !strings.ContainsRune(s, '\uFFFD') && strings.ToValidUTF8(s, "\uFFFD") == s
}
