package seamtest

import (
	"encoding/json"
	"strings"
)

// Argument texts reused by the cases.
const (
	argsDB = `{"header":"Database","question":"Which database should I use?","options":[` +
		`{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite","recommended":true},{"label":"MySQL","value":"mysql"}]}`
	argsDBCustom = `{"question":"Which database?","options":["PostgreSQL","SQLite"],"allowCustom":true}`
	argsMulti    = `{"question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},{"label":"Billing","value":"billing"},` +
		`{"label":"Search","value":"search"}],"multiSelect":true,"allowCustom":true}`
	argsOpen  = `{"question":"What should the release be called?"}`
	argsBatch = `{"questions":[` + argsDB + `,` + argsMulti + `,` + argsOpen + `]}`
)

// argsOversized is over the core's limit on the arguments text: the
// verdict names the text's length, the same on every host however it
// escapes its envelope ('<', '>', '&', U+2028 and U+2029 included).
var argsOversized = `{"question":"<b>Q</b> & ` + strings.Repeat("Q", 262144) + `"}`

// longError is host text longer than the core quotes (MaxDetailChars).
var longError = "the terminal went away: " + strings.Repeat("lost ", 100)

// Delivery facts of the real clients (measured) and of a person.
var (
	codexExec   = &seamDelivery{Ms: 2, Client: "codex-mcp-client", ClientVersion: "0.169.0", Trigger: "exec"}
	claudePrint = &seamDelivery{Ms: 14, Client: "claude-code", ClientVersion: "2.1.328"}
	person      = &seamDelivery{Ms: 4200, Client: "claude-code", ClientVersion: "2.1.328"}
	emptyForm   = raw(`{"action":"accept","content":{}}`)
)

type namedCase struct {
	name string
	c    seamCase
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// seamCases is the corpus: each entry becomes NAME.case.json and NAME.out.
func seamCases() []namedCase {
	return []namedCase{
		// answers
		{"answer-lines-single", seamCase{Arguments: argsDB, Provider: "lines", Lines: []string{"2"}}},
		{"answer-lines-default", seamCase{Arguments: argsDB, Provider: "lines", Lines: []string{""}}},
		{"answer-lines-free-text", seamCase{Arguments: argsDBCustom, Provider: "lines", Lines: []string{"DuckDB <embedded> & fast"}}},
		{"answer-lines-multi", seamCase{Arguments: argsMulti, Provider: "lines", Lines: []string{"3, Slack"}}},
		{"answer-lines-batch", seamCase{Arguments: argsBatch, Provider: "lines", Lines: []string{"1", "1,2", "Aurora"}}},
		{"answer-picks-batch", seamCase{Arguments: argsBatch, Provider: "picks", Picks: []json.RawMessage{raw(`{"options":[2]}`), raw(`{"options":[0,2],"text":"Chat"}`), raw(`{"text":"Aurora"}`)}}},
		{"answer-form-single", seamCase{Arguments: argsDB, Provider: "form", Response: raw(`{"action":"accept","content":{"choice":"mysql"}}`)}},
		{"answer-form-batch", seamCase{Arguments: argsBatch, Provider: "form", Response: raw(`{"action":"accept","content":{"choice_1":"sqlite","choices_2":["billing"],"custom_answer_2":"Chat","answer_3":"Aurora"}}`)}},
		{"answer-lines-batch-invalid", seamCase{Arguments: argsBatch, Provider: "lines", Lines: []string{"1", "", ""}}},
		// the model's arguments as text, whatever they are
		{"args-trailing-junk", seamCase{Arguments: `{"question":"Q?","options":["a","b"]},"junk":1`, Provider: "lines", Lines: []string{"1"}}},
		{"args-truncated", seamCase{Arguments: `{"question": `, Provider: "lines", Lines: []string{"1"}}},
		{"args-empty", seamCase{Arguments: ``, Provider: "lines", Lines: []string{"1"}}},
		{"args-whitespace", seamCase{Arguments: " \n ", Provider: "lines", Lines: []string{"1"}}},
		{"args-two-objects", seamCase{Arguments: argsOpen + argsOpen, Provider: "lines", Lines: []string{"x"}}},
		{"args-not-an-object", seamCase{Arguments: `["Which database?"]`, Provider: "lines", Lines: []string{"1"}}},
		{"args-html-quoted-in-error", seamCase{Arguments: `{"question":"Q?","options":["<a>","<A>"]}`, Provider: "lines", Lines: []string{"1"}}},
		{"args-batch-and-question", seamCase{Arguments: `{"question":"Q?","questions":[` + argsOpen + `]}`, Provider: "lines", Lines: []string{"1"}}},
		{"args-canonical-duplicate-labels", seamCase{Arguments: `{"question":"Who?","options":["Ľubica","L\u030cubica"]}`, Provider: "lines", Lines: []string{"1"}}},
		// nobody to ask
		{"no-provider", seamCase{Arguments: argsDB, Provider: "none"}},
		{"no-provider-invalid-arguments-first", seamCase{Arguments: `{"question":`, Provider: "none"}},
		// the person or the client says no
		{"decline", seamCase{Arguments: argsBatch, Provider: "decline"}},
		{"form-decline", seamCase{Arguments: argsBatch, Provider: "form", Response: raw(`{"action":"decline"}`)}},
		{"form-cancel", seamCase{Arguments: argsDB, Provider: "form", Response: raw(`{"action":"cancel"}`)}},
		{"form-response-not-an-object", seamCase{Arguments: argsDB, Provider: "form", Response: raw(`"accept"`)}},
		{"form-multi-not-an-array", seamCase{Arguments: argsMulti, Provider: "form", Response: raw(`{"action":"accept","content":{"choices":"auth"}}`)}},
		{"form-batch-missing-field", seamCase{Arguments: argsBatch, Provider: "form", Response: raw(`{"action":"accept","content":{"choice_1":"sqlite","answer_3":"Aurora"}}`)}},
		// broken providers
		{"provider-undefined", seamCase{Arguments: argsDB, Provider: "undefined"}},
		{"provider-throws", seamCase{Arguments: argsDB, Provider: "throw", Error: "boom"}},
		{"provider-throws-hostile", seamCase{Arguments: argsDB, Provider: "throw", Error: "\u001b[31mred\u001b[0m <b>bold</b>\nsecond line"}},
		{"provider-panics", seamCase{Arguments: argsDB, Provider: "panic", Error: "boom"}},
		// aborts, disposal, timeouts
		{"abort-before", seamCase{Arguments: argsDB, Provider: "wait", Abort: "before"}},
		{"abort-before-invalid-arguments", seamCase{Arguments: `{`, Provider: "wait", Abort: "before"}},
		{"abort-during", seamCase{Arguments: argsDB, Provider: "wait", Abort: "during"}},
		{"abort-during-reason", seamCase{Arguments: argsDB, Provider: "wait", Abort: "during", AbortReason: "the user pressed stop"}},
		{"dispose-during", seamCase{Arguments: argsDB, Provider: "wait", Dispose: true}},
		{"timeout", seamCase{Arguments: argsDB, Provider: "wait", TimeoutMs: 30}},
		{"timeout-thirty-days-does-not-fire-early", seamCase{Arguments: argsDB, Provider: "delay", DelayMs: 60, Lines: []string{"1"}, TimeoutMs: 30 * 24 * 3600 * 1000}},
		// engine faults
		{"trap-during-normalize", seamCase{Arguments: argsDB, Provider: "lines", Lines: []string{"1"}, Trap: "normalize"}},
		{"trap-in-provider", seamCase{Arguments: argsDB, Provider: "lines", Lines: []string{"1"}, Trap: "provider"}},
		// more model text, whatever it is
		{"args-json-string", seamCase{Arguments: `"{\"question\":\"Which database?\"}"`, Provider: "lines", Lines: []string{"x"}}},
		{"args-null", seamCase{Arguments: `null`, Provider: "lines", Lines: []string{"x"}}},
		{"args-unknown-field-ignored", seamCase{Arguments: `{"question":"Which database?","junk":{"a":[1]}}`, Provider: "lines", Lines: []string{"DuckDB"}}},
		{"args-oversized", seamCase{Arguments: argsOversized, Provider: "lines", Lines: []string{"x"}}},
		{"args-oversized-line-separators", seamCase{Arguments: strings.Replace(argsOversized, "QQQQ", "Q\u2028Q\u2029", 1000), Provider: "lines", Lines: []string{"x"}}},
		// more answers
		{"answer-form-custom-wins", seamCase{Arguments: argsDBCustom, Provider: "form", Response: raw(`{"action":"accept","content":{"choice":"SQLite","custom_answer":"DuckDB <embedded>"}}`)}},
		{"answer-picks-invalid", seamCase{Arguments: `{"question":"Which checks?","options":["Lint","Tests"],"multiSelect":true}`, Provider: "picks", Picks: []json.RawMessage{raw(`{"options":[],"text":"Fuzz"}`)}}},
		// the situations around the rules, with host text to quote
		{"abort-before-no-provider", seamCase{Arguments: argsDB, Provider: "none", Abort: "before"}},
		{"provider-throws-long", seamCase{Arguments: argsDB, Provider: "throw", Error: longError}},
		// a provider that ignores its ctx / abort signal: the ask ends at once
		// all the same, and its late answer is dropped
		{"dispose-ignoring-provider", seamCase{Arguments: argsDB, Provider: "ignore", Dispose: true}},
		{"abort-ignoring-provider", seamCase{Arguments: argsDB, Provider: "ignore", Abort: "during", AbortReason: "the user pressed stop"}},
		{"timeout-ignoring-provider", seamCase{Arguments: argsDB, Provider: "ignore", TimeoutMs: 30}},
		// the terminal provider in line mode, typed at through stdin
		{"terminal-single", seamCase{Arguments: argsDB, Provider: "terminal", Stdin: stdin("3\n")}},
		{"terminal-reprompt-then-valid", seamCase{Arguments: argsDB, Provider: "terminal", Stdin: stdin("Oracle\npostgresql\n")}},
		{"terminal-eof", seamCase{Arguments: argsDB, Provider: "terminal", Stdin: stdin("")}},
		{"terminal-canonical-equivalence", seamCase{Arguments: `{"question":"Who?","options":["Ľubica","Marta"]}`, Provider: "terminal", Stdin: stdin("L\u030cubica\n")}},
		{"terminal-batch", seamCase{Arguments: argsBatch, Provider: "terminal", Stdin: stdin("1\n1,2\nAurora\n")}},
		{"terminal-batch-reprompt", seamCase{Arguments: argsBatch, Provider: "terminal", Stdin: stdin("1\n\n\nAurora\n")}},
		{"terminal-batch-eof-after-first", seamCase{Arguments: argsBatch, Provider: "terminal", Stdin: stdin("1\n")}},
		{"terminal-multi-free-text", seamCase{Arguments: argsMulti, Provider: "terminal", Stdin: stdin("3, Slack, auth\n")}},
		// what a provider hands back: only what the person gave, or the
		// core's answer to that very call
		{"reply-resolved-by-provider", seamCase{Arguments: argsBatch, Provider: "resolved", Lines: []string{"1", "1,2", "Aurora"}}},
		{"reply-forged-answer", seamCase{Arguments: argsDB, Provider: "forged", Answer: raw(`{"answer":"rm -rf /"}`)}},
		{"reply-forged-selected", seamCase{Arguments: argsDB, Provider: "forged", Answer: raw(`{"answer":"x","selected":{"index":9,"label":"x","value":"x"}}`)}},
		{"reply-stale-answer", seamCase{Arguments: argsDB, Provider: "stale", OtherArguments: argsDBCustom, Lines: []string{"DuckDB"}}},
		{"reply-not-a-reply-date", seamCase{Arguments: argsDB, Provider: "not-a-reply", Value: "date"}},
		{"reply-not-a-reply-string", seamCase{Arguments: argsDB, Provider: "not-a-reply", Value: "string"}},
		{"reply-not-a-reply-fail-result", seamCase{Arguments: argsDB, Provider: "not-a-reply", Value: "fail-result"}},
		{"reply-lines-wrong-count", seamCase{Arguments: argsBatch, Provider: "lines", Lines: []string{"1"}}},
		{"reply-reprompt-error", seamCase{Arguments: argsDB, Provider: "reprompt", Lines: []string{"Oracle"}}},
		{"reply-resolved-invalid", seamCase{Arguments: argsDB, Provider: "resolved", Lines: []string{"Oracle"}}},
		{"reply-lines-no-option", seamCase{Arguments: argsDB, Provider: "lines", Lines: []string{"Oracle"}}},
		// nobody saw the question (not_shown), the form asked again, and
		// several surfaces at once (FirstReply)
		{"notshown-codex-exec", seamCase{Arguments: argsDB, Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"decline"}`)}, Delivery: codexExec}},
		{"notshown-claude-print-cancel", seamCase{Arguments: argsBatch, Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"cancel"}`)}, Delivery: claudePrint}},
		// claude -p on the 2026-07-28 protocol, on a loaded machine: the
		// retried call with its cancel came 900 ms after the form went out,
		// and the entrypoint Claude Code gave the server says print mode.
		{"notshown-claude-print-entrypoint-slow", seamCase{Arguments: argsDB, Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"cancel"}`)},
			Delivery: &seamDelivery{Ms: 900, Client: "claude-code", ClientVersion: "2.1.328", Entrypoint: "sdk-cli"}}},
		{"notshown-codex-url-decline", seamCase{Arguments: argsDB, Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"decline"}`)}, Delivery: &seamDelivery{Ms: 9, Client: "codex-mcp-client", Mode: "url"}}},
		{"notshown-person-declines", seamCase{Arguments: argsDB, Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"decline"}`)}, Delivery: person}},
		{"notshown-fail", seamCase{Arguments: argsDB, Provider: "fail", Situation: "not_shown", Detail: "the answer page: no browser can open here and nobody sees its address"}},
		{"reask-then-valid", seamCase{Arguments: argsDBCustom, Provider: "form-rounds", Responses: []json.RawMessage{emptyForm, raw(`{"action":"accept","content":{"choice":"nope"}}`), raw(`{"action":"accept","content":{"custom_answer":"DuckDB"}}`)}, Delivery: person}},
		{"reask-rounds-used-up", seamCase{Arguments: argsDBCustom, Provider: "form-rounds", Responses: []json.RawMessage{emptyForm, emptyForm, emptyForm, emptyForm}, Delivery: person}},
		{"reask-codex-notes-left-out", seamCase{Arguments: argsDB, Provider: "form-rounds", Responses: []json.RawMessage{emptyForm, raw(`{"action":"accept","content":{"choice":"sqlite"}}`)}, Delivery: &seamDelivery{Ms: 5000, Client: "codex-mcp-client"}}},
		{"nosurface-every-surface-dropped-out", seamCase{Arguments: argsDB, Provider: "first-reply", Surfaces: []seamSurface{
			{Name: "the form", Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"decline"}`)}, Delivery: codexExec},
			{Name: "the terminal", Provider: "fail", Situation: "no_terminal"},
			{Name: "the answer page", Provider: "fail", Situation: "not_shown", Detail: "no browser can open here and nobody sees its address"},
		}}},
		{"nosurface-no-surfaces", seamCase{Arguments: argsDB, Provider: "first-reply", Surfaces: []seamSurface{}}},
		{"firstreply-form-not-shown-terminal-answers", seamCase{Arguments: argsDB, Provider: "first-reply", Surfaces: []seamSurface{
			{Name: "the form", Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"cancel"}`)}, Delivery: claudePrint},
			{Name: "the terminal", Provider: "lines", Lines: []string{"3"}},
		}}},
		{"firstreply-first-wins", seamCase{Arguments: argsDB, Provider: "first-reply", Surfaces: []seamSurface{
			{Name: "the terminal", Provider: "wait"},
			{Name: "the form", Provider: "form-rounds", Responses: []json.RawMessage{emptyForm, raw(`{"action":"accept","content":{"choice":"postgres"}}`)}, Delivery: person},
		}}},
		{"firstreply-person-declines", seamCase{Arguments: argsDB, Provider: "first-reply", Surfaces: []seamSurface{
			{Name: "the terminal", Provider: "wait"},
			{Name: "the form", Provider: "form-rounds", Responses: []json.RawMessage{raw(`{"action":"decline"}`)}, Delivery: person},
		}}},
		{"terminal-multi-invalid-part-then-valid", seamCase{Arguments: `{"question":"Which checks?","options":["Lint","Tests","Fuzz"],"multiSelect":true}`,
			Provider: "terminal", Stdin: stdin("lint, Slack\n3,1\n")}},
	}
}
