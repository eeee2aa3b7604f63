package core

import (
	"strconv"
	"strings"
)

// Requests of the cases that keep the model told the truth.
const (
	// reqLong is a question whose ask comes after ~600 characters of
	// context, as models write them.
	reqLong = `{"question":"` + longContext + ` Which storage engine should the sync service use for its event log?","options":[` +
		`{"label":"Postgres","value":"pg","description":"Durable, needs a server.","recommended":true},{"label":"SQLite","value":"sqlite","description":"One file, no server."}]}`
	longContext = "The sync service currently writes every event to a JSON file per tenant, which was fine for the pilot but now " +
		"takes seconds to load for the largest tenants. We need ordered appends, a cursor per consumer, and retention by age. " +
		"Both options below keep the current API; the migration is a one-off job that reads the JSON files and replays them. " +
		"Operations prefer fewer moving parts, but the team already runs a database for billing and knows how to back it up. " +
		"The event log grows by about two million rows a month and is read mostly from the tail."
)

// reqLongDescriptions is a short question with n options whose
// descriptions are longer than Claude Code's titles.
func reqLongDescriptions(n int) string {
	var opts []string
	for i := 1; i <= n; i++ {
		d := "Option " + strconv.Itoa(i) + " keeps the current API and moves the event log to engine number " + strconv.Itoa(i) + "."
		opts = append(opts, `{"label":"Engine `+strconv.Itoa(i)+`","description":"`+d+`"}`)
	}
	return `{"header":"Engine","question":"Which storage engine should the sync service use?","options":[` + strings.Join(opts, ",") + `]}`
}

// deliveryEnv is an envelope of op with a delivery object.
func deliveryEnv(op, request, response, delivery string, rest ...string) string {
	return env(op, request, append([]string{`"response":` + response, `"delivery":` + delivery}, rest...)...)
}

// truthConformanceCases are the cases of the not-shown rule, the re-asked
// form, the form's words for hosts that show titles only, progress
// messages and the situations of asks nobody saw.
func truthConformanceCases() []struct{ name, in string } {
	codexExec := `{"ms":2,"client":"codex-mcp-client","clientVersion":"0.169.0","mode":"form","trigger":"exec"}`
	claudePrint := `{"ms":14,"client":"claude-code","clientVersion":"2.1.328"}`
	person := `{"ms":4200,"client":"claude-code","clientVersion":"2.1.328"}`
	reasons := `"reasons":["the form: codex-mcp-client declined the form in 2 ms, before anyone could read it","the answer page: no browser can open here"]`
	var manyReasons []string
	for i := 1; i <= 10; i++ {
		manyReasons = append(manyReasons, strconv.Quote("surface "+strconv.Itoa(i)+" could not show it"))
	}
	accepted := `{"action":"accept","content":{"choice":"postgres"}}`
	empty := `{"action":"accept","content":{}}`
	return []struct{ name, in string }{
		// not shown: elicitation_result with delivery facts
		{"notshown-codex-exec-decline", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, codexExec)},
		{"notshown-codex-exec-trigger-alone", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":900,"client":"codex-mcp-client","trigger":"exec"}`)},
		{"notshown-claude-print-cancel", deliveryEnv("elicitation_result", reqDB, `{"action":"cancel"}`, claudePrint)},
		{"notshown-claude-print-entrypoint", deliveryEnv("elicitation_result", reqDB, `{"action":"cancel"}`, `{"ms":900,"client":"claude-code","clientVersion":"2.1.328","entrypoint":"sdk-cli"}`)},
		{"notshown-claude-action-entrypoint", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":4000,"client":"claude-code","entrypoint":"claude-code-github-action"}`)},
		{"notshown-claude-tui-entrypoint-is-person", deliveryEnv("elicitation_result", reqDB, `{"action":"cancel"}`, `{"ms":900,"client":"claude-code","clientVersion":"2.1.328","entrypoint":"cli"}`)},
		{"notshown-claude-sdk-entrypoint-is-person", deliveryEnv("elicitation_result", reqDB, `{"action":"cancel"}`, `{"ms":900,"client":"claude-code","entrypoint":"sdk-ts"}`)},
		{"notshown-entrypoint-other-client-is-person", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":900,"client":"some-client","entrypoint":"sdk-cli"}`)},
		{"notshown-print-entrypoint-accept-is-answer", deliveryEnv("elicitation_result", reqDB, accepted, `{"ms":900,"client":"claude-code","entrypoint":"sdk-cli"}`)},
		{"notshown-delivery-entrypoint-number", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":900,"entrypoint":1}`)},
		{"notshown-codex-url-decline", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":9,"client":"codex-mcp-client","mode":"url"}`)},
		{"notshown-at-threshold-is-person", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":`+strconv.Itoa(NotShownMillis)+`,"client":"claude-code"}`)},
		{"notshown-below-threshold", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":`+strconv.Itoa(NotShownMillis-1)+`}`)},
		{"notshown-person-declines", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, person)},
		{"notshown-person-cancels", deliveryEnv("elicitation_result", reqDB, `{"action":"cancel"}`, person)},
		{"notshown-fast-accept-is-answer", deliveryEnv("elicitation_result", reqDB, accepted, `{"ms":3,"client":"scripted"}`)},
		{"notshown-no-ms-no-rule", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"client":"codex-mcp-client"}`)},
		{"notshown-hostile-client-name", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":1,"client":"\u001b[2Jevil\u202e\nname`+strings.Repeat("x", 100)+`"}`)},
		{"notshown-delivery-not-object", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `"fast"`)},
		{"notshown-delivery-ms-negative", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":-1}`)},
		{"notshown-delivery-ms-fraction", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":1.5}`)},
		{"notshown-delivery-mode-unknown", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":1,"mode":"sms"}`)},
		{"notshown-delivery-client-number", deliveryEnv("elicitation_result", reqDB, `{"action":"decline"}`, `{"ms":1,"client":7}`)},
		{"notshown-delivery-twice", env("elicitation_result", reqDB, `"response":{"action":"decline"}`, `"delivery":{"ms":1}`, `"delivery":{"ms":1}`)},
		{"notshown-batch", deliveryEnv("elicitation_result", reqBatch, `{"action":"cancel"}`, claudePrint)},
		// form_reply: one op, the host loops
		{"reask-answer", deliveryEnv("form_reply", reqDB, accepted, person)},
		{"reask-first-bad-reply", deliveryEnv("form_reply", reqDBCustom, empty, person, `"for":"mcp"`)},
		{"reask-second-round", deliveryEnv("form_reply", reqDBCustom, empty, person, `"for":"mcp"`, `"round":1`)},
		{"reask-rounds-used-up", deliveryEnv("form_reply", reqDBCustom, empty, person, `"for":"mcp"`, `"round":`+strconv.Itoa(MaxFormRounds))},
		{"reask-not-offered", deliveryEnv("form_reply", reqDB, `{"action":"accept","content":{"choice":"oracle"}}`, person)},
		{"reask-batch-acp", env("form_reply", reqBatch, `"response":{"action":"accept","content":{"choice_1":"postgres"}}`)},
		{"reask-codex-form-again-without-notes", deliveryEnv("form_reply", reqDB, empty, `{"ms":5000,"client":"codex-mcp-client"}`, `"for":"mcp"`)},
		{"reask-decline-ends", deliveryEnv("form_reply", reqDB, `{"action":"decline"}`, person)},
		{"reask-cancel-ends", deliveryEnv("form_reply", reqDB, `{"action":"cancel"}`, person)},
		{"reask-not-shown-next-surface", deliveryEnv("form_reply", reqDB, `{"action":"decline"}`, codexExec, `"for":"mcp"`)},
		{"reask-claude-print-next-surface", deliveryEnv("form_reply", reqDB, `{"action":"cancel"}`, `{"ms":700,"client":"claude-code","clientVersion":"2.1.328","entrypoint":"sdk-cli"}`, `"for":"mcp"`)},
		{"reask-response-not-object-ends", env("form_reply", reqDB, `"response":[1]`)},
		{"reask-unknown-action-ends", env("form_reply", reqDB, `"response":{"action":"later"}`)},
		{"reask-response-missing", env("form_reply", reqDB)},
		{"reask-round-over-limit", env("form_reply", reqDB, `"response":`+empty, `"round":`+strconv.Itoa(MaxFormRounds+1))},
		{"reask-round-not-number", env("form_reply", reqDB, `"response":`+empty, `"round":"1"`)},
		{"reask-for-unknown", env("form_reply", reqDB, `"response":`+empty, `"for":"a2a"`)},
		{"reask-bad-request", env("form_reply", `{"question":""}`, `"response":`+empty)},
		{"reask-arguments", `{"op":"form_reply","arguments":` + strconv.Quote(reqDB) + `,"response":` + accepted + `}`},
		// forms real hosts show whole
		{"form-titles-mcp-description-and-mark", env("elicitation", reqDB, `"for":"mcp"`)},
		{"form-titles-acp-unchanged", env("elicitation", reqDB)},
		{"form-titles-mcp-multi", env("elicitation", reqMulti, `"for":"mcp"`)},
		{"form-titles-mcp-long-description-cut", env("elicitation", `{"question":"Which?","options":[{"label":"A","description":"`+strings.Repeat("word ", 60)+`"},{"label":"B","description":"line one\nline two"}]}`, `"for":"mcp"`)},
		{"form-titles-mcp-long-label-kept", env("elicitation", `{"question":"Which?","options":[{"label":"`+strings.Repeat("L", MaxLabelChars)+`","description":"no room","recommended":true},{"label":"B"}]}`, `"for":"mcp"`)},
		{"form-ask-leads-long-question", env("elicitation", reqLong, `"for":"mcp"`)},
		{"form-ask-leads-many-lines", env("elicitation", `{"question":"Context one.\nContext two.\nContext three.\nShould I ship it?","options":[{"label":"Yes"},{"label":"No"}]}`)},
		{"form-ask-short-question-whole", env("elicitation", reqDB, `"for":"mcp"`)},
		{"form-ask-long-question-starting-with-ask", env("elicitation", `{"question":"Which one? `+strings.Repeat("More context here. ", 15)+`"}`)},
		{"form-notes-left-out-for-codex", env("elicitation", reqDB, `"for":"mcp"`, `"client":"codex-mcp-client"`)},
		// Claude Code cuts every title at 48 columns and shows 4 rows of
		// message: a description fits whole in the title or takes a row of
		// the message after the ask; what the rows cannot hold goes to the
		// field's description, on one line.
		{"form-claude-long-question-rows", env("elicitation", reqLong, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-descriptions-in-message", env("elicitation", reqLongDescriptions(3), `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-descriptions-beyond-rows", env("elicitation", reqLongDescriptions(5), `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-long-multiselect", env("elicitation", `{"header":"Features","question":"`+longContext+` Which features should the first release include?","multiSelect":true,"options":[`+
			`{"label":"PDF invoices","value":"pdf","description":"Customers download each invoice as a PDF with their own logo and address.","recommended":true},`+
			`{"label":"Refunds","value":"refunds","description":"Full and partial refunds from the admin page, with an email to the customer."}]}`, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-long-free-text", env("elicitation", `{"question":"`+longContext+` What should the first release of the sync service be called?"}`, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-previews-after-rows", env("elicitation", `{"question":"Which layout should the dashboard use?","options":[`+
			`{"label":"Grid","description":"Every widget in a fixed grid of equal cells, two columns on a phone.","preview":"+--+--+\n|  |  |\n+--+--+"},`+
			`{"label":"List","description":"One widget per row, full width, in the order the person chose."}]}`, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-short-multiline-question", env("elicitation", `{"question":"The build is green.\nShould I ship it?","options":[`+
			`{"label":"Ship","description":"Tag the release and publish the packages to npm and the Go proxy now."},{"label":"Wait","description":"Keep the branch open."}]}`, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-multiselect", env("elicitation", reqMulti, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-batch", env("elicitation", reqBatch, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-claude-batch-long-questions-no-header", env("elicitation", `{"questions":[{"question":"Which of the two storage engines should the sync service use for its event log?","options":[{"label":"Postgres"},{"label":"SQLite"}]},{"question":"What should the first release of the sync service be called?"}]}`, `"for":"mcp"`, `"client":"claude-code"`)},
		{"reask-claude-form-again", deliveryEnv("form_reply", reqDBCustom, empty, `{"ms":5000,"client":"claude-code","clientVersion":"2.1.328"}`, `"for":"mcp"`)},
		{"reask-claude-long-question-rows", deliveryEnv("form_reply", reqLong, empty, `{"ms":5000,"client":"claude-code","clientVersion":"2.1.328"}`, `"for":"mcp"`)},
		{"form-notes-kept-for-claude", env("elicitation", reqOpen, `"for":"mcp"`, `"client":"claude-code"`)},
		{"form-notes-codex-batch", env("elicitation", reqBatch, `"for":"mcp"`, `"client":"codex-mcp-client"`)},
		{"form-client-not-string", env("elicitation", reqDB, `"client":{"name":"codex"}`)},
		// progress a person can read
		{"progress-just-asked", `{"op":"progress","ms":0}`},
		{"progress-seconds", `{"op":"progress","ms":45999}`},
		{"progress-one-minute", `{"op":"progress","ms":61000}`},
		{"progress-minutes", `{"op":"progress","ms":725000}`},
		{"progress-hours", `{"op":"progress","ms":7384000}`},
		{"progress-url", `{"op":"progress","ms":12000,"url":"http://127.0.0.1:41234/ask/9f2c"}`},
		{"progress-url-just-asked", `{"op":"progress","ms":300,"url":"https://ask.example.com/a/1"}`},
		{"progress-url-not-web", `{"op":"progress","ms":12000,"url":"javascript:alert(1)"}`},
		{"progress-url-with-escape", `{"op":"progress","ms":12000,"url":"http://127.0.0.1/\u001b[2J"}`},
		{"progress-url-no-host", `{"op":"progress","ms":12000,"url":"https:///path"}`},
		{"progress-ms-missing", `{"op":"progress"}`},
		{"progress-ms-string", `{"op":"progress","ms":"12"}`},
		// the situations of asks nobody saw
		{"nosurface-reasons", `{"op":"fail","situation":"no_surface",` + reasons + `}`},
		{"nosurface-no-reasons", `{"op":"fail","situation":"no_surface"}`},
		{"nosurface-many-reasons", `{"op":"fail","situation":"no_surface","reasons":[` + strings.Join(manyReasons, ",") + `]}`},
		{"nosurface-reasons-not-strings", `{"op":"fail","situation":"no_surface","reasons":[1]}`},
		{"notshown-fail-detail", `{"op":"fail","situation":"not_shown","detail":"the answer page: no browser can open here"}`},
		{"notshown-fail-no-detail", `{"op":"fail","situation":"not_shown"}`},
		{"answered-elsewhere", `{"op":"fail","situation":"answered_elsewhere","detail":"the answer page"}`},
		{"answered-elsewhere-no-detail", `{"op":"fail","situation":"answered_elsewhere"}`},
	}
}
