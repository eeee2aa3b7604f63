package core

import (
	"strconv"
	"strings"
)

// Requests with previews and notes, reused by the cases.
const (
	// reqLayout offers two code layouts to compare by looking.
	reqLayout = `{"header":"Layout","question":"Which layout should the handler use?","options":[` +
		`{"label":"Early return","description":"Guard clauses first.","preview":"` + "```go\\nif err != nil {\\n\\treturn err\\n}\\nuse(v)\\n```" + `","recommended":true},` +
		`{"label":"Nested","preview":"` + "```go\\nif err == nil {\\n\\tuse(v)\\n}\\n```" + `"},` +
		`{"label":"Panic","description":"Only in main."}]}`
	reqLayoutMulti = `{"question":"Which screens should the app have?","options":[` +
		`{"label":"Dashboard","preview":"+------+------+\\n| KPIs | Feed |\\n+------+------+","recommended":true},` +
		`{"label":"Settings","preview":"[x] Dark mode\\n[ ] Beta"},{"label":"Help"}],"multiSelect":true,"allowCustom":true}`
	reqLayoutBatch = `{"questions":[` + reqLayout + `,` + reqLayoutMulti + `,` + reqOpen + `]}`
)

// previewNotesCases are the cases of previews and notes.
func previewNotesCases() []struct{ name, in string } {
	hostilePreview := `{"question":"Which?","options":[{"label":"A","preview":"` +
		`\u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u202eevil\u202c\u0007\r\nline2\u001b[2J\u0000\u009b31m\r  indented"},{"label":"B"}]}`
	longPreview := strings.Repeat("x", MaxPreviewChars)
	var lines []string
	for i := 1; i <= 200; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	longLines := strings.Join(lines, `\n`)
	return []struct{ name, in string }{
		// normalize: previews
		{"normalize-preview", env("normalize", reqLayout)},
		{"normalize-preview-multi", env("normalize", reqLayoutMulti)},
		{"normalize-preview-batch", env("normalize", reqLayoutBatch)},
		{"normalize-preview-tabs-expanded", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"a\tb\n\tc\nabcd\te\n日本\tx"}]}`)},
		{"normalize-preview-keeps-first-indent", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"\n\n   indented\n  second  \n\n"}]}`)},
		{"normalize-preview-blank", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":" \n\t\n "}]}`)},
		{"normalize-preview-null", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":null}]}`)},
		{"normalize-preview-not-string", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":["line"]}]}`)},
		{"normalize-preview-twice", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"x","preview":"y"}]}`)},
		{"normalize-preview-at-limit", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"`+longPreview+`"}]}`)},
		{"normalize-preview-over-limit", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"`+longPreview+`y"}]}`)},
		{"normalize-preview-batch-over-limit", env("normalize", `{"questions":[`+reqOpen+`,{"question":"Q?","options":[{"label":"A","preview":"`+longPreview+`yz"}]}]}`)},
		{"normalize-preview-hostile", env("normalize", hostilePreview)},
		{"normalize-preview-html-is-text", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"<script>alert(1)</script>\n<b>bold</b> & co"}]}`)},
		{"normalize-preview-line-separators", env("normalize", `{"question":"Q?","options":[{"label":"A","preview":"one\u2028two\u2029three\u0085four\r\nfive\rsix"}]}`)},
		{"args-preview", argsEnv("normalize", reqLayout)},
		// present: previews under their options
		{"present-preview", env("present", reqLayout)},
		{"present-preview-multi", env("present", reqLayoutMulti)},
		{"present-preview-batch-first", indexEnv("present", reqLayoutBatch, 0)},
		{"present-preview-blank-lines", env("present", `{"question":"Q?","options":[{"label":"A","preview":"top\n\n\nbottom"}]}`)},
		// picker: previews on entries
		{"picker-preview", env("picker", reqLayout)},
		{"picker-preview-batch", env("picker", reqLayoutBatch)},
		{"picker-preview-hostile", env("picker", hostilePreview)},
		{"picker-preview-multi", env("picker", reqLayoutMulti)},
		{"picker-preview-wide-text", env("picker", `{"question":"Q?","options":[{"label":"日本","preview":"┌──┐\n│中文│ e\u0301 👍🏽\n└──┘"},{"label":"B","preview":"\tx\ty"}]}`)},
		{"picker-preview-200-lines", env("picker", `{"question":"Q?","options":[{"label":"Long","preview":"`+longLines+`"},{"label":"Short"}]}`)},
		{"picker-preview-optionless-notes-words", env("picker", reqOpen)},
		{"picker-args-preview", argsEnv("picker", reqLayout)},
		// elicitation: previews in the message, a notes field per question
		{"elicitation-preview", env("elicitation", reqLayout)},
		{"elicitation-preview-mcp", env("elicitation", reqLayout, `"for":"mcp"`)},
		{"elicitation-preview-multi", env("elicitation", reqLayoutMulti, `"for":"mcp"`)},
		{"elicitation-preview-batch", env("elicitation", reqLayoutBatch)},
		{"elicitation-notes-optionless", env("elicitation", reqOpen)},
		{"elicitation-notes-custom", env("elicitation", reqDBCustom, `"for":"mcp"`)},
		// resolve: notes on typed lines
		{"resolve-line-notes", resolveEnv(reqDB, "2 // but keep v15")},
		{"resolve-line-notes-label", resolveEnv(reqDB, "postgresql //keep v15")},
		{"resolve-line-notes-default", resolveEnv(reqDB, "// whatever is simplest")},
		{"resolve-line-notes-empty", resolveEnv(reqDB, "1 //   ")},
		{"resolve-line-notes-url-kept", resolveEnv(reqDBCustom, "see https://example.com/db")},
		{"resolve-line-notes-after-url", resolveEnv(reqDBCustom, "https://example.com/db // my own")},
		{"resolve-line-notes-free-text", resolveEnv(reqOpen, "Aurora // or Borealis")},
		{"resolve-line-notes-only-optionless", resolveEnv(reqOpen, "// no idea")},
		{"resolve-line-notes-no-custom", resolveEnv(reqDB, "Oracle // really")},
		{"resolve-line-notes-multi", resolveEnv(reqMulti, "1,3 // search later")},
		{"resolve-line-notes-too-long", resolveEnv(reqDB, "1 // "+strings.Repeat("n", MaxNotesChars+1))},
		{"resolve-line-notes-at-limit", resolveEnv(reqDB, "1 // "+strings.Repeat("n", MaxNotesChars))},
		{"resolve-line-notes-hostile", resolveEnv(reqDB, "1 // \u001b[31mred\u001b[0m \u202eevil\u202c")},
		{"resolve-inputs-notes-batch", inputsEnv(reqBatch, "2 // keep v15", "1", "Aurora // tentative")},
		// resolve: notes on picks
		{"resolve-pick-notes", env("resolve", reqDB, `"input":{"options":[1],"text":"","notes":"keep v15"}`)},
		{"resolve-pick-notes-multi", env("resolve", reqMulti, `"input":{"options":[0,2],"text":"","notes":"billing next quarter"}`)},
		{"resolve-pick-notes-empty", env("resolve", reqDB, `"input":{"options":[0],"notes":"   "}`)},
		{"resolve-pick-notes-not-string", env("resolve", reqDB, `"input":{"options":[0],"notes":5}`)},
		{"resolve-pick-notes-twice", env("resolve", reqDB, `"input":{"options":[0],"notes":"a","notes":"b"}`)},
		{"resolve-pick-notes-too-long", env("resolve", reqDB, `"input":{"options":[0],"notes":"`+strings.Repeat("n", MaxNotesChars+1)+`"}`)},
		{"resolve-inputs-pick-notes-batch", env("resolve", reqBatch, `"inputs":[{"options":[0],"notes":"one"},{"options":[0],"text":""},{"options":[],"text":"Aurora","notes":"three"}]`)},
		// elicitation_result: notes fields
		{"elicitation-result-notes", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","notes":"keep v15"}}`)},
		{"elicitation-result-notes-empty", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","notes":""}}`)},
		{"elicitation-result-notes-not-string", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","notes":7}}`)},
		{"elicitation-result-notes-multi", elicitEnv(reqMulti, `{"action":"accept","content":{"choices":["auth"],"notes":"SSO only"}}`)},
		{"elicitation-result-notes-batch", elicitEnv(reqBatch, `{"action":"accept","content":{"choice_1":"postgres","notes_1":"keep v15","choices_2":["auth"],"answer_3":"Aurora","notes_3":"tentative"}}`)},
		{"elicitation-result-notes-batch-single-question-name-ignored", elicitEnv(reqBatch, `{"action":"accept","content":{"choice_1":"postgres","choices_2":["auth"],"answer_3":"Aurora","notes":"ignored"}}`)},
		{"elicitation-result-notes-decline", elicitEnv(reqDB, `{"action":"decline","content":{"notes":"not now"}}`)},
		{"elicitation-result-notes-too-long", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","notes":"`+strings.Repeat("n", MaxNotesChars+1)+`"}}`)},
		{"elicitation-result-notes-multiline", elicitEnv(reqDB, `{"action":"accept","content":{"choice":"postgres","notes":"line one\r\nline two"}}`)},
		// summary: notes
		{"summary-notes", env("summary", reqDB, `"answer":{"answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"},"notes":"keep v15"}`)},
		{"summary-notes-batch", env("summary", reqBatch, `"answer":{"answers":[{"question":"Which database should I use?","answer":"postgres","selected":{"index":1,"label":"PostgreSQL","value":"postgres"},"notes":"keep v15"},{"question":"Which features should I enable?","answers":["auth"],"selected":[{"index":0,"label":"Auth","value":"auth"}]},{"question":"What should the release be called?","answer":"Aurora","notes":"tentative"}]}`)},
		{"summary-notes-not-string", env("summary", reqDB, `"answer":{"answer":"postgres","notes":1}`)},
	}
}
