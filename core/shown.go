package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// NotShownMillis is the "not shown" threshold: a decline or cancel that
// arrives less than this many milliseconds after the form (or URL-mode)
// request was sent was not a person's. Clients that cannot show a
// question answer at once (measured: codex exec 1-2 ms, the Codex TUI's
// URL-mode decline 9 ms, claude -p 10-30 ms); a person needs a few
// hundred milliseconds to see a dialog, read it and press a key (a visual
// reaction alone takes about 200 ms, reading comes on top). 250 ms is an
// order of magnitude above the slowest client measured and below the
// fastest deliberate human decline.
const NotShownMillis = 250

// delivery is what a host knows about how a form (or URL-mode) request
// reached its client, for the not-shown rule: field "delivery" of ops
// "elicitation_result" and "form_reply".
type delivery struct {
	Known  bool  // Millis was given
	Millis int64 // from sending the request to its reply
	// Client and ClientVersion are the client's clientInfo name and
	// version (MCP) or the ACP client's.
	Client, ClientVersion string
	// Mode is "form" or "url" (a URL-mode request: open the answer page).
	Mode string
	// Trigger is the protocol's own word on who started the turn (Codex
	// sends "_meta":{"turn_trigger":"exec"} when no person is there).
	Trigger string
	// Entrypoint is how the client says, in the environment of the
	// process it started, that it runs: Claude Code sets
	// CLAUDE_CODE_ENTRYPOINT ("cli" interactive, "sdk-cli" for claude -p).
	// Only a host the client started itself knows it (askcore-mcp on
	// stdio).
	Entrypoint string
}

// Delivery modes.
const (
	modeForm = "form"
	modeURL  = "url"
)

// triggerExec is Codex's turn_trigger for a turn run without a person
// (codex exec).
const triggerExec = "exec"

// clientClaudeCode is Claude Code's clientInfo name; unattendedEntrypoints
// are the values of its CLAUDE_CODE_ENTRYPOINT for runs without a person
// to show a form to: "sdk-cli" is print mode (claude -p), which answers
// every form with cancel unless a hook does; "claude-code-github-action"
// runs in a workflow. The Agent SDK's entrypoints (sdk-ts, sdk-py) are not
// among them: an SDK program may show the form to a person.
const clientClaudeCode = "claude-code"

var unattendedEntrypoints = map[string]string{
	"sdk-cli":                   "print mode, claude -p",
	"claude-code-github-action": "a GitHub Actions workflow",
}

// maxClientChars bounds the client's name and version as a message quotes them.
const maxClientChars = 64

// envelopeDelivery reads the optional field "delivery":
// {"ms":N,"client":NAME,"clientVersion":V,"mode":"form"|"url","trigger":T,
// "entrypoint":E}.
func envelopeDelivery(env *jsonx.Value) (delivery, *harnessError) {
	var d delivery
	v, n := lookup(env, "delivery")
	switch {
	case n == 0 || v.Kind == jsonx.Null:
		return d, nil
	case n > 1:
		return d, invalidRequest(`the input has the key "delivery" ` + strconv.Itoa(n) + " times: send it once")
	case v.Kind != jsonx.Object:
		return d, invalidRequest(`delivery must be an object like {"ms":12,"client":"name","mode":"form"}, got ` + v.Kind.Noun())
	}
	if mv, n := lookup(v, "ms"); n > 0 && mv.Kind != jsonx.Null {
		ms, ok := wholeNumber(mv, 15)
		if n > 1 || !ok {
			return d, invalidRequest("delivery.ms must be a whole number of milliseconds (from sending the request to its reply), given once")
		}
		d.Known, d.Millis = true, ms
	}
	var err *harnessError
	if d.Client, err = envelopeOptString(v, "client"); err != nil {
		return d, prefixed("delivery.", err)
	}
	if d.ClientVersion, err = envelopeOptString(v, "clientVersion"); err != nil {
		return d, prefixed("delivery.", err)
	}
	if d.Trigger, err = envelopeOptString(v, "trigger"); err != nil {
		return d, prefixed("delivery.", err)
	}
	if d.Entrypoint, err = envelopeOptString(v, "entrypoint"); err != nil {
		return d, prefixed("delivery.", err)
	}
	if d.Mode, err = envelopeOptString(v, "mode"); err != nil {
		return d, prefixed("delivery.", err)
	}
	switch d.Mode {
	case "":
		d.Mode = modeForm
	case modeForm, modeURL:
	default:
		return d, invalidRequest(`delivery.mode must be "form" or "url", got ` + snippet(d.Mode))
	}
	d.Client = head(d.Client, MaxFailTextChars)
	d.ClientVersion = head(d.ClientVersion, MaxFailTextChars)
	d.Trigger = head(d.Trigger, MaxFailTextChars)
	d.Entrypoint = head(d.Entrypoint, MaxFailTextChars)
	return d, nil
}

// prefixed names the object a field error is about.
func prefixed(p string, e *harnessError) *harnessError {
	return newError(e.Code, p+e.Message)
}

// clientName names the client for a message: its name and version as
// clientInfo gave them, or "the client".
func clientName(d delivery) string {
	name := cut(sanitize(d.Client, false), maxClientChars)
	if name == "" {
		return "the client"
	}
	if v := cut(sanitize(d.ClientVersion, false), maxClientChars); v != "" {
		name += " " + v
	}
	return name
}

// notShown decides whether a client's action could not have been a
// person's (docs/SPEC.md, "Not shown"): a decline or cancel of a turn the
// protocol says no person runs, from a client that says it runs without a
// person, or one that came back sooner than NotShownMillis. It returns the reason, in the core's words, for the
// not_shown message.
func notShown(action string, d delivery) (string, bool) {
	if action != "decline" && action != "cancel" {
		return "", false
	}
	what := "the form"
	if d.Mode == modeURL {
		what = "the request to open the answer page"
	}
	verb := "declined "
	if action == "cancel" {
		verb = "cancelled "
	}
	switch {
	case strings.EqualFold(d.Trigger, triggerExec):
		return clientName(d) + " " + verb + what + " without a person: it runs this turn unattended (turn_trigger exec) and cannot show questions", true
	case strings.EqualFold(d.Client, clientClaudeCode) && unattendedEntrypoints[d.Entrypoint] != "":
		return clientName(d) + " " + verb + what + " without a person: it runs unattended (" + unattendedEntrypoints[d.Entrypoint] + ") and cannot show questions", true
	case d.Known && d.Millis < NotShownMillis:
		return clientName(d) + " " + verb + what + " in " + strconv.FormatInt(d.Millis, 10) + " ms, before anyone could read it: this client cannot show questions in this mode", true
	}
	return "", false
}
