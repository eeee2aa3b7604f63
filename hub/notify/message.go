package notify

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	g "maragu.dev/gomponents"
	h "maragu.dev/gomponents/html"

	"github.com/askcore/askcore"
)

// An ask as a notification shows it: the whole question (every question
// of a batch, every option with its description, the recommended mark,
// previews as text), the answer links when the ask has them, and the link
// to the ask in the inbox.

// AnswerLink is one option's answer link, as a webhook's answerLinks
// carries it: the option's label and value, and the URL that answers the
// ask with it (GET shows a page with one confirm button).
type AnswerLink struct {
	Label string `json:"label"`
	Value string `json:"value"`
	URL   string `json:"url"`
}

// shownCall is a normalized call (a single question or a batch) as a
// notification shows it.
type shownCall struct {
	Questions []askcore.Question
	Batch     bool
}

// parseCall reads the call the hub's core normalized.
func parseCall(call json.RawMessage) shownCall {
	var c struct {
		askcore.Question
		Questions []askcore.Question `json:"questions"`
	}
	_ = json.Unmarshal(call, &c)
	if len(c.Questions) > 0 {
		return shownCall{Questions: c.Questions, Batch: true}
	}
	return shownCall{Questions: []askcore.Question{c.Question}}
}

// linkable: one question with options, one of which is chosen: an option
// is a whole answer, so one link per option answers the ask.
func (c shownCall) linkable() bool {
	return !c.Batch && len(c.Questions) == 1 && len(c.Questions[0].Options) > 0 && !c.Questions[0].MultiSelect
}

// oneLine strips what a header must not hold (CR, LF and every other
// control character: a model wrote this text) and squeezes white space,
// cut to at most max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError }), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

// subjectLen bounds the part of a subject after "NAME asks: ".
const subjectLen = 78

// Subject is a notification's title: "<agent> asks: <header or the
// question's start>", on one line whatever the model wrote.
func Subject(agent string, call json.RawMessage) string {
	c := parseCall(call)
	what := c.Questions[0].Header
	if what == "" {
		what = c.Questions[0].Question
	}
	if c.Batch {
		what = plural(len(c.Questions), "question") + ": " + what
	}
	return oneLine(agent, 64) + " asks: " + oneLine(what, subjectLen)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// mailView is what the mail shows, in its text part and its HTML part.
type mailView struct {
	Agent     string
	Questions []askcore.Question
	Batch     bool
	// Links are the answer links, one per option of the one question,
	// in the options' order; none when the ask has none.
	Links    []AnswerLink
	InboxURL string
}

// kind says how a question is answered, for the person.
func kind(q askcore.Question) string {
	switch {
	case len(q.Options) == 0:
		return "Answer in your own words."
	case q.MultiSelect && q.AllowCustom:
		return "Choose one or more, or answer in your own words."
	case q.MultiSelect:
		return "Choose one or more."
	case q.AllowCustom:
		return "Choose one, or answer in your own words."
	}
	return "Choose one."
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(prefix+l, " ")
	}
	return strings.Join(lines, "\n")
}

// Text is the plain-text body: first-class, as a text-only client or a
// screen reader gets it.
func (v mailView) Text() string {
	var b strings.Builder
	b.WriteString(v.Agent + " asks you")
	if v.Batch {
		b.WriteString(" " + plural(len(v.Questions), "question"))
	}
	b.WriteString(":\n")
	for qi, q := range v.Questions {
		b.WriteString("\n")
		head := q.Question
		if q.Header != "" {
			head = q.Header + ": " + q.Question
		}
		if v.Batch {
			head = strconv.Itoa(qi+1) + ". " + head
		}
		b.WriteString(indent(head, "") + "\n")
		b.WriteString(kind(q) + "\n")
		for i, o := range q.Options {
			line := "  " + string(rune('a'+i%26)) + ") " + o.Label
			if o.Recommended {
				line += "  (recommended)"
			}
			b.WriteString("\n" + line + "\n")
			if o.Description != "" {
				b.WriteString(indent(o.Description, "     ") + "\n")
			}
			if o.Preview != "" {
				b.WriteString("     Preview:\n" + indent(o.Preview, "     | ") + "\n")
			}
			if !v.Batch && i < len(v.Links) {
				b.WriteString("     Answer \"" + oneLine(o.Label, 60) + "\": " + v.Links[i].URL + "\n")
			}
		}
	}
	b.WriteString("\n")
	if len(v.Links) > 0 {
		b.WriteString("Each answer link opens a page with one button that sends that answer.\n")
		b.WriteString("To answer otherwise, open the inbox: " + v.InboxURL + "\n")
	} else {
		b.WriteString("Answer in the inbox: " + v.InboxURL + "\n")
	}
	b.WriteString("\n-- \nSent by askcore-hub for a question of " + v.Agent + ". Anyone holding this mail can answer it while it is open.\n")
	return b.String()
}

// HTML is the HTML body: inline styles only (mail clients drop style
// sheets), no image, no script, nothing fetched from anywhere. What the
// model and the agent wrote goes in as text, escaped, never as markup.
func (v mailView) HTML() string {
	var b strings.Builder
	_ = v.document().Render(&b) // only its writer can fail, and a strings.Builder does not
	return b.String()
}

func (v mailView) document() g.Node {
	intro := " asks you:"
	if v.Batch {
		intro = " asks you " + strconv.Itoa(len(v.Questions)) + " questions:"
	}
	questions := make(g.Group, len(v.Questions))
	for qi, q := range v.Questions {
		questions[qi] = v.question(qi, q)
	}
	inbox := "Answer in the inbox"
	if len(v.Links) > 0 {
		inbox = "Answer otherwise in the inbox"
	}
	return h.Doctype(h.HTML(h.Lang("en"),
		h.Head(
			h.Meta(h.Charset("utf-8")),
			h.Meta(h.Name("viewport"), h.Content("width=device-width, initial-scale=1")),
			h.TitleEl(g.Text(v.Agent+" asks")),
		),
		h.Body(h.Style("margin:0;padding:0;background:#f4f4f5;"),
			h.Div(h.Style("max-width:600px;margin:0 auto;padding:24px 16px;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#18181b;"),
				h.P(h.Style("margin:0 0 16px;color:#52525b;font-size:14px;"), h.Strong(h.Style("color:#18181b;"), g.Text(v.Agent)), g.Text(intro)),
				questions,
				h.P(h.Style("margin:0 0 8px;"), h.A(h.Href(v.InboxURL), h.Style("color:#2563eb;"), g.Text(inbox))),
				g.If(len(v.Links) > 0, h.P(h.Style("margin:0 0 8px;font-size:13px;color:#71717a;"),
					g.Text("Each answer button opens a page with one button that sends that answer; opening it changes nothing."))),
				h.P(h.Style("margin:16px 0 0;font-size:12px;color:#a1a1aa;"),
					g.Text("Sent by askcore-hub for a question of "+v.Agent+". Anyone holding this mail can answer it while it is open.")),
			),
		),
	))
}

// question is question qi's card: its header (numbered in a batch), how
// it is answered, and each option, with its answer button when the ask
// has links.
func (v mailView) question(qi int, q askcore.Question) g.Node {
	var head g.Node
	switch {
	case q.Header != "":
		text := q.Header
		if v.Batch {
			text = strconv.Itoa(qi+1) + ". " + text
		}
		head = h.P(h.Style("margin:0 0 4px;font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#2563eb;"), g.Text(text))
	case v.Batch:
		head = h.P(h.Style("margin:0 0 4px;font-size:12px;font-weight:600;color:#2563eb;"), g.Text(strconv.Itoa(qi+1)+"."))
	}
	options := make(g.Group, len(q.Options))
	for i, o := range q.Options {
		var answer g.Node
		if !v.Batch && i < len(v.Links) {
			answer = h.P(h.Style("margin:8px 0 0;"), h.A(h.Href(v.Links[i].URL),
				h.Style("display:inline-block;padding:8px 16px;border-radius:6px;background:#2563eb;color:#ffffff;text-decoration:none;font-weight:600;"),
				g.Text("Answer “"+o.Label+"”")))
		}
		options[i] = h.Div(h.Style("border-top:1px solid #f4f4f5;padding:10px 0;"),
			h.P(h.Style("margin:0;font-weight:600;"), g.Text(string(rune('a'+i%26))+") "+o.Label),
				g.If(o.Recommended, g.Group{g.Text(" "), h.Span(h.Style("display:inline-block;margin-left:6px;padding:0 6px;border-radius:4px;background:#dcfce7;color:#166534;font-size:12px;font-weight:600;"), g.Text("recommended"))})),
			g.If(o.Description != "", h.P(h.Style("margin:2px 0 0;color:#52525b;white-space:pre-wrap;"), g.Text(o.Description))),
			g.If(o.Preview != "", h.Pre(h.Style("margin:8px 0 0;padding:8px;background:#f4f4f5;border-radius:4px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:pre-wrap;overflow-wrap:anywhere;"), g.Text(o.Preview))),
			answer,
		)
	}
	return h.Div(h.Style("background:#ffffff;border:1px solid #e4e4e7;border-radius:8px;padding:16px;margin:0 0 16px;"),
		head,
		h.P(h.Style("margin:0 0 8px;font-size:18px;font-weight:600;white-space:pre-wrap;"), g.Text(q.Question)),
		h.P(h.Style("margin:0 0 12px;font-size:13px;color:#71717a;"), g.Text(kind(q))),
		options,
	)
}
