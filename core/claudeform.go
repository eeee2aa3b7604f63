package core

import "strings"

// Claude Code's form dialog (measured in Claude Code 2.1.328, read in its
// code and seen in tmux at 120x40; docs/SPEC.md "Forms real hosts show
// whole", RATIONALE.md): the message gets at most claudeMessageRows rows.
// A message with a line break is shown line by line, each line on one row
// cut at the terminal's width less 6 columns (claudeRowChars at 120
// columns); a longer message shows its first rows, then
// "… (+N more lines)" on the last. A field's description gets one row in
// the full-screen layout (a line break shows as "\uFFFD") and is shown whole
// in the inline one. So for one question the core writes the message as
// rows, none longer than claudeRowChars, at most claudeMessageRows of them,
// most needed first (a short terminal shows fewer rows, and the dialog
// drops the last): the ask, then the options' descriptions the titles do
// not carry, then as much of the question as is left room for; what the
// rows cannot hold goes in the field's description, on one line.
const (
	claudeMessageRows = 4
	claudeRowChars    = 114
)

// claudeSep joins the parts of a field description for Claude Code, on
// one line.
const claudeSep = " · "

// claudeRows is a single question's form text for Claude Code: the
// message, and what its field's description carries (under).
type claudeRows struct {
	message string
	under   string
}

// claudeLayout writes a single question's form text for Claude Code
// (client claude-code, MCP). ok is false for other clients, for a batch
// (each question is its own field), and for a question the plain message
// already shows whole (short, every description in a title).
func claudeLayout(a *call, fs formSpec) (rows claudeRows, ok bool) {
	if a.Batch || titleWidth(fs.target, fs.client) == MaxOptionTitleChars {
		return claudeRows{}, false
	}
	r := &a.Questions[0]
	var ob [MaxOptions]int
	descs := uncarriedLines(r, r.appendDisplayOrder(ob[:0]), fs.target, claudeTitleChars)
	ask := askOf(r.Question)
	if ask == "" && len(descs) == 0 {
		return claudeRows{}, false
	}
	previews := formPreviews(a)
	budget := claudeMessageRows
	if previews != "" {
		// The previews follow: the dialog's last row says how many more.
		budget--
	}
	var head []string
	if fs.lead != "" {
		head = wrapRows(sanitize(fs.lead, false), claudeRowChars)
	}
	if ask != "" {
		head = append(head, wrapRows(ask, claudeRowChars)...)
	} else {
		for _, line := range strings.Split(sanitize(r.Question, true), "\n") {
			head = append(head, wrapRows(line, claudeRowChars)...)
		}
	}
	var shown, left []string
	used := len(head)
	for _, d := range descs {
		w := wrapRows(d, claudeRowChars)
		if used+len(w) > budget || len(left) > 0 {
			left = append(left, d)
			continue
		}
		shown = append(shown, w...)
		used += len(w)
	}
	var context []string
	rest := ""
	if ask != "" {
		context, rest = contextRows(sanitize(r.Question, false), budget-used)
	}
	lines := append(append(head, shown...), context...)
	rows.message = strings.Join(lines, "\n") + previews
	if rest != "" {
		left = append(left, rest)
	}
	rows.under = strings.Join(left, claudeSep)
	return rows, true
}

// contextRows is a question folded to one line, in at most room rows:
// whole when it fits, else its first rows, the last ending with " …",
// and the rest of it ("…" and the text the rows do not hold).
func contextRows(q string, room int) (rows []string, rest string) {
	if room <= 0 {
		return nil, q
	}
	for s := q; s != ""; {
		if len(rows) == room-1 && chars(s) > claudeRowChars {
			row, after := nextRow(s, claudeRowChars-2)
			return append(rows, row+" …"), "…" + after
		}
		row, after := nextRow(s, claudeRowChars)
		rows, s = append(rows, row), after
	}
	return rows, ""
}

// wrapRows breaks one line of text into rows of at most width characters,
// at spaces; a word longer than width is split.
func wrapRows(s string, width int) []string {
	var rows []string
	for s != "" {
		row, after := nextRow(s, width)
		rows, s = append(rows, row), after
	}
	return rows
}

// nextRow splits off the first row of at most width characters of s,
// at its last space that fits (inside a word longer than width).
func nextRow(s string, width int) (row, rest string) {
	if chars(s) <= width {
		return s, ""
	}
	h := head(s, width+1)
	i := strings.LastIndexByte(h, ' ')
	if i <= 0 {
		h = head(s, width)
		return h, strings.TrimLeft(s[len(h):], " ")
	}
	return strings.TrimRight(h[:i], " "), strings.TrimLeft(s[i+1:], " ")
}
