package core

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Requests with batches and multi-select, reused by the cases.
const (
	reqMulti = `{"header":"Features","question":"Which features should I enable?","options":[` +
		`{"label":"Auth","value":"auth","recommended":true},{"label":"Billing","value":"billing","description":"Needs a Stripe key."},` +
		`{"label":"Search","value":"search","recommended":true},{"label":"Chat, voice","value":"chat"}],"multiSelect":true}`
	reqMultiCustom = `{"question":"Which editors do you use?","options":[{"label":"Vim"},{"label":"Emacs"},{"label":"VS Code","recommended":true}],` +
		`"multiSelect":true,"allowCustom":true}`
	reqMultiNoRec = `{"question":"Which days?","options":["Mon","Tue","Wed"],"multiSelect":true}`
	reqBatch      = `{"questions":[` + reqDB + `,` + reqMulti + `,` + reqOpen + `]}`
	reqBatchMixed = `{"questions":[` + reqNoDefault + `,` + reqMultiCustom + `,` + reqDBCustom + `]}`
)

// argsEnv is an envelope whose request is the model's argument text.
func argsEnv(op, args string, rest ...string) string {
	b, _ := json.Marshal(args)
	s := `{"op":"` + op + `","arguments":` + string(b)
	for _, r := range rest {
		s += "," + r
	}
	return s + "}"
}

// manyToolNames is n tool names as JSON strings, comma separated.
func manyToolNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = `"tool_` + itoa(i+1) + `"`
	}
	return strings.Join(names, ",")
}

// htmlEscaped is env with '<', '>' and '&' escaped as encoding/json escapes
// them (\u003c, ...), as a Go host that json.Marshals its envelope sends it.
func htmlEscaped(env string) string {
	var b bytes.Buffer
	json.HTMLEscape(&b, []byte(env))
	return b.String()
}

// atArgumentsLimit is an arguments text of exactly MaxArgumentsBytes bytes:
// a question padded with pad after its closing brace (white space JSON
// allows).
func atArgumentsLimit(pad byte) string {
	s := `{"question":"Ship it?"}`
	return s + strings.Repeat(string(pad), MaxArgumentsBytes-len(s))
}

// manyDescriptions is a call of 40 options whose descriptions are 1,900
// copies of s each: 76,000 characters of s, six times as many bytes once
// escaped as \u003c.
func manyDescriptions(s string) string {
	var b strings.Builder
	b.WriteString(`{"question":"Which?","options":[`)
	for i := 0; i < 40; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"label":"O` + itoa(i) + `","description":"` + strings.Repeat(s, 1900) + `"}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

func indexEnv(op, request string, i int, rest ...string) string {
	return env(op, request, append([]string{`"index":` + itoa(i)}, rest...)...)
}

func inputsEnv(request string, inputs ...string) string {
	b, _ := json.Marshal(inputs)
	return env("resolve", request, `"inputs":`+string(b))
}

func question(q string) string { return `{"question":"` + q + `"}` }

func batchOf(n int) string {
	qs := make([]string, n)
	for i := range qs {
		qs[i] = question("Question number " + itoa(i+1) + "?")
	}
	return `{"questions":[` + strings.Join(qs, ",") + `]}`
}

func failEnv(fields string) string { return `{"op":"fail",` + fields + `}` }

// batchMultiSelectCases are the cases of batches and multi-select, the
// keyboard picker's layout, and the seam ops:
// arguments as text, fail, terminal, summary.
func batchMultiSelectCases() []struct{ name, in string } {
	hostile := `{"questions":[{"header":"\u001b]8;;http://x\u0007Evil\u001b]8;;\u0007","question":"Pick \u202eevil\u202c one?\u001b[2J",` +
		`"options":[{"label":"A\u0007\u001b[31m","description":"line\r\nbreak"},{"label":"B\u200b"}],"multiSelect":true},` +
		`{"question":"Second\u0000 question\u2028?","options":["x\u001b[1m","y"]}]}`
	return []struct{ name, in string }{
		// normalize: multi-select
		{"normalize-multiselect", env("normalize", reqMulti)},
		{"normalize-multiselect-false-omitted", env("normalize", `{"question":"Q?","options":["A"],"multiSelect":false}`)},
		{"normalize-multiselect-without-options", env("normalize", `{"question":"Which ones?","multiSelect":true}`)},
		{"normalize-multiselect-empty-options", env("normalize", `{"question":"Which ones?","options":[],"multiSelect":true,"allowCustom":true}`)},
		{"normalize-multiselect-not-bool", env("normalize", `{"question":"Q?","options":["A"],"multiSelect":"yes"}`)},
		{"normalize-multiselect-custom", env("normalize", reqMultiCustom)},
		// normalize: batches
		{"normalize-batch", env("normalize", reqBatch)},
		{"normalize-batch-one-question", env("normalize", `{"questions":[`+reqOpen+`]}`)},
		{"normalize-batch-empty", env("normalize", `{"questions":[]}`)},
		{"normalize-batch-at-limit", env("normalize", batchOf(MaxQuestions))},
		{"normalize-batch-over-limit", env("normalize", batchOf(MaxQuestions+1))},
		{"normalize-batch-not-array", env("normalize", `{"questions":{"question":"Q?"}}`)},
		{"normalize-batch-entry-not-object", env("normalize", `{"questions":[`+reqOpen+`,"What else?"]}`)},
		{"normalize-batch-and-question", env("normalize", `{"question":"Q?","questions":[`+reqOpen+`]}`)},
		{"normalize-batch-and-several-fields", env("normalize", `{"header":"H","options":["A"],"multiSelect":true,"questions":[`+reqOpen+`]}`)},
		{"normalize-batch-null-top-level-fields", env("normalize", `{"question":null,"options":null,"questions":[`+reqOpen+`]}`)},
		{"normalize-batch-questions-null", env("normalize", `{"questions":null,"question":"Q?"}`)},
		{"normalize-batch-duplicate-questions", env("normalize", `{"questions":[{"question":"Which DB?"},{"question":"  which  db? "}]}`)},
		{"normalize-batch-duplicate-questions-invisible", env("normalize", `{"questions":[{"question":"Deploy?"},{"question":"De\u200bploy?\ufeff"}]}`)},
		{"normalize-batch-duplicate-questions-canonical", env("normalize", `{"questions":[{"question":"Café?"},{"question":"Cafe\u0301?"}]}`)},
		{"normalize-batch-question-missing", env("normalize", `{"questions":[`+reqOpen+`,{"header":"H"}]}`)},
		{"normalize-batch-question-empty", env("normalize", `{"questions":[`+reqOpen+`,{"question":"   "}]}`)},
		{"normalize-batch-duplicate-labels", env("normalize", `{"questions":[`+reqOpen+`,{"question":"Q?","options":["Yes","YES"]}]}`)},
		{"normalize-batch-duplicate-values", env("normalize", `{"questions":[{"question":"Q?","options":[{"label":"A","value":"v"},{"label":"B","value":"V"}]}]}`)},
		{"normalize-batch-label-type", env("normalize", `{"questions":[`+reqOpen+`,{"question":"Q?","options":[{"label":"A"},{"label":7}]}]}`)},
		{"normalize-batch-duplicate-key", env("normalize", `{"questions":[{"question":"A?","question":"B?"}]}`)},
		{"normalize-batch-questions-twice", env("normalize", `{"questions":[`+reqOpen+`],"questions":[`+reqOpen+`]}`)},
		{"normalize-batch-header-too-long", env("normalize", `{"questions":[{"header":"`+strings.Repeat("h", MaxHeaderChars+1)+`","question":"Q?"}]}`)},
		{"normalize-batch-too-many-options", env("normalize", `{"questions":[`+strings.TrimSuffix(manyOptions(MaxOptions+1, ""), "}")+`}]}`)},
		{"normalize-batch-multiselect-without-options", env("normalize", `{"questions":[`+reqOpen+`,{"question":"Which?","multiSelect":true}]}`)},
		{"normalize-batch-hostile-text", env("normalize", hostile)},
		{"normalize-batch-mixed-shapes", env("normalize", reqBatchMixed)},
		// present
		{"present-multiselect", env("present", reqMulti)},
		{"present-multiselect-custom", env("present", reqMultiCustom)},
		{"present-multiselect-no-recommended", env("present", reqMultiNoRec)},
		{"present-batch-first", indexEnv("present", reqBatch, 0)},
		{"present-batch-second", indexEnv("present", reqBatch, 1)},
		{"present-batch-third-optionless", indexEnv("present", reqBatch, 2)},
		{"present-batch-no-index-is-first", env("present", reqBatch)},
		{"present-batch-index-out-of-range", indexEnv("present", reqBatch, 3)},
		{"present-batch-index-fraction", env("present", reqBatch, `"index":1.5`)},
		{"present-batch-index-negative", env("present", reqBatch, `"index":-1`)},
		{"present-batch-index-string", env("present", reqBatch, `"index":"1"`)},
		{"present-single-index-one", indexEnv("present", reqDB, 1)},
		{"present-batch-hostile-text", indexEnv("present", hostile, 0)},
		// resolve: multi-select lines
		{"resolve-multi-numbers", resolveEnv(reqMulti, "1,3")},
		{"resolve-multi-labels", resolveEnv(reqMulti, " billing , AUTH ")},
		{"resolve-multi-values", resolveEnv(reqMulti, "chat,search")},
		{"resolve-multi-empty-is-recommended", resolveEnv(reqMulti, "")},
		{"resolve-multi-empty-no-recommended", resolveEnv(reqMultiNoRec, "  ")},
		{"resolve-multi-unknown-part", resolveEnv(reqMulti, "1, Slack")},
		{"resolve-multi-free-text", resolveEnv(reqMultiCustom, "2, Helix, Zed")},
		{"resolve-multi-free-text-only", resolveEnv(reqMultiCustom, "nano")},
		{"resolve-multi-label-with-comma", resolveEnv(reqMulti, "chat, voice, 2")},
		{"resolve-multi-duplicates", resolveEnv(reqMulti, "1, 1, auth, Auth")},
		{"resolve-multi-only-commas", resolveEnv(reqMulti, " , ,, ")},
		{"resolve-multi-number-out-of-range", resolveEnv(reqMulti, "2, 9")},
		{"resolve-multi-fullwidth-digits", resolveEnv(reqMulti, "２, 4.")},
		{"resolve-multi-free-text-too-long", resolveEnv(reqMultiCustom, "1, "+strings.Repeat("x", MaxAnswerChars+1))},
		{"resolve-multi-hostile-input", resolveEnv(reqMultiCustom, "\u001b[31m1\u001b[0m, \u202eevil\u202c")},
		// resolve: batches
		{"resolve-batch-index-input", indexEnv("resolve", reqBatch, 1, `"input":"1,2"`)},
		{"resolve-batch-index-input-invalid", indexEnv("resolve", reqBatch, 0, `"input":"oracle"`)},
		{"resolve-batch-input-without-index", resolveEnv(reqBatch, "2")},
		{"resolve-batch-input-missing", env("resolve", reqBatch)},
		{"resolve-batch-inputs", inputsEnv(reqBatch, "1", "", "Aurora")},
		{"resolve-batch-inputs-mixed-shapes", inputsEnv(reqBatchMixed, "no", "3, Helix", "DuckDB")},
		{"resolve-batch-inputs-invalid-second", inputsEnv(reqBatch, "1", "Slack", "Aurora")},
		{"resolve-batch-inputs-empty-open-question", inputsEnv(reqBatch, "1", "1", " ")},
		{"resolve-batch-inputs-wrong-count", inputsEnv(reqBatch, "1", "2")},
		{"resolve-batch-inputs-not-array", env("resolve", reqBatch, `"inputs":"1"`)},
		{"resolve-batch-inputs-number", env("resolve", reqBatch, `"inputs":["1",2,"x"]`)},
		{"resolve-input-and-inputs", env("resolve", reqDB, `"input":"1","inputs":["1"]`)},
		{"resolve-single-inputs", inputsEnv(reqDB, "2")},
		// resolve: picks from a keyboard picker
		{"resolve-pick-single", env("resolve", reqDB, `"input":{"options":[2]}`)},
		{"resolve-pick-single-text-wins", env("resolve", reqDBCustom, `"input":{"options":[1],"text":" DuckDB "}`)},
		{"resolve-pick-single-text-matches-label", env("resolve", reqDBCustom, `"input":{"text":"postgresql"}`)},
		{"resolve-pick-single-two-options", env("resolve", reqDB, `"input":{"options":[0,1]}`)},
		{"resolve-pick-single-nothing", env("resolve", reqDB, `"input":{}`)},
		{"resolve-pick-single-nothing-custom", env("resolve", reqDBCustom, `"input":{"options":[],"text":"  "}`)},
		{"resolve-pick-multi", env("resolve", reqMulti, `"input":{"options":[3,0]}`)},
		{"resolve-pick-multi-with-text", env("resolve", reqMultiCustom, `"input":{"options":[2],"text":"Helix"}`)},
		{"resolve-pick-multi-nothing", env("resolve", reqMulti, `"input":{"options":[]}`)},
		{"resolve-pick-out-of-range", env("resolve", reqMulti, `"input":{"options":[4]}`)},
		{"resolve-pick-text-not-allowed", env("resolve", reqDB, `"input":{"text":"DuckDB"}`)},
		{"resolve-pick-options-not-numbers", env("resolve", reqDB, `"input":{"options":["0"]}`)},
		{"resolve-pick-options-not-array", env("resolve", reqDB, `"input":{"options":1}`)},
		{"resolve-pick-text-number", env("resolve", reqDBCustom, `"input":{"text":5}`)},
		{"resolve-pick-optionless", env("resolve", reqOpen, `"input":{"text":"Aurora"}`)},
		{"resolve-pick-optionless-empty", env("resolve", reqOpen, `"input":{"text":""}`)},
		{"resolve-batch-inputs-picks-and-lines", env("resolve", reqBatch, `"inputs":[{"options":[0]},{"options":[1,3]},"Aurora"]`)},
		// elicitation
		{"elicitation-multiselect", env("elicitation", reqMulti)},
		{"elicitation-multiselect-custom", env("elicitation", reqMultiCustom)},
		{"elicitation-multiselect-no-recommended", env("elicitation", reqMultiNoRec)},
		{"elicitation-batch", env("elicitation", reqBatch)},
		{"elicitation-batch-one-question", env("elicitation", `{"questions":[`+reqDB+`]}`)},
		{"elicitation-batch-mixed-shapes", env("elicitation", reqBatchMixed)},
		{"elicitation-batch-hostile-text", env("elicitation", hostile)},
		{"elicitation-for-mcp", env("elicitation", reqDB, `"for":"mcp"`)},
		{"elicitation-for-mcp-optionless-with-header", env("elicitation", `{"header":"Name","question":"What should it be called?"}`, `"for":"mcp"`)},
		{"elicitation-for-mcp-multi", env("elicitation", reqMulti, `"for":"mcp"`)},
		{"elicitation-for-mcp-batch", env("elicitation", reqBatch, `"for":"mcp"`)},
		{"elicitation-for-acp", env("elicitation", reqDB, `"for":"acp"`)},
		{"elicitation-for-unknown", env("elicitation", reqDB, `"for":"web"`)},
		// elicitation_result
		{"elicitation-result-multi", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":["search","auth"]}}`)},
		{"elicitation-result-multi-by-label", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":["Billing"]}}`)},
		{"elicitation-result-multi-custom", elicitEnv(reqMultiCustom, `{"action":"accept","content":{"choices":["Vim"],"custom_answer":" Helix "}}`)},
		{"elicitation-result-multi-custom-only", elicitEnv(reqMultiCustom, `{"action":"accept","content":{"choices":[],"custom_answer":"nano"}}`)},
		{"elicitation-result-multi-custom-names-option", elicitEnv(reqMultiCustom, `{"action":"accept","content":{"custom_answer":"emacs"}}`)},
		{"elicitation-result-multi-not-array", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":"auth"}}`)},
		{"elicitation-result-multi-array-of-numbers", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":[1,2]}}`)},
		{"elicitation-result-multi-not-offered", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":["auth","slack"]}}`)},
		{"elicitation-result-multi-empty", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":[]}}`)},
		{"elicitation-result-multi-missing-custom", elicitEnv(reqMultiCustom, `{"action":"accept","content":{}}`)},
		{"elicitation-result-batch", elicitEnv(reqBatch, `{"action":"accept","content":{"choice_1":"postgres","choices_2":["auth","chat"],"answer_3":"Aurora"}}`)},
		{"elicitation-result-batch-mixed-shapes", elicitEnv(reqBatchMixed, `{"action":"accept","content":{"choice_1":"No","choices_2":["VS Code"],"custom_answer_2":"Zed","choice_3":"sqlite","custom_answer_3":"DuckDB"}}`)},
		{"elicitation-result-batch-missing-field", elicitEnv(reqBatch, `{"action":"accept","content":{"choice_1":"postgres","answer_3":"Aurora"}}`)},
		{"elicitation-result-batch-single-question-names-ignored", elicitEnv(reqBatch, `{"action":"accept","content":{"choice":"postgres","choices":["auth"],"answer":"Aurora"}}`)},
		{"elicitation-result-batch-decline", elicitEnv(reqBatch, `{"action":"decline"}`)},
		{"elicitation-result-batch-cancel", elicitEnv(reqBatch, `{"action":"cancel"}`)},
		{"elicitation-result-batch-unknown-action", elicitEnv(reqBatch, `{"action":"skip"}`)},
		{"elicitation-result-response-array", elicitEnv(reqBatch, `[{"action":"accept"}]`)},
		// picker
		{"picker-single", env("picker", reqDBCustom)},
		{"picker-multi", env("picker", reqMulti)},
		{"picker-optionless", env("picker", reqOpen)},
		{"picker-batch", env("picker", reqBatch)},
		{"picker-batch-hostile-text", env("picker", hostile)},
		{"picker-bad-request", env("picker", `{"questions":[]}`)},
		// summary
		{"summary-single-option", env("summary", reqDB, `"answer":{"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}`)},
		{"summary-single-text", env("summary", reqDBCustom, `"answer":{"answer":"DuckDB"}`)},
		{"summary-multi", env("summary", reqMultiCustom, `"answer":{"answers":["Vim","VS Code","Helix"],"selected":[{"index":0,"label":"Vim","value":"Vim"},{"index":2,"label":"VS Code","value":"VS Code"}]}`)},
		{"summary-batch", env("summary", reqBatch, `"answer":{"answers":[{"question":"Which database should I use?","answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}},`+
			`{"question":"Which features should I enable?","answers":["auth"],"selected":[{"index":0,"label":"Auth","value":"auth"}]},{"question":"What should the release be called?","answer":"Aurora"}]}`)},
		{"summary-batch-one-question", indexEnv("summary", reqBatch, 1, `"answer":{"answers":["auth","Slack"],"selected":[{"index":0,"label":"Auth","value":"auth"}]}`)},
		{"summary-answer-mismatch", env("summary", reqMulti, `"answer":{"answer":"auth"}`)},
		{"summary-answer-missing", env("summary", reqDB)},
		// the model's arguments as text
		{"args-valid", argsEnv("normalize", `{"question":"Ship it?","options":["Yes","No"]}`)},
		{"args-batch", argsEnv("normalize", `{"questions":[{"question":"A?"},{"question":"B?","options":["x","y"],"multiSelect":true}]}`)},
		{"args-trailing-junk", argsEnv("normalize", `{"question":"Q?","options":["a","b"]},"junk":1`)},
		{"args-truncated", argsEnv("normalize", `{"question": `)},
		{"args-empty", argsEnv("normalize", ``)},
		{"args-whitespace", argsEnv("normalize", " \n\t ")},
		{"args-two-objects", argsEnv("normalize", `{"question":"A?"}{"question":"B?"}`)},
		{"args-array", argsEnv("normalize", `[{"question":"A?"}]`)},
		{"args-string", argsEnv("normalize", `"What now?"`)},
		{"args-null", argsEnv("normalize", `null`)},
		{"args-single-quotes", argsEnv("normalize", `{'question':'Q?'}`)},
		{"args-html-quoted-in-error", argsEnv("normalize", `{"question":"Q?","options":[{"label":"<a>"},{"label":"<A>"}]}`)},
		{"args-and-request", `{"op":"normalize","request":` + reqOpen + `,"arguments":"{}"}`},
		{"args-not-a-string", `{"op":"normalize","arguments":` + reqOpen + `}`},
		{"args-twice", `{"op":"normalize","arguments":"{}","arguments":"{}"}`},
		{"args-depth-bomb", argsEnv("normalize", `{"question":"x","junk":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`)},
		{"args-duplicate-key", argsEnv("normalize", `{"question":"A?","question":"B?"}`)},
		{"args-bom", argsEnv("normalize", "\ufeff"+reqOpen)},
		{"args-resolve", argsEnv("resolve", `{"question":"Ship it?","options":["Yes","No"]}`, `"input":"2"`)},
		{"args-present", argsEnv("present", reqMulti)},
		{"args-elicitation", argsEnv("elicitation", reqBatch)},
		{"args-elicitation-result", argsEnv("elicitation_result", reqDB, `"response":{"action":"accept","content":{"choice":"mysql"}}`)},
		{"args-picker-invalid", argsEnv("picker", `{"question":`)},
		// Limits are judged on the arguments text, as the model wrote it:
		// the same verdict whether the host escaped '<' in its envelope
		// (encoding/json: \u003c, six bytes) or not (JSON.stringify).
		{"limit-arguments-too-large", argsEnv("normalize", `{"question":"`+strings.Repeat("a", MaxArgumentsBytes)+`"}`)},
		{"limit-arguments-too-large-escaped", htmlEscaped(argsEnv("normalize", `{"question":"`+strings.Repeat("<", MaxArgumentsBytes)+`"}`))},
		{"limit-arguments-at-limit", argsEnv("normalize", atArgumentsLimit(' '))},
		{"limit-arguments-angle-brackets", argsEnv("normalize", manyDescriptions("<"))},
		{"limit-arguments-angle-brackets-escaped", htmlEscaped(argsEnv("normalize", manyDescriptions("<")))},
		{"limit-arguments-bytes", `{"op":"normalize","argumentsBytes":15000000}`},
		{"limit-arguments-bytes-within-limit", `{"op":"normalize","argumentsBytes":100}`},
		{"limit-arguments-bytes-with-arguments", `{"op":"normalize","argumentsBytes":300000,"arguments":"{}"}`},
		{"limit-arguments-bytes-not-a-number", `{"op":"present","argumentsBytes":"300000"}`},
		// The core's output escapes '<', '>' and '&' as encoding/json does.
		{"escape-html-in-answer", resolveEnv(`{"question":"A & B?","options":[{"label":"<b>bold</b>","value":"a&b"}]}`, "1")},
		// fail: the errors of seam situations
		{"fail-no-provider", failEnv(`"situation":"no_provider"`)},
		{"fail-duplicate-provider", failEnv(`"situation":"duplicate_provider"`)},
		{"fail-aborted", failEnv(`"situation":"aborted"`)},
		{"fail-aborted-reason", failEnv(`"situation":"aborted","detail":"interrupted (Ctrl-C)"`)},
		{"fail-withdrawn", failEnv(`"situation":"withdrawn"`)},
		{"fail-timeout-minutes", failEnv(`"situation":"timeout","ms":120000`)},
		{"fail-timeout-fraction", failEnv(`"situation":"timeout","ms":1500`)},
		{"fail-timeout-millis", failEnv(`"situation":"timeout","ms":35`)},
		{"fail-timeout-thirty-days", failEnv(`"situation":"timeout","ms":2592000000`)},
		{"fail-timeout-negative", failEnv(`"situation":"timeout","ms":-5`)},
		{"fail-no-answer", failEnv(`"situation":"no_answer"`)},
		{"fail-not-a-reply", failEnv(`"situation":"not_a_reply"`)},
		// Host text is read up to MaxFailTextChars: what follows is never
		// quoted, even when what precedes it sanitizes to nothing.
		{"fail-detail-read-so-far", failEnv(`"situation":"provider_failed","detail":"` + strings.Repeat(`\u200b`, MaxFailTextChars) + `never quoted"`)},
		{"fail-unknown-tool-many-tools", failEnv(`"situation":"unknown_tool","tool":"nope","tools":[` + manyToolNames(MaxFailTools+6) + `]`)},
		{"fail-stale-answer", failEnv(`"situation":"stale_answer"`)},
		{"fail-invalid-reply", failEnv(`"situation":"invalid_reply","detail":"Please choose an option."`)},
		{"fail-provider-failed", failEnv(`"situation":"provider_failed","detail":"boom"`)},
		{"fail-provider-failed-hostile", failEnv(`"situation":"provider_failed","detail":"\u001b[31mred\u001b[0m\nsecond line <a> ` + strings.Repeat("z", 400) + `"`)},
		{"fail-engine-fault", failEnv(`"situation":"engine_fault","detail":"wasm error: unreachable"`)},
		{"fail-interrupted", failEnv(`"situation":"interrupted"`)},
		{"fail-eof", failEnv(`"situation":"eof"`)},
		{"fail-input-closed", failEnv(`"situation":"input_closed"`)},
		{"fail-read-failed", failEnv(`"situation":"read_failed","detail":"bufio.Scanner: token too long"`)},
		{"fail-declined", failEnv(`"situation":"declined"`)},
		{"fail-no-terminal", failEnv(`"situation":"no_terminal"`)},
		{"fail-session-not-found", failEnv(`"situation":"session_not_found","detail":"sub-agent-7"`)},
		{"fail-no-form-support", failEnv(`"situation":"no_form_support"`)},
		{"fail-client-error", failEnv(`"situation":"client_error","detail":"Internal error (JSON-RPC error -32603)"`)},
		{"fail-client-no-result", failEnv(`"situation":"client_no_result"`)},
		{"fail-unknown-tool", failEnv(`"situation":"unknown_tool","tool":"delete_everything","tools":["ask_user_question"]`)},
		{"fail-unknown-tool-long-hostile-name", failEnv(`"situation":"unknown_tool","tool":"\u001b]0;pwned\u0007` + strings.Repeat("n", 200) + `","tools":[]`)},
		{"fail-tool-failed", failEnv(`"situation":"tool_failed","tool":"ask_user_question","detail":"runtime error: index out of range"`)},
		{"fail-tool-failed-unnamed", failEnv(`"situation":"tool_failed","detail":"x"`)},
		{"fail-client-disconnected", failEnv(`"situation":"client_disconnected"`)},
		// A reply to elicitation/create that is no JSON-RPC response one can
		// read (askcore-mcp), and a front end stopped by a signal.
		{"fail-client-reply-invalid", failEnv(`"situation":"client_reply_invalid","detail":"its error code is a string (\"x\"), not an integer"`)},
		{"fail-client-reply-invalid-bare", failEnv(`"situation":"client_reply_invalid"`)},
		{"fail-client-reply-invalid-hostile", failEnv(`"situation":"client_reply_invalid","detail":"its error is \"\u001b]0;pwned\u0007boom\nsecond line\""`)},
		{"fail-stopped", failEnv(`"situation":"stopped","detail":"SIGTERM"`)},
		{"fail-stopped-bare", failEnv(`"situation":"stopped"`)},
		{"fail-usage", failEnv(`"situation":"usage","detail":"flag provided but not defined: -nope"`)},
		{"fail-request-read-failed", failEnv(`"situation":"request_read_failed","detail":"read /dev/stdin: input/output error"`)},
		{"fail-tool-cancelled", failEnv(`"situation":"tool_cancelled"`)},
		{"fail-unknown-situation", failEnv(`"situation":"oops"`)},
		{"fail-situation-missing", failEnv(`"detail":"x"`)},
		{"fail-ms-not-integer", failEnv(`"situation":"timeout","ms":1.5`)},
		{"fail-tools-not-array", failEnv(`"situation":"unknown_tool","tool":"x","tools":"a"`)},
		// terminal: picker or line mode, colour or not
		{"terminal-tty", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"xterm-256color"}`},
		{"terminal-pipe", `{"op":"terminal","stdinTTY":false,"stderrTTY":true,"outTTY":false,"term":"xterm"}`},
		{"terminal-dumb", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"dumb"}`},
		{"terminal-no-color", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"xterm","noColor":"1"}`},
		{"terminal-plain-env", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"xterm","plain":"1"}`},
		{"terminal-plain-env-zero", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"xterm","plain":"0"}`},
		{"terminal-plain-flag", `{"op":"terminal","stdinTTY":true,"stderrTTY":true,"outTTY":true,"term":"xterm","plainFlag":true}`},
		{"terminal-wrong-type", `{"op":"terminal","stdinTTY":"yes"}`},
		// sanitize as a title
		{"sanitize-title-cut", `{"op":"sanitize","as":"title","text":"\u001b[31mA very long tool name that goes on and on and on\nwith a second line"}`},
		{"sanitize-as-unknown", `{"op":"sanitize","as":"html","text":"x"}`},
	}
}
