package termui

import (
	"strconv"
	"strings"
)

// Drawing a frame: the state, as lines that each fit the terminal's width
// (never wider than cols-1, so the terminal never wraps one), and no more
// lines than rows-1 (so the whole frame stays on screen and can be redrawn
// in place).

const (
	sgrGreen   = "\x1b[32m"
	sgrReverse = "\x1b[7m"

	glyphCursor = "❯ "
	glyphNoCur  = "  "
	glyphOwn    = "✎"
	glyphDone   = "✓ "
	glyphUp     = "↑ "
	glyphDown   = "↓ "

	// Descriptions take at most this many lines under an entry.
	maxDescLines = 3
)

// frame is a drawn state.
type frame struct {
	lines []string // with SGR when colour is on
	page  int      // entries shown at once (for PgUp/PgDn)
}

// render draws s for a terminal of cols x rows.
//
// From the top: the batch's tabs, its position, the question, the notes
// line (while edited, or once there are notes), a blank line, the entries,
// the host's message for a rejected Enter, the key help (wrapped at its
// " · " separators, at most 2 lines). When the question has previews, the
// preview of the entry under the cursor is drawn in a box: beside the list
// on a terminal at least sideBySideCols wide, below it otherwise.
func (s *pickerState) render(cols, rows int, st Style) frame {
	width := max(cols-1, 4)
	budget := max(rows-1, 1)
	q, qs := s.q(), s.st()

	// Header: batch tabs, title, the question, the notes, a blank line.
	var tabs []string
	if len(s.l.Questions) > 1 {
		tabs = []string{s.tabsLine(width, st)}
	}
	var title []string
	if t := cleanText(q.Position); t != "" {
		t, _ = truncate(t, width)
		title = []string{st.Dim(t)}
	}
	qtext := q.Question
	if h := q.Header; h != "" {
		qtext = "[" + h + "] " + qtext
	}
	question := wrap(qtext, width, 0)
	notes := s.notesLine(width, st)
	blank := 1

	// Footer: the host's message for a rejected Enter, the key help (the
	// notes' own while they are edited).
	var msg []string
	if qs.msg != "" {
		msg = wrap(qs.msg, width, 2)
	}
	helpText := q.Help
	if qs.editing {
		helpText = s.l.NotesHelp
	}
	help := helpLines(helpText, width, 2)

	// The preview's place: beside the list (the list takes the left
	// column), or below it (the box takes the whole width).
	previews := hasPreviews(q)
	side := previews && cols >= sideBySideCols
	listW, boxW := width, 0
	switch {
	case side:
		listW = s.listWidth(width)
		boxW = width - listW - len(sideGap)
	case previews:
		boxW = width
	}
	// The box is as tall as the preview under the cursor (framed), or what
	// is left; the room kept for it below the list is the question's
	// tallest preview's, so that the list does not change while the
	// cursor moves.
	boxNeed, tallest := 0, 0
	if previews {
		if !side {
			tallest = s.tallestPreview() + 2
		}
		if s.preview() != "" {
			boxNeed = len(s.previewLines(s.st().cursor, boxW-4)) + 2
		}
	}

	// Beside the previews, the own answer's text entry takes the whole
	// width while it has the focus (it has no preview: no box is drawn).
	ownW := listW
	if side && s.onText() {
		ownW = width
	}
	entries := s.entryBlocks(listW, ownW, st)
	full := 0
	for _, e := range entries {
		full += len(e)
	}
	fixed := func() int {
		return len(tabs) + len(title) + len(question) + len(notes) + blank + len(msg) + len(help)
	}
	// Below the list the box gets what the list leaves, at least half of
	// the room (a tall preview scrolls in it).
	reserve := 0
	if previews && !side {
		avail := budget - fixed()
		reserve = min(tallest, max(avail-full, avail/2))
		if reserve < minBoxRows {
			reserve = 0
		}
	}
	compact := fixed()+full+reserve > budget
	if compact {
		// The list scrolls: only the entry under the cursor keeps its
		// description.
		for i := range entries {
			if i != qs.cursor {
				entries[i] = entries[i][:1]
			}
		}
		// Make room for at least a few entries: shed decoration first.
		need := min(len(entries[qs.cursor])+4, budget-reserve)
		for _, shed := range []func() bool{
			func() bool { b := blank > 0; blank = 0; return b },
			func() bool { b := len(title) > 0; title = nil; return b },
			func() bool {
				if len(question) > 3 {
					question = wrap(qtext, width, 3)
					return true
				}
				return false
			},
			func() bool { b := len(tabs) > 0; tabs = nil; return b },
			func() bool {
				if len(help) > 1 {
					help = helpLines(helpText, width, 1)
					return true
				}
				return false
			},
			func() bool {
				// While notes are edited their key help stays: it says
				// how to leave the edit.
				if len(help) == 0 || qs.editing {
					return false
				}
				help = nil
				return true
			},
			func() bool {
				if len(question) > 1 {
					question = wrap(qtext, width, 1)
					return true
				}
				return false
			},
			func() bool { b := len(msg) > 1; msg = msg[:min(len(msg), 1)]; return b },
		} {
			if budget-reserve-fixed() >= need {
				break
			}
			shed()
		}
	}
	for i, l := range question {
		question[i] = st.Question(l)
	}
	for i, l := range msg {
		msg[i] = st.Warn(l)
	}

	lines := make([]string, 0, budget)
	lines = append(lines, tabs...)
	lines = append(lines, title...)
	lines = append(lines, question...)
	lines = append(lines, notes...)
	if blank > 0 {
		lines = append(lines, "")
	}
	avail := budget - fixed() - reserve
	shown, page := s.window(entries, max(avail, 1), listW, st)

	// The box: none when what is left is too little to show a line.
	var box []string
	qs.pvMaxOf = -1
	if previews {
		boxH := min(boxNeed, budget-fixed())
		if !side {
			boxH = min(boxNeed, budget-fixed()-len(shown))
		}
		if boxH >= minBoxRows && s.preview() != "" {
			box = s.previewBox(boxW, boxH, st)
		}
	}
	body := shown
	switch {
	case side && len(box) > 0:
		body = make([]string, max(len(shown), len(box)))
		for i := range body {
			l := ""
			if i < len(shown) {
				l = fitLine(shown[i], listW)
			}
			l += strings.Repeat(" ", listW-textWidth(stripStyle(l))) + sideGap
			if i < len(box) {
				l += box[i]
			}
			body[i] = strings.TrimRight(l, " ")
		}
	case len(box) > 0:
		body = append(append([]string(nil), shown...), box...)
	}
	lines = append(lines, body...)
	lines = append(lines, msg...)
	lines = append(lines, help...)
	if len(lines) > budget {
		// A terminal too small for anything else: keep the entries.
		lines = shown
		if len(lines) > budget {
			lines = lines[:budget]
		}
	}
	for i, l := range lines {
		lines[i] = fitLine(l, width)
	}
	return frame{lines: lines, page: page}
}

// fitLine makes sure a drawn line is at most width cells wide: on a
// terminal too narrow for the entries' own prefixes, the line is cut (and
// loses its colour).
func fitLine(line string, width int) string {
	plain := line
	if strings.Contains(line, "\x1b") {
		plain = stripStyle(line)
	}
	if textWidth(plain) <= width {
		return line
	}
	cut, _ := truncate(plain, width)
	return cut
}

// stripStyle removes the SGR sequences this file adds.
func stripStyle(s string) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return sb.String()
		}
		s = s[i+j+1:]
	}
}

// window picks the entries shown in avail lines, scrolled so that the
// cursor is visible, with a ↑/↓ count line where entries are hidden.
func (s *pickerState) window(entries [][]string, avail, width int, st Style) ([]string, int) {
	qs := s.st()
	n := len(entries)
	cur := qs.cursor
	total := 0
	for _, e := range entries {
		total += len(e)
	}
	if total <= avail {
		qs.top = 0
		var out []string
		for _, e := range entries {
			out = append(out, e...)
		}
		return out, n
	}
	if avail < 3 {
		// Room for the cursor's entry only.
		qs.top = cur
		return entries[cur][:min(len(entries[cur]), avail)], 1
	}
	// fill returns the end of the window starting at top.
	fill := func(top int) int {
		used := 0
		if top > 0 {
			used++
		}
		e := top
		for e < n {
			more := 0
			if e+1 < n {
				more = 1
			}
			if used+len(entries[e])+more > avail {
				break
			}
			used += len(entries[e])
			e++
		}
		return e
	}
	top := min(qs.top, cur)
	for top < cur && fill(top) <= cur {
		top++
	}
	end := fill(top)
	if end <= cur {
		// Even alone the cursor's entry is too tall: cut its description.
		end = cur + 1
		top = cur
	}
	qs.top = top
	var out []string
	if top > 0 {
		out = append(out, s.moreLine(glyphUp, top, width, st))
	}
	for e := top; e < end; e++ {
		out = append(out, entries[e]...)
	}
	if end < n {
		out = append(out, s.moreLine(glyphDown, n-end, width, st))
	}
	if len(out) > avail {
		// Only when the cursor's entry alone overflows: keep the
		// indicators, cut the description.
		keep := avail
		if end < n {
			keep--
		}
		last := out[len(out)-1]
		out = out[:keep]
		if end < n {
			out = append(out, last)
		}
	}
	return out, max(end-top, 1)
}

func (s *pickerState) moreLine(glyph string, count int, width int, st Style) string {
	t, _ := truncate("  "+glyph+strconv.Itoa(count)+" "+cleanText(s.l.More), width)
	return st.Dim(t)
}

// tabsLine names the questions of a batch: ✓ on a confirmed one, the
// shown one in brackets (and bold when colour is on).
func (s *pickerState) tabsLine(width int, st Style) string {
	var sb strings.Builder
	w := 0
	for i := range s.l.Questions {
		name := cleanText(s.l.Questions[i].Header)
		if name == "" {
			name = strconv.Itoa(i + 1)
		}
		name, _ = truncate(name, 16)
		if s.confirmed(i) {
			name = glyphDone + name
		}
		if i == s.cur {
			name = "[" + name + "]"
		} else {
			name = " " + name + " "
		}
		if i > 0 {
			name = " " + name
		}
		nw := textWidth(name)
		if w+nw > width {
			cut, _ := truncate(name, width-w)
			sb.WriteString(st.Dim(cut))
			break
		}
		w += nw
		switch {
		case i == s.cur:
			sb.WriteString(st.wrap(sgrBold+sgrCyan, name))
		case s.confirmed(i):
			sb.WriteString(st.wrap(sgrGreen, name))
		default:
			sb.WriteString(st.Dim(name))
		}
	}
	return sb.String()
}

// entryBlocks draws every entry of the current question in width cells
// (the own-answer entry in ownWidth): its label line, then its description
// lines.
func (s *pickerState) entryBlocks(width, ownWidth int, st Style) [][]string {
	q, qs := s.q(), s.st()
	numW, boxW, indent := s.columns()
	on, off := cleanText(s.l.On), cleanText(s.l.Off)
	blocks := make([][]string, 0, entryCount(q))
	for e := range entryCount(q) {
		isCur := e == qs.cursor
		own := e == len(q.Entries)
		var b strings.Builder
		if isCur {
			b.WriteString(st.wrap(sgrBold+sgrCyan, glyphCursor))
		} else {
			b.WriteString(glyphNoCur)
		}
		if q.MultiSelect {
			toggled := own && qs.text != "" || !own && qs.toggled[e]
			box := off
			if toggled {
				box = on
			}
			box += strings.Repeat(" ", boxW-textWidth(box))
			if toggled {
				box = st.wrap(sgrCyan, box)
			}
			b.WriteString(box)
		}
		if own {
			b.WriteString(strings.Repeat(" ", max(numW+1, 1)-1) + glyphOwn + " ")
		} else {
			num := strconv.Itoa(e+1) + "."
			b.WriteString(strings.Repeat(" ", numW+1-len(num)) + num + " ")
		}
		room := width - indent
		if own {
			b.WriteString(s.textEntry(ownWidth-indent, isCur, st))
			blocks = append(blocks, []string{b.String()})
			continue
		}
		ent := &q.Entries[e]
		label, lw := truncate(cleanText(ent.Label), room)
		if isCur {
			label = st.wrap(sgrBold, label)
		}
		b.WriteString(label)
		if note := cleanText(s.l.Recommended); ent.Recommended && room-lw > 3 {
			nt, _ := truncate(note, room-lw-2)
			b.WriteString("  " + st.Dim(nt))
		}
		block := []string{b.String()}
		if ent.Description != "" {
			pad := strings.Repeat(" ", indent)
			for _, d := range s.descLines(e, room) {
				block = append(block, pad+st.Dim(d))
			}
		}
		blocks = append(blocks, block)
	}
	return blocks
}

// columns are the widths of the entries' number ("12."), of their
// multi-select box ("[x] "), and where their labels start: after the cursor
// glyph, the box, the number and a space.
func (s *pickerState) columns() (numW, boxW, indent int) {
	q := s.q()
	numW = len(strconv.Itoa(len(q.Entries)))
	if len(q.Entries) == 0 {
		numW = 0
	}
	if q.MultiSelect {
		boxW = max(textWidth(cleanText(s.l.On)), textWidth(cleanText(s.l.Off)))
	}
	return numW, boxW, 2 + boxW + max(numW+1, 1) + 1
}

// textEntry draws the own-answer entry in room cells: its label, and
// after a colon what was typed, with a cursor when it has the focus.
func (s *pickerState) textEntry(room int, focused bool, st Style) string {
	q, qs := s.q(), s.st()
	label := cleanText(q.Custom)
	if qs.text == "" && !focused {
		l, _ := truncate(label, room)
		return st.Dim(l)
	}
	cursor, cursorStyled := "", ""
	if focused {
		cursor, cursorStyled = "_", "_"
		if st.Color {
			cursor, cursorStyled = " ", sgrReverse+" "+sgrReset
		}
	}
	// The label takes at most half the room, cut before its colon.
	lab, lw := truncate(label, max(room/2-2, 1))
	lab, lw = lab+": ", lw+2
	rest := room - lw - textWidth(cursor)
	text, _ := tail(qs.text, max(rest, 0))
	if focused {
		lab = st.wrap(sgrBold, lab)
	} else {
		lab = st.Dim(lab)
	}
	return lab + text + cursorStyled
}

// descLines is entry e's description wrapped to width (kept: a frame is
// drawn for every key).
func (s *pickerState) descLines(e, width int) []string {
	k := descKey{s.cur, e, width}
	if d, ok := s.descs[k]; ok {
		return d
	}
	if s.descs == nil {
		s.descs = map[descKey][]string{}
	}
	d := wrap(s.q().Entries[e].Description, width, maxDescLines)
	s.descs[k] = d
	return d
}

type descKey struct{ q, e, width int }
