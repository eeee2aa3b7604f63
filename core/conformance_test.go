package core

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the conformance corpus (testdata/conformance/*.in and *.out)")

const conformanceDir = "../testdata/conformance"

// Requests reused by the cases.
const (
	reqDB = `{"header":"Database","question":"Which database should I use?","options":[` +
		`{"label":"PostgreSQL","value":"postgres","description":"Reliable; needs a server."},` +
		`{"label":"SQLite","value":"sqlite","description":"A single file, no server.","recommended":true},` +
		`{"label":"MySQL","value":"mysql"}]}`
	reqDBCustom = `{"header":"Database","question":"Which database should I use?","options":[` +
		`{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite","recommended":true},` +
		`{"label":"MySQL","value":"mysql"}],"allowCustom":true}`
	reqNoDefault = `{"question":"Deploy now?","options":[{"label":"Yes"},{"label":"No"}]}`
	reqOpen      = `{"question":"What should the release be called?"}`
	reqTwoRec    = `{"question":"Pick a port","options":[{"label":"8080"},{"label":"3000","recommended":true},` +
		`{"label":"443","recommended":true},{"label":"80"}]}`
	reqCafeNFC = `{"question":"Where?","options":[{"label":"Café"},{"label":"Bar"}]}`
)

func env(op, request string, rest ...string) string {
	s := `{"op":"` + op + `","request":` + request
	for _, r := range rest {
		s += "," + r
	}
	return s + "}"
}

func resolveEnv(request, input string) string {
	b, _ := json.Marshal(input)
	return env("resolve", request, `"input":`+string(b))
}

func elicitEnv(request, response string) string {
	return env("elicitation_result", request, `"response":`+response)
}

func manyOptions(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"question":"Which one?","options":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"label":"Option ` + itoa(i+1) + `"` + extra + `}`)
	}
	b.WriteString(`],"allowCustom":true}`)
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// conformanceCases is the corpus: each entry becomes NAME.in (exact input
// bytes) and NAME.out (the golden output).
func conformanceCases() []struct{ name, in string } {
	cases := singleQuestionCases()
	cases = append(cases, normConformanceCases()...)
	cases = append(cases, batchMultiSelectCases()...)
	cases = append(cases, previewNotesCases()...)
	cases = append(cases, truthConformanceCases()...)
	cases = append(cases, schemaConformanceCases()...)
	return cases
}

// singleQuestionCases are the cases of one question, single-select.
func singleQuestionCases() []struct{ name, in string } {
	overLimit := `{"op":"normalize","request":{"question":"` + strings.Repeat("a", MaxInputBytes-41) + `"}}`
	atQuestionLimit := `{"question":"` + strings.Repeat("q", MaxQuestionChars) + `"}`
	overQuestionLimit := `{"question":"` + strings.Repeat("q", MaxQuestionChars+1) + `"}`
	depthBomb := `{"op":"normalize","request":{"question":"x","junk":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`
	depthOK := `{"op":"normalize","request":{"question":"x","junk":` + strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2) + `}}`
	return []struct{ name, in string }{
		// normalize
		{"normalize-basic", env("normalize", reqDB)},
		{"normalize-minimal-optionless", env("normalize", reqOpen)},
		{"normalize-optionless-allowcustom-false", env("normalize", `{"question":"Name?","allowCustom":false}`)},
		{"normalize-empty-options-array", env("normalize", `{"question":"Name?","options":[]}`)},
		{"normalize-trims-strings", env("normalize", `{"header":"  DB  ","question":"  Which?  \n ","options":[{"label":"  A  ","value":"  a  ","description":"  d  "}]}`)},
		{"normalize-value-defaults-to-label", env("normalize", `{"question":"Q?","options":[{"label":"Yes"},{"label":"No","value":""}]}`)},
		{"normalize-desc-synonym", env("normalize", `{"question":"Q?","options":[{"label":"A","desc":"from desc"}]}`)},
		{"normalize-description-wins-over-desc", env("normalize", `{"question":"Q?","options":[{"label":"A","description":"from description","desc":"from desc"}]}`)},
		{"normalize-several-recommended-keep-order", env("normalize", reqTwoRec)},
		{"normalize-recommended-false-omitted", env("normalize", `{"question":"Q?","options":[{"label":"A","recommended":false}]}`)},
		{"normalize-unknown-fields-ignored", env("normalize", `{"question":"Q?","multiple":true,"priority":3,"options":[{"label":"A","icon":"x","extra":{"deep":[1,2]}}]}`, `"trace":"abc"`)},
		{"normalize-null-optional-fields", env("normalize", `{"header":null,"question":"Q?","options":[{"label":"A","value":null,"description":null,"recommended":null}],"allowCustom":null}`)},
		{"normalize-null-options", env("normalize", `{"question":"Q?","options":null}`)},
		{"normalize-string-option-shorthand", env("normalize", `{"question":"Q?","options":["Red","Green",{"label":"Blue"}]}`)},
		{"normalize-newlines-kept-in-question-and-description", env("normalize", `{"question":"Line one\nLine two\r\nLine three","options":[{"label":"A","description":"d1\rd2"}]}`)},
		{"normalize-newlines-folded-in-header-label-value", env("normalize", `{"header":"Data\nbase","question":"Q?","options":[{"label":"Multi  \n  line","value":"v\r\nw"}]}`)},
		{"normalize-tab-becomes-space", env("normalize", `{"question":"A\tB","options":[{"label":"x\ty"}]}`)},
		{"normalize-html-chars-unescaped", env("normalize", `{"question":"Is <b>&amp;</b> > 1?","options":[{"label":"a<b"}]}`)},
		{"normalize-json-escapes-decoded", env("normalize", `{"question":"\u0051\u003f \/ \"quoted\" \\ back","options":[{"label":"\ud83d\ude00 smile"}]}`)},
		{"normalize-64-options-allowed", env("normalize", manyOptions(MaxOptions, ""))},
		{"normalize-question-at-limit", env("normalize", atQuestionLimit)},
		{"normalize-depth-just-allowed", depthOK},
		{"normalize-whitespace-around-envelope", " \n\t" + env("normalize", reqOpen) + " \r\n"},
		{"normalize-key-order-in-input-irrelevant", `{"request":{"allowCustom":true,"options":[{"recommended":true,"value":"v","label":"L"}],"question":"Q?","header":"H"},"op":"normalize"}`},
		// unicode
		{"unicode-nfc-and-nfd-labels-are-duplicates", env("normalize", `{"question":"Where?","options":[{"label":"Café"},{"label":"Cafe\u0301"}]}`)},
		{"unicode-nfd-label-kept-as-given", env("normalize", `{"question":"Where?","options":[{"label":"Cafe\u0301"},{"label":"Bar"}]}`)},
		{"unicode-resolve-nfd-input-matches-nfc-label", resolveEnv(reqCafeNFC, "cafe\u0301")},
		{"unicode-resolve-nfc-input-matches-nfd-label", resolveEnv(`{"question":"Where?","options":[{"label":"Cafe\u0301"},{"label":"Bar"}]}`, "CAFÉ")},
		{"unicode-resolve-case-insensitive-non-ascii", resolveEnv(`{"question":"Город?","options":[{"label":"Москва"},{"label":"Київ"}]}`, "МОСКВА")},
		{"unicode-zwj-emoji-kept", env("normalize", `{"question":"Who?","options":[{"label":"👩‍💻 Developer"},{"label":"👨‍👩‍👧 Family"}]}`)},
		{"unicode-zwj-emoji-resolve", resolveEnv(`{"question":"Who?","options":[{"label":"👩‍💻"},{"label":"👨‍👩‍👧"}]}`, "👩‍💻")},
		{"unicode-zero-width-duplicate-label", env("normalize", `{"question":"Q?","options":[{"label":"Yes"},{"label":"Y\u200Bes"}]}`)},
		{"unicode-zero-width-duplicate-value", env("normalize", `{"question":"Q?","options":[{"label":"A","value":"x"},{"label":"B","value":"\uFEFFx\u2060"}]}`)},
		{"unicode-zero-width-resolve", resolveEnv(reqNoDefault, "\u200Byes\u200D")},
		{"unicode-hangul-filler-duplicate-label", env("normalize", `{"question":"Q?","options":[{"label":"Yes"},{"label":"Y\u3164es"}]}`)},
		{"unicode-invisible-operator-duplicate-value", env("normalize", `{"question":"Q?","options":[{"label":"A","value":"go"},{"label":"B","value":"g\u2062o\u034F"}]}`)},
		{"unicode-arabic-indic-digit-is-not-a-number", resolveEnv(reqNoDefault, "١")},
		{"unicode-roman-numeral-is-not-a-number", resolveEnv(reqNoDefault, "Ⅰ")},
		{"unicode-overlong-and-surrogate-utf8", "{\"op\":\"normalize\",\"request\":{\"question\":\"over\xc0\xaflong \xed\xb2\x80 sur\",\"options\":[{\"label\":\"\xf4\x90\x80\x80\"}]}}"},
		{"unicode-variation-selector-duplicate", env("normalize", `{"question":"Q?","options":[{"label":"✔"},{"label":"✔️"}]}`)},
		{"unicode-fullwidth-digit-resolves", resolveEnv(reqDB, "２")},
		{"unicode-fullwidth-letters-resolve", resolveEnv(reqNoDefault, "ＹＥＳ")},
		{"unicode-u2028-u2029-in-question", env("normalize", `{"question":"One\u2028Two\u2029Three","options":[{"label":"A\u2028B"}]}`)},
		{"unicode-raw-u2028-bytes", env("normalize", "{\"question\":\"One\u2028Two\",\"options\":[{\"label\":\"L\u2029M\"}]}")},
		{"unicode-invalid-utf8-replaced", "{\"op\":\"normalize\",\"request\":{\"question\":\"Bad \xff\xfe bytes \xc3\",\"options\":[{\"label\":\"ok \xed\xa0\x80\"}]}}"},
		{"unicode-lone-surrogate-escape", env("normalize", `{"question":"Lone \ud800 high and \udc00 low","options":[{"label":"pair \ud83d\ude00"}]}`)},
		{"unicode-nbsp-and-ideographic-space-trimmed", env("normalize", "{\"question\":\"\u00a0\u3000Q?\u3000\",\"options\":[{\"label\":\"\u2003A\u00a0\"}]}")},
		{"unicode-ogonek-nfc-and-nfd-labels-are-duplicates", env("normalize", `{"question":"Q?","options":[{"label":"Ǫ"},{"label":"O\u0328"}]}`)},
		{"unicode-rtl-text-kept", env("normalize", `{"question":"מה?","options":[{"label":"כן"},{"label":"لا"}]}`)},
		// sanitization
		{"sanitize-csi-colour-stripped", env("normalize", `{"question":"\u001b[31mRed\u001b[0m question?","options":[{"label":"\u001b[1mBold\u001b[22m"}]}`)},
		{"sanitize-osc8-hyperlink-stripped", env("normalize", `{"question":"See \u001b]8;;https://evil.example\u001b\\this link\u001b]8;;\u001b\\ now","options":[{"label":"ok"}]}`)},
		{"sanitize-osc-title-bel-terminated", env("normalize", `{"question":"\u001b]0;pwned\u0007Title?"}`)},
		{"sanitize-osc-unterminated-swallowed", env("normalize", `{"question":"Keep this\u001b]0;rest is swallowed"}`)},
		{"sanitize-osc-ended-by-next-sequence", env("normalize", `{"question":"a\u001b]2;title\u001b[31mb?"}`)},
		{"sanitize-dcs-stripped", env("normalize", `{"question":"A\u001bPq#0;2;0;0;0\u001b\\B"}`)},
		{"sanitize-c1-csi-and-osc", env("normalize", `{"question":"x\u009b31my\u009d0;t\u009cz"}`)},
		{"sanitize-two-char-escape", env("normalize", `{"question":"a\u001bcb\u001b(Bc\u001b7d"}`)},
		{"sanitize-lone-esc-at-end", env("normalize", `{"question":"end\u001b","options":[{"label":"x\u001b"}]}`)},
		{"sanitize-bel-bs-del-nul", env("normalize", `{"question":"a\u0007b\bc\u007fd\u0000e","options":[{"label":"\u0001L\u001f"}]}`)},
		{"sanitize-carriage-return-overwrite", env("normalize", `{"question":"Safe text\rEVIL","options":[{"label":"yes\rno"}]}`)},
		{"sanitize-bidi-override-stripped", env("normalize", `{"question":"Run \u202Egpj.exe\u202C?","options":[{"label":"\u2066iso\u2069"},{"label":"\u200Emark\u200F"}]}`)},
		{"sanitize-c1-controls-stripped", env("normalize", `{"question":"a\u0080b\u0085c\u009fd"}`)},
		{"sanitize-label-only-controls-is-empty", env("normalize", `{"question":"Q?","options":[{"label":"\u001b[31m\u001b[0m"}]}`)},
		{"sanitize-question-only-escape-is-empty", env("normalize", `{"question":"\u001b]0;x\u0007"}`)},
		{"sanitize-duplicate-after-stripping", env("normalize", `{"question":"Q?","options":[{"label":"Yes"},{"label":"\u001b[1mYes\u001b[0m"}]}`)},
		{"sanitize-present-escapes", env("present", `{"header":"\u001b[7mH","question":"Q\u001b]8;;x\u0007?","options":[{"label":"A\u0007","description":"d\u001b[2J"}]}`)},
		{"sanitize-resolve-input-escapes", resolveEnv(reqDB, "\u001b[200~2\u001b[201~")},
		{"sanitize-elicitation-escapes", env("elicitation", `{"header":"\u202EH","question":"Q\u001b[31m?","options":[{"label":"L\u0000","value":"v\u0007"}]}`)},
		// duplicates
		{"dup-labels-exact", env("normalize", `{"question":"Q?","options":[{"label":"A"},{"label":"A"}]}`)},
		{"dup-labels-after-trimming", env("normalize", `{"question":"Q?","options":[{"label":"Yes"},{"label":"  Yes  "}]}`)},
		{"dup-labels-case-insensitive", env("normalize", `{"question":"Q?","options":[{"label":"yes"},{"label":"B"},{"label":"YES"}]}`)},
		{"dup-labels-inner-spaces", env("normalize", `{"question":"Q?","options":[{"label":"Use  Postgres"},{"label":"use postgres"}]}`)},
		{"dup-values-differ-labels", env("normalize", `{"question":"Q?","options":[{"label":"A","value":"same"},{"label":"B","value":"Same "}]}`)},
		{"dup-value-defaulted-from-label", env("normalize", `{"question":"Q?","options":[{"label":"A"},{"label":"B","value":"a"}]}`)},
		{"dup-string-shorthand", env("normalize", `{"question":"Q?","options":["x","X"]}`)},
		{"dup-label-equals-other-value-allowed", env("normalize", `{"question":"Q?","options":[{"label":"yes","value":"no"},{"label":"no","value":"yes"}]}`)},
		{"dup-label-vs-value-resolve-prefers-label", resolveEnv(`{"question":"Q?","options":[{"label":"yes","value":"no"},{"label":"no","value":"yes"}]}`, "no")},
		// limits
		{"limit-input-too-large", overLimit},
		{"limit-depth-bomb", depthBomb},
		{"limit-too-many-options", env("normalize", manyOptions(MaxOptions+16, ""))},
		{"limit-question-too-long", env("normalize", overQuestionLimit)},
		{"limit-header-too-long", env("normalize", `{"header":"`+strings.Repeat("h", MaxHeaderChars+1)+`","question":"Q?"}`)},
		{"limit-label-too-long", env("normalize", `{"question":"Q?","options":[{"label":"`+strings.Repeat("é", MaxLabelChars+1)+`"}]}`)},
		{"limit-value-too-long", env("normalize", `{"question":"Q?","options":[{"label":"A","value":"`+strings.Repeat("v", MaxValueChars+1)+`"}]}`)},
		{"limit-description-too-long", env("normalize", `{"question":"Q?","options":[{"label":"A","description":"`+strings.Repeat("d", MaxDescriptionChars+1)+`"}]}`)},
		{"limit-label-at-limit-multibyte", env("normalize", `{"question":"Q?","options":[{"label":"`+strings.Repeat("é", MaxLabelChars)+`"}]}`)},
		{"limit-answer-too-long", resolveEnv(reqOpen, strings.Repeat("a", MaxAnswerChars+1))},
		// wrong types and missing fields
		{"type-question-number", env("normalize", `{"question":42}`)},
		{"type-question-missing", env("normalize", `{"header":"H"}`)},
		{"type-question-null", env("normalize", `{"question":null}`)},
		{"type-question-empty", env("normalize", `{"question":"   "}`)},
		{"type-header-array", env("normalize", `{"header":["a"],"question":"Q?"}`)},
		{"type-options-object", env("normalize", `{"question":"Q?","options":{"label":"A"}}`)},
		{"type-options-string", env("normalize", `{"question":"Q?","options":"A, B"}`)},
		{"type-option-number", env("normalize", `{"question":"Q?","options":[{"label":"A"},{"label":"B"},7]}`)},
		{"type-option-label-number", env("normalize", `{"question":"Q?","options":[{"label":"A"},{"label":"B"},{"label":3}]}`)},
		{"type-option-label-missing", env("normalize", `{"question":"Q?","options":[{"value":"a"}]}`)},
		{"type-option-label-empty", env("normalize", `{"question":"Q?","options":[{"label":"A"},{"label":""}]}`)},
		{"type-option-value-bool", env("normalize", `{"question":"Q?","options":[{"label":"A","value":true}]}`)},
		{"type-option-description-object", env("normalize", `{"question":"Q?","options":[{"label":"A","description":{}}]}`)},
		{"type-option-desc-number", env("normalize", `{"question":"Q?","options":[{"label":"A","desc":1}]}`)},
		{"type-option-recommended-string", env("normalize", `{"question":"Q?","options":[{"label":"A","recommended":"true"}]}`)},
		{"type-allowcustom-string", env("normalize", `{"question":"Q?","allowCustom":"yes"}`)},
		{"type-request-string", env("normalize", `"{\"question\":\"Q?\"}"`)},
		{"type-request-array", env("normalize", `[]`)},
		{"type-request-missing", `{"op":"normalize"}`},
		{"type-request-null", `{"op":"present","request":null}`},
		{"type-duplicate-key-question", env("normalize", `{"question":"A?","question":"B?"}`)},
		{"type-duplicate-key-label", env("normalize", `{"question":"Q?","options":[{"label":"A","label":"B"}]}`)},
		{"type-duplicate-unknown-key-ignored", env("normalize", `{"question":"Q?","junk":1,"junk":2}`)},
		{"type-duplicate-request-key", `{"op":"normalize","request":{"question":"A?"},"request":{"question":"B?"}}`},
		// envelope
		// sanitize: arbitrary text (a model's reply) made safe to show
		{"sanitize-plain-text-kept", `{"op":"sanitize","text":"  Hello, world.\nSecond line.  "}`},
		{"sanitize-escape-sequences-removed", `{"op":"sanitize","text":"\u001b[2J\u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u009b1mC1"}`},
		{"sanitize-cr-overwrite-and-bidi", `{"op":"sanitize","text":"safe\rrm -rf / \u202Egnp.exe\u202C \u2066x\u2069\u0007\b"}`},
		{"sanitize-line-breaks-normalized", `{"op":"sanitize","text":"a\r\nb\u2028c\u0085d"}`},
		{"sanitize-text-missing", `{"op":"sanitize"}`},
		{"sanitize-text-wrong-type", `{"op":"sanitize","text":["x"]}`},
		{"sanitize-osc8-st-terminated-and-osc52", `{"op":"sanitize","text":"\u001b]8;;https://x.example\u001b\\click\u001b]8;;\u001b\\ \u001b]52;c;cm0gLXJmIC8=\u0007copied \u001b[6n"}`},
		{"type-allowcustom-number-1e999", env("normalize", `{"question":"Q?","allowCustom":1e999}`)},
		{"type-recommended-negative-zero", env("normalize", `{"question":"Q?","options":[{"label":"A","recommended":-0}]}`)},
		{"resolve-hex-is-not-a-number", resolveEnv(reqNoDefault, "0x1")},
		{"envelope-not-json", `op=normalize`},
		{"envelope-empty-input", ``},
		{"envelope-truncated", `{"op":"normalize","request":{"question":"Q?"`},
		{"envelope-trailing-garbage", `{"op":"schema"} x`},
		{"envelope-trailing-comma", `{"op":"schema",}`},
		{"envelope-array", `[{"op":"schema"}]`},
		{"envelope-string", `"schema"`},
		{"envelope-null", `null`},
		{"envelope-number", `12.5e3`},
		{"envelope-op-missing", `{"request":{"question":"Q?"}}`},
		{"envelope-op-number", `{"op":1}`},
		{"envelope-op-unknown", `{"op":"ask"}`},
		{"envelope-op-unknown-escape-sanitized", `{"op":"\u001b[31mevil\u0007"}`},
		{"envelope-op-case-sensitive", `{"op":"Normalize","request":{"question":"Q?"}}`},
		{"envelope-op-duplicate", `{"op":"schema","op":"normalize"}`},
		{"envelope-bom-rejected", "\xef\xbb\xbf{\"op\":\"schema\"}"},
		{"envelope-raw-control-in-string", "{\"op\":\"normalize\",\"request\":{\"question\":\"a\x01b\"}}"},
		{"envelope-invalid-escape", `{"op":"normalize","request":{"question":"\x41"}}`},
		{"envelope-single-quotes", `{'op':'schema'}`},
		{"envelope-nan", `{"op":"schema","n":NaN}`},
		{"envelope-leading-zero-number", `{"op":"schema","n":01}`},
		// schema
		{"schema-tool", `{"op":"schema"}`},
		{"schema-ignores-request", env("schema", `{"question":5}`)},
		// present
		{"present-basic", env("present", reqDB)},
		{"present-optionless", env("present", reqOpen)},
		{"present-no-default", env("present", reqNoDefault)},
		{"present-custom-with-default", env("present", reqDBCustom)},
		{"present-several-recommended", env("present", reqTwoRec)},
		{"present-single-option", env("present", `{"question":"Continue?","options":[{"label":"Continue","recommended":true}]}`)},
		{"present-twelve-options-aligned", env("present", manyOptions(12, `,"description":"details"`))},
		{"present-multiline-question-and-description", env("present", `{"header":"Plan","question":"Two steps:\n1. build\n2. ship\nWhich first?","options":[{"label":"Build","description":"line one\n\nline three"}]}`)},
		{"present-bad-request", env("present", `{"question":"Q?","options":[{"label":"A"},{"label":"a"}]}`)},
		// resolve
		{"resolve-number", resolveEnv(reqDB, "2")},
		{"resolve-number-is-display-order", resolveEnv(reqDB, "1")},
		{"resolve-number-with-dot", resolveEnv(reqDB, " 3. ")},
		{"resolve-number-with-paren", resolveEnv(reqDB, "3)")},
		{"resolve-number-out-of-range-no-custom", resolveEnv(reqDB, "4")},
		{"resolve-number-zero", resolveEnv(reqDB, "0")},
		{"resolve-number-out-of-range-is-free-text", resolveEnv(reqDBCustom, "7")},
		{"resolve-huge-number", resolveEnv(reqDB, "99999999999999999999")},
		{"resolve-label-case-insensitive", resolveEnv(reqDB, "  postgresql ")},
		{"resolve-value", resolveEnv(reqDB, "MYSQL")},
		{"resolve-empty-uses-default", resolveEnv(reqDB, "")},
		{"resolve-spaces-uses-default", resolveEnv(reqDB, "   ")},
		{"resolve-empty-no-default", resolveEnv(reqNoDefault, "")},
		{"resolve-empty-first-of-several-recommended", resolveEnv(reqTwoRec, "")},
		{"resolve-several-recommended-number-2", resolveEnv(reqTwoRec, "2")},
		{"resolve-numeric-label-number-wins", resolveEnv(reqTwoRec, "3")},
		{"resolve-numeric-label-by-label", resolveEnv(reqTwoRec, "8080")},
		{"resolve-unknown-no-custom", resolveEnv(reqNoDefault, "maybe")},
		{"resolve-free-text", resolveEnv(reqDBCustom, "  CockroachDB  ")},
		{"resolve-free-text-matching-label-selects", resolveEnv(reqDBCustom, "sqlite")},
		{"resolve-optionless-text", resolveEnv(reqOpen, "Aurora 2.0")},
		{"resolve-optionless-empty", resolveEnv(reqOpen, "")},
		{"resolve-optionless-allowcustom-false-text", resolveEnv(`{"question":"Name?","allowCustom":false}`, "Ada")},
		{"resolve-single-option-unknown", resolveEnv(`{"question":"Continue?","options":[{"label":"Continue"}]}`, "stop")},
		{"resolve-input-missing", env("resolve", reqDB)},
		{"resolve-input-number", env("resolve", reqDB, `"input":2`)},
		{"resolve-bad-request", resolveEnv(`{"question":""}`, "x")},
		{"resolve-answer-html-and-quotes", resolveEnv(reqOpen, `<script>"x" & 'y'</script>`)},
		// elicitation
		{"elicitation-options", env("elicitation", reqDB)},
		{"elicitation-options-custom", env("elicitation", reqDBCustom)},
		{"elicitation-optionless", env("elicitation", reqOpen)},
		{"elicitation-no-default-no-header", env("elicitation", reqNoDefault)},
		{"elicitation-several-recommended", env("elicitation", reqTwoRec)},
		{"elicitation-bad-request", env("elicitation", `{"question":"Q?","options":[{"label":"A","desc":false}]}`)},
		// elicitation_result
		{"elicitation-result-choice", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"mysql"}}`)},
		{"elicitation-result-choice-not-offered", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"oracle"}}`)},
		{"elicitation-result-choice-by-label", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"MySQL"}}`)},
		{"elicitation-result-choice-missing", elicitEnv(reqDB, `{"action":"accept","content":{}}`)},
		{"elicitation-result-content-missing", elicitEnv(reqDB, `{"action":"accept"}`)},
		{"elicitation-result-content-null", elicitEnv(reqDB, `{"action":"accept","content":null}`)},
		{"elicitation-result-content-array", elicitEnv(reqDB, `{"action":"accept","content":["mysql"]}`)},
		{"elicitation-result-choice-number", elicitEnv(reqDB, `{"action":"accept","content":{"choice":2}}`)},
		{"elicitation-result-choice-duplicate-key", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"mysql","choice":"sqlite"}}`)},
		{"elicitation-result-custom-wins", elicitEnv(reqDBCustom, `{"action":"accept","content":{"choice":"sqlite","custom_answer":"  DuckDB "}}`)},
		{"elicitation-result-custom-empty-uses-choice", elicitEnv(reqDBCustom, `{"action":"accept","content":{"choice":"sqlite","custom_answer":"  "}}`)},
		{"elicitation-result-custom-matches-label", elicitEnv(reqDBCustom, `{"action":"accept","content":{"custom_answer":"postgresql"}}`)},
		{"elicitation-result-custom-nothing", elicitEnv(reqDBCustom, `{"action":"accept","content":{"custom_answer":""}}`)},
		{"elicitation-result-custom-ignored-without-allowcustom", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"sqlite","custom_answer":"DuckDB"}}`)},
		{"elicitation-result-custom-number", elicitEnv(reqDBCustom, `{"action":"accept","content":{"custom_answer":5}}`)},
		{"elicitation-result-optionless-answer", elicitEnv(reqOpen, `{"action":"accept","content":{"answer":"Aurora"}}`)},
		{"elicitation-result-optionless-empty", elicitEnv(reqOpen, `{"action":"accept","content":{"answer":" "}}`)},
		{"elicitation-result-optionless-sanitized", elicitEnv(reqOpen, `{"action":"accept","content":{"answer":"\u001b[31mRed\u001b[0m\nsecond line"}}`)},
		{"elicitation-result-extra-fields-ignored", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","note":"hi"},"_meta":{"x":1}}`)},
		{"elicitation-result-decline", elicitEnv(reqDB, `{"action":"decline"}`)},
		{"elicitation-result-cancel", elicitEnv(reqDB, `{"action":"cancel"}`)},
		{"elicitation-result-unknown-action", elicitEnv(reqDB, `{"action":"_custom","content":{"choice":"mysql"}}`)},
		{"elicitation-result-action-case", elicitEnv(reqDB, `{"action":"Accept","content":{"choice":"mysql"}}`)},
		{"elicitation-result-action-missing", elicitEnv(reqDB, `{"content":{"choice":"mysql"}}`)},
		{"elicitation-result-action-number", elicitEnv(reqDB, `{"action":1}`)},
		{"elicitation-result-response-missing", env("elicitation_result", reqDB)},
		{"elicitation-result-response-string", elicitEnv(reqDB, `"accept"`)},
		{"elicitation-result-bad-request", elicitEnv(`{"question":3}`, `{"action":"accept"}`)},
	}
}

func TestConformanceCorpus(t *testing.T) {
	cases := conformanceCases()
	names := map[string]bool{}
	for _, c := range cases {
		require.False(t, names[c.name], "duplicate case name %s", c.name)
		names[c.name] = true
	}
	if *update {
		old, _ := filepath.Glob(filepath.Join(conformanceDir, "*.in"))
		for _, f := range old {
			n := strings.TrimSuffix(filepath.Base(f), ".in")
			if !names[n] {
				require.NoError(t, os.Remove(f))
				_ = os.Remove(strings.TrimSuffix(f, ".in") + ".out")
			}
		}
		for _, c := range cases {
			base := filepath.Join(conformanceDir, c.name)
			require.NoError(t, os.WriteFile(base+".in", []byte(c.in), 0o644))
			require.NoError(t, os.WriteFile(base+".out", handle([]byte(c.in)), 0o644))
		}
	}
	// The table and the files on disk agree.
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(conformanceDir, c.name+".in"))
		require.NoError(t, err, "missing corpus file: run go test ./core -run TestConformanceCorpus -update")
		require.Equal(t, c.in, string(got), "%s.in differs from the table: run with -update", c.name)
	}
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*.in"))
	require.NoError(t, err)
	sort.Strings(files)
	require.GreaterOrEqual(t, len(files), 120)
	codes := map[errCode]bool{}
	ops := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".in")
		in, err := os.ReadFile(f)
		require.NoError(t, err)
		want, err := os.ReadFile(strings.TrimSuffix(f, ".in") + ".out")
		require.NoError(t, err, name)
		got := Handle(in)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from the golden file (run with -update if intended)\n got: %.600s\nwant: %.600s", name, got, want)
			continue
		}
		var e struct {
			OK    bool          `json:"ok"`
			Error *harnessError `json:"error"`
		}
		require.NoError(t, json.Unmarshal(got, &e), name)
		if !e.OK {
			codes[e.Error.Code] = true
		}
		var op struct {
			Op string `json:"op"`
		}
		if json.Unmarshal(in, &op) == nil {
			ops[op.Op] = true
		}
	}
	for _, c := range []errCode{CodeInvalidRequest, CodeInvalidAnswer, CodeAskDeclined, CodeAskCancelled, CodeAskFailed} {
		require.True(t, codes[c], "no corpus case produces %s", c)
	}
	for _, op := range []string{"normalize", "schema", "present", "resolve", "elicitation", "elicitation_result", "form_reply", "progress"} {
		require.True(t, ops[op], "no corpus case for op %s", op)
	}
}
