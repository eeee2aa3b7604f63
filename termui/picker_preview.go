package termui

import (
	"strconv"
	"strings"
)

// Previews, notes and the key help (picker_render.go draws the rest).

const (
	// sideBySideCols is the narrowest terminal where a question's
	// previews are drawn beside the list; below it they go under it.
	sideBySideCols = 100
	// sideGap separates the list from the preview box beside it.
	sideGap = " "
	// minBoxRows is the smallest box drawn: its two borders and a line.
	minBoxRows = 3
	// minListCols is the narrowest list column beside a preview (unless
	// half the terminal is narrower).
	minListCols = 30
	// textRoom is what the list column keeps for typing on the own-answer
	// entry, beyond its label.
	textRoom = 16

	// The box's frame.
	boxTopLeft     = "╭"
	boxTopRight    = "╮"
	boxBottomLeft  = "╰"
	boxBottomRight = "╯"
	boxHorizontal  = "─"
	boxVertical    = "│"
)

// hasPreviews reports whether an entry of q has a preview.
func hasPreviews(q *LayoutQuestion) bool {
	for i := range q.Entries {
		if q.Entries[i].Preview != "" {
			return true
		}
	}
	return false
}

// listWidth is the width of the list column beside the previews of the
// current question: what its entries need (labels, the recommended note,
// descriptions unwrapped, the own-answer label and some room to type), at
// most 2/5 of the width and at least minListCols (or half the width). It
// depends on the layout and the width only, so the column stays where it
// is while the cursor moves and the person types.
func (s *pickerState) listWidth(width int) int {
	k := widthKey{s.cur, width}
	if w, ok := s.listWs[k]; ok {
		return w
	}
	q := s.q()
	_, _, indent := s.columns()
	need := 0
	rec := textWidth(cleanText(s.l.Recommended))
	for i := range q.Entries {
		e := &q.Entries[i]
		w := textWidth(cleanText(e.Label))
		if e.Recommended {
			w += 2 + rec
		}
		need = max(need, w)
		for para := range strings.SplitSeq(e.Description, "\n") {
			need = max(need, textWidth(cleanText(para)))
		}
	}
	if q.Custom != "" {
		need = max(need, textWidth(cleanText(q.Custom))+2+textRoom)
	}
	w := max(min(indent+need, width*2/5), min(minListCols, width/2))
	if s.listWs == nil {
		s.listWs = map[widthKey]int{}
	}
	s.listWs[k] = w
	return w
}

type widthKey struct{ q, width int }

// previewLines is entry e's preview in lines of at most width cells (kept:
// a frame is drawn for every key). A line too wide is wrapped at its break
// opportunities, each part keeping the line's indentation (when that
// leaves room), so code and mockups keep their shape; nothing is dropped.
func (s *pickerState) previewLines(e, width int) []string {
	k := descKey{s.cur, e, width}
	if d, ok := s.previews[k]; ok {
		return d
	}
	if s.previews == nil {
		s.previews = map[descKey][]string{}
	}
	d := wrapPreview(s.q().Entries[e].Preview, width)
	s.previews[k] = d
	return d
}

// wrapPreview breaks a preview into lines of at most width cells.
func wrapPreview(p string, width int) []string {
	if width <= 0 {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(p, "\n") {
		line = strings.TrimRight(cleanText(line), " ")
		if textWidth(line) <= width {
			out = append(out, line)
			continue
		}
		body := strings.TrimLeft(line, " ")
		ind := len(line) - len(body)
		if ind > width/2 {
			ind = 0
		}
		pad := strings.Repeat(" ", ind)
		for _, part := range wrapLine(body, width-ind) {
			out = append(out, pad+part)
		}
	}
	return out
}

// tallestPreview is the number of lines of the question's tallest
// preview, before wrapping (what the room kept below the list is measured
// by: counting is cheap, wrapping 64 previews of the core's largest size
// for the first frame is not; a preview whose lines wrap scrolls a little
// sooner).
func (s *pickerState) tallestPreview() int {
	n := 0
	for e := range s.q().Entries {
		if p := s.q().Entries[e].Preview; p != "" {
			n = max(n, strings.Count(p, "\n")+1)
		}
	}
	return n
}

// previewBox draws the preview of the entry under the cursor in a box of
// w x h cells: the layout's title on the top border, the lines, scrolled
// from the state's preview top; when the preview is taller than the box,
// "↑ N more" on the top border and "↓ N more" with the layout's scroll
// help on the bottom one. It records how far the preview scrolls (pvMax)
// and how many lines the box shows (pvPage) for the scroll keys.
func (s *pickerState) previewBox(w, h int, st Style) []string {
	qs := s.st()
	inner := w - 4
	lines := s.previewLines(qs.cursor, inner)
	rows := h - 2
	maxTop := max(len(lines)-rows, 0)
	qs.pvTop = max(min(qs.pvTop, maxTop), 0)
	qs.pvMax, qs.pvMaxOf, s.pvPage = maxTop, qs.cursor, rows
	more := cleanText(s.l.More)

	var upLabel, downLabel, helpLabel string
	if qs.pvTop > 0 {
		upLabel = glyphUp + strconv.Itoa(qs.pvTop) + " " + more
	}
	if below := len(lines) - qs.pvTop - rows; below > 0 {
		downLabel = glyphDown + strconv.Itoa(below) + " " + more
	}
	if maxTop > 0 {
		helpLabel = cleanText(s.l.PreviewHelp)
	}
	out := make([]string, 0, h)
	out = append(out, st.Dim(boxBorder(boxTopLeft, boxTopRight, cleanText(s.l.PreviewTitle), upLabel, w)))
	for i := range rows {
		l := ""
		if j := qs.pvTop + i; j < len(lines) {
			l = lines[j]
		}
		pad := strings.Repeat(" ", max(inner-textWidth(l), 0))
		out = append(out, st.Dim(boxVertical)+" "+l+pad+" "+st.Dim(boxVertical))
	}
	out = append(out, st.Dim(boxBorder(boxBottomLeft, boxBottomRight, downLabel, helpLabel, w)))
	return out
}

// boxBorder is a border line of w cells between the corners left and
// right: left label after "─ ", right label before " ─", the rest "─";
// labels that do not fit are cut (the right one first).
func boxBorder(left, right, llabel, rlabel string, w int) string {
	room := w - 2 - 2 // corners, the "─" after the left one and before the right one
	if room <= 0 {
		return left + strings.Repeat(boxHorizontal, max(w-2, 0)) + right
	}
	label := func(t string, room int) (string, int) {
		if t == "" || room < 3 {
			return "", 0
		}
		t, tw := truncate(t, room-2)
		return " " + t + " ", tw + 2
	}
	ll, lw := label(llabel, room)
	rl, rw := label(rlabel, room-lw)
	fill := room - lw - rw
	return left + boxHorizontal + ll + strings.Repeat(boxHorizontal, fill) + rl + boxHorizontal + right
}

// notesLine is the line under the question that shows the question's
// notes: the layout's label, a colon and the text, with a cursor while
// they are edited (the end of a long text shown, after "…"); nothing
// while there are none and they are not edited.
func (s *pickerState) notesLine(width int, st Style) []string {
	qs := s.st()
	if !qs.editing && qs.notes == "" {
		return nil
	}
	const indent = "  "
	room := width - len(indent)
	label := cleanText(s.l.Notes)
	notes := cleanText(qs.notes)
	if !qs.editing {
		t, _ := truncate(label+": "+notes, room)
		return []string{indent + st.Dim(t)}
	}
	cursor, cursorStyled := "_", "_"
	if st.Color {
		cursor, cursorStyled = " ", sgrReverse+" "+sgrReset
	}
	lab, lw := truncate(label, max(room/2-2, 1))
	lab, lw = lab+": ", lw+2
	text, _ := tail(notes, max(room-lw-textWidth(cursor), 0))
	return []string{indent + st.wrap(sgrBold, lab) + text + cursorStyled}
}

// helpSep separates the parts of the core's key help.
const helpSep = " · "

// helpLines is the key help in at most maxLines lines of width cells,
// broken between its parts (the core writes them separated by " · "); the
// last line is cut with "…" when the rest does not fit.
func helpLines(h string, width, maxLines int) []string {
	h = cleanText(h)
	if h == "" || maxLines <= 0 {
		return nil
	}
	if textWidth(h) <= width {
		return []string{h}
	}
	parts := strings.Split(h, helpSep)
	var out []string
	line := ""
	for i, p := range parts {
		switch {
		case line == "":
			line = p
		case textWidth(line+helpSep+p) <= width:
			line += helpSep + p
		default:
			if len(out) == maxLines-1 {
				// The last line: the rest goes on it, cut.
				line += helpSep + strings.Join(parts[i:], helpSep)
				t, _ := truncate(line, width)
				return append(out, t)
			}
			t, _ := truncate(line, width)
			out = append(out, t)
			line = p
		}
	}
	t, _ := truncate(line, width)
	return append(out, t)
}
