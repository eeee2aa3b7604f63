package termui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Previews, notes and the key help in frames (picker_preview.go).

// Requests (the tool's arguments, as a model writes them).
const (
	// Two code layouts to compare by looking, and one without a preview.
	reqCodeLayouts = `{"header":"Layout","question":"Which layout should the handler use?","options":[
		{"label":"Early return","value":"early","description":"Guard clauses first.","recommended":true,
		 "preview":"func handle(r *Request) error {\n\tv, err := parse(r)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn use(v)\n}"},
		{"label":"Nested","value":"nested",
		 "preview":"func handle(r *Request) error {\n\tif v, err := parse(r); err == nil {\n\t\treturn use(v)\n\t} else {\n\t\treturn err\n\t}\n}"},
		{"label":"Panic","value":"panic","description":"Only in main."}],"allowCustom":true}`
	// Screens to pick several of, with mockups.
	reqScreens = `{"header":"Screens","question":"Which screens should the app have?","multiSelect":true,"options":[
		{"label":"Dashboard","preview":"+--------+--------+\n|  KPIs  |  Feed  |\n+--------+--------+","recommended":true},
		{"label":"Settings","preview":"[x] Dark mode\n[ ] Beta features"},
		{"label":"Help"}]}`
)

// layoutPreview is the core's layout for two code layouts to compare
// (previews on two of three options, free text allowed).
var layoutPreview = withCoreTexts(`{"questions":[{"header":"Layout","question":"Which layout?","multiSelect":false,
	"entries":[{"index":0,"label":"Early return","description":"Guard clauses first.","preview":"if err != nil {\n    return err\n}\nuse(v)","recommended":true},
	{"index":1,"label":"Nested","preview":"if err == nil {\n    use(v)\n}"},
	{"index":2,"label":"Panic"}],
	"custom":"Type your own answer","cursor":0,"help":"↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline"}]}`)

// previewLayout is a layout whose first option has preview p, the second
// a short one, the third none (multi-select when multi).
func previewLayout(p string, multi bool) string {
	q := map[string]any{
		"question": "Which one?", "multiSelect": multi,
		"entries": []map[string]any{
			{"index": 0, "label": "Long", "preview": p},
			{"index": 1, "label": "Short", "preview": "one line"},
			{"index": 2, "label": "None"},
		},
		"custom": "Other", "cursor": 0, "help": "↑/↓ move · Enter choose · Ctrl-N notes · Esc decline",
	}
	if multi {
		q["toggled"] = []int{}
	}
	b, err := json.Marshal(map[string]any{"questions": []any{q}})
	if err != nil {
		panic(err)
	}
	return withCoreTexts(string(b))
}

// numberedLines is "line 1" ... "line n", one a line.
func numberedLines(n int) string {
	var ls []string
	for i := 1; i <= n; i++ {
		ls = append(ls, fmt.Sprintf("line %d", i))
	}
	return strings.Join(ls, "\n")
}

func TestDecodeLayoutPreview(t *testing.T) {
	l := mustLayout(t, layoutPreview)
	assert.Equal(t, "if err != nil {\n    return err\n}\nuse(v)", l.Questions[0].Entries[0].Preview)
	assert.Empty(t, l.Questions[0].Entries[2].Preview)
	assert.Equal(t, "Notes", l.Notes)
	assert.NotEmpty(t, l.NotesHelp)
	assert.Equal(t, "Preview", l.PreviewTitle)
	assert.NotEmpty(t, l.PreviewHelp)
	// The words of previews and notes are the core's: a layout without
	// one of them is refused.
	for _, name := range []string{"notes", "notesHelp", "previewTitle", "previewHelp"} {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(layoutPreview), &m))
		delete(m, name)
		b, _ := json.Marshal(m)
		_, err := DecodeLayout(b)
		assert.ErrorContains(t, err, fmt.Sprintf("no %q text", name))
	}
}

// On a wide terminal the preview of the entry under the cursor is drawn
// in a box beside the list, the list keeping its column.
func TestRenderPreviewBeside(t *testing.T) {
	l := mustLayout(t, layoutPreview)
	s := newPickerState(&l)
	f := s.render(120, 30, Style{})
	assert.Equal(t, []string{
		"[Layout] Which layout?",
		"",
		"❯ 1. Early return  recommended              ╭─ Preview ───────────────────────────────────────────────────────────────╮",
		"     Guard clauses first.                   │ if err != nil {                                                         │",
		"  2. Nested                                 │     return err                                                          │",
		"  3. Panic                                  │ }                                                                       │",
		"   ✎ Type your own answer                   │ use(v)                                                                  │",
		"                                            ╰─────────────────────────────────────────────────────────────────────────╯",
		"↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline",
	}, f.lines)
	for _, line := range f.lines {
		assert.LessOrEqual(t, textWidth(line), 119)
	}

	// The next entry's preview; the list stays where it was.
	s.apply(key{kind: keyDown}, 5)
	f = s.render(120, 30, Style{})
	assert.Equal(t, "  1. Early return  recommended              ╭─ Preview ───────────────────────────────────────────────────────────────╮", f.lines[2])
	assert.Equal(t, "❯ 2. Nested                                 │     use(v)                                                              │", f.lines[4])
	assert.Equal(t, "   ✎ Type your own answer                   ╰─────────────────────────────────────────────────────────────────────────╯", f.lines[6],
		"the box is as tall as this preview")
	assert.Len(t, f.lines, 8)

	// No preview under the cursor: no box, the list in its column.
	s.apply(key{kind: keyDown}, 5)
	f = s.render(120, 30, Style{})
	assert.Equal(t, []string{
		"[Layout] Which layout?",
		"",
		"  1. Early return  recommended",
		"     Guard clauses first.",
		"  2. Nested",
		"❯ 3. Panic",
		"   ✎ Type your own answer",
		"↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline",
	}, f.lines)
}

// On a narrow terminal the box goes below the list, the whole width.
func TestRenderPreviewBelow(t *testing.T) {
	l := mustLayout(t, layoutPreview)
	s := newPickerState(&l)
	f := s.render(60, 24, Style{})
	assert.Equal(t, []string{
		"[Layout] Which layout?",
		"",
		"❯ 1. Early return  recommended",
		"     Guard clauses first.",
		"  2. Nested",
		"  3. Panic",
		"   ✎ Type your own answer",
		"╭─ Preview ───────────────────────────────────────────────╮",
		"│ if err != nil {                                         │",
		"│     return err                                          │",
		"│ }                                                       │",
		"│ use(v)                                                  │",
		"╰─────────────────────────────────────────────────────────╯",
		"↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes",
		"Esc decline",
	}, f.lines)
	// 99 columns is still narrow, 100 is wide.
	assert.Contains(t, s.render(99, 30, Style{}).lines[7], "╭─ Preview")
	assert.Contains(t, s.render(100, 30, Style{}).lines[2], "╭─ Preview")
}

// A preview taller than the room scrolls in its box: the borders say what
// is hidden and how to scroll; Shift-↑/↓ move by a line, Shift-PgUp/PgDn
// by a box, within the preview's ends; another entry's starts at its top.
func TestRenderPreviewScrolls(t *testing.T) {
	for _, sz := range [][2]int{{120, 30}, {60, 24}} {
		t.Run(fmt.Sprint(sz), func(t *testing.T) {
			l := mustLayout(t, previewLayout(numberedLines(200), false))
			s := newPickerState(&l)
			cols, rows := sz[0], sz[1]
			frame := func() string {
				f := s.render(cols, rows, Style{})
				require.LessOrEqual(t, len(f.lines), rows-1)
				for _, line := range f.lines {
					require.LessOrEqual(t, textWidth(line), cols-1, "%q", line)
				}
				return strings.Join(f.lines, "\n")
			}
			scr := frame()
			shown := s.pvPage
			require.Greater(t, shown, 5)
			assert.Contains(t, scr, "│ line 1 ")
			assert.Contains(t, scr, fmt.Sprintf("│ line %d ", shown))
			assert.NotContains(t, scr, fmt.Sprintf("│ line %d ", shown+1))
			assert.Regexp(t, fmt.Sprintf(`╰─ ↓ %d more ─+ Shift-↑/↓ scroll ─╯`, 200-shown), scr)
			assert.NotContains(t, scr, "↑ ", "nothing hidden above")

			assert.Equal(t, actRedraw, s.apply(key{kind: keyShiftDown}, 5))
			scr = frame()
			assert.Contains(t, scr, "│ line 2 ")
			assert.NotContains(t, scr, "│ line 1 ")
			assert.Regexp(t, `╭─ Preview ─+ ↑ 1 more ─╮`, scr)

			assert.Equal(t, actRedraw, s.apply(key{kind: keyShiftPageDown}, 5))
			frame()
			assert.Equal(t, 1+shown-1, s.st().pvTop, "a page is the box less one line")
			for range 300 {
				s.apply(key{kind: keyShiftDown}, 5)
				frame()
			}
			scr = frame()
			assert.Equal(t, 200-shown, s.st().pvTop, "stops at the end")
			assert.Contains(t, scr, "│ line 200 ")
			assert.Regexp(t, `╰─+ Shift-↑/↓ scroll ─╯`, scr)
			assert.Equal(t, actNone, s.apply(key{kind: keyShiftDown}, 5), "nothing below")

			assert.Equal(t, actRedraw, s.apply(key{kind: keyShiftPageUp}, 5))
			frame()
			assert.Equal(t, 200-shown-(shown-1), s.st().pvTop)

			// Another entry: its preview from the top; back again: from the
			// top too.
			s.apply(key{kind: keyDown}, 5)
			scr = frame()
			assert.Contains(t, scr, "│ one line ")
			assert.NotContains(t, scr, "scroll", "a preview that fits has no scroll help")
			s.apply(key{kind: keyUp}, 5)
			scr = frame()
			assert.Contains(t, scr, "│ line 1 ")

			// Keys that arrive together: Down, Up and Shift-↓ before a
			// frame is drawn still scroll the preview of the entry they
			// reach.
			s.apply(key{kind: keyDown}, 5)
			s.apply(key{kind: keyUp}, 5)
			assert.Equal(t, actRedraw, s.apply(key{kind: keyShiftDown}, 5))
			assert.Contains(t, frame(), "│ line 2 ")

			// ↑/↓ still move, Enter still picks.
			s.apply(key{kind: keyDown}, 5)
			assert.Equal(t, 1, s.st().cursor)
		})
	}
}

// Wide characters and combining marks in a preview: every line of the box
// is as wide as its borders, so the right border stays in one column;
// lines too wide wrap, keeping their indentation.
func TestRenderPreviewAlignment(t *testing.T) {
	p := "┌────────┐\n│ 中文 é │ 👍🏽 e\u0301e\u0301\n└────────┘\n日本語のテキスト 한국어\n" +
		"    " + strings.Repeat("wide 全角 ", 20)
	l := mustLayout(t, previewLayout(p, true))
	for _, cols := range []int{120, 100, 60, 40} {
		s := newPickerState(&l)
		f := s.render(cols, 30, Style{})
		var boxW, n int
		for _, line := range f.lines {
			i := strings.Index(line, "│")
			if i < 0 && !strings.Contains(line, "╭") && !strings.Contains(line, "╰") {
				continue
			}
			// The box part of the line: from its left border on.
			j := strings.IndexAny(line, "│╭╰")
			box := line[j:]
			if boxW == 0 {
				boxW = textWidth(box)
			}
			n++
			assert.Equal(t, boxW, textWidth(box), "cols %d: %q", cols, line)
			assert.LessOrEqual(t, textWidth(line), cols-1)
		}
		assert.Greater(t, n, 6, "cols %d: the box is drawn:\n%s", cols, strings.Join(f.lines, "\n"))
		text := strings.Join(f.lines, "\n")
		assert.Contains(t, text, "中文 é")
		assert.Contains(t, text, "e\u0301e\u0301")
		assert.Regexp(t, `│     wide 全角`, text, "a wrapped line keeps its indentation")
		assert.NotRegexp(t, `│ wide`, text)
	}
}

// A preview the core did not make safe (a host's layout) still cannot
// reach the terminal: controls are dropped, the frame keeps its shape.
func TestRenderPreviewHostile(t *testing.T) {
	p := "\x1b]0;pwned\x07title\x1b[2J\x1b[31mred\r\x08\u202eevil\u0085next\x00\n\tTAB"
	l := mustLayout(t, previewLayout(p, false))
	for _, cols := range []int{120, 60} {
		s := newPickerState(&l)
		f := s.render(cols, 24, Style{})
		for _, line := range f.lines {
			assert.NotContains(t, line, "\x1b")
			assert.NotContains(t, line, "\r")
			assert.NotContains(t, line, "\x08")
			assert.NotContains(t, line, "\u202e")
			assert.NotContains(t, line, "\u0085")
			assert.LessOrEqual(t, textWidth(line), cols-1)
		}
		assert.Contains(t, strings.Join(f.lines, "\n"), "TAB")
	}
}

// The notes line: under the question while edited (label, colon, text,
// a cursor; the notes' own key help), then dim text once kept.
func TestRenderNotes(t *testing.T) {
	l := mustLayout(t, layoutSingle)
	s := newPickerState(&l)
	s.apply(key{kind: keyNotes}, 5)
	f := s.render(80, 24, Style{})
	assert.Equal(t, []string{
		"[Database] Which database?",
		"  Notes: _",
		"",
		"❯ 1. PostgreSQL  recommended",
		"  2. SQLite",
		"  3. MySQL",
		"   ✎ Type your own answer",
		"Enter keep notes · Esc cancel",
	}, f.lines)
	for _, r := range "keep v15" {
		s.apply(key{kind: keyRune, r: r}, 5)
	}
	f = s.render(80, 24, Style{})
	assert.Equal(t, "  Notes: keep v15_", f.lines[1])
	s.apply(key{kind: keyEnter}, 5)
	f = s.render(80, 24, Style{Color: true})
	assert.Equal(t, "  "+sgrDim+"Notes: keep v15"+sgrReset, f.lines[1])
	assert.Equal(t, "help", plainSGR(f.lines[len(f.lines)-1]))

	// A long text: its end is shown while edited, it is cut once kept.
	s.apply(key{kind: keyNotes}, 5)
	s.apply(key{kind: keyKillLine}, 5)
	s.apply(key{kind: keyPaste, text: strings.Repeat("long notes ", 20) + "END"}, 5)
	f = s.render(40, 24, Style{})
	assert.True(t, strings.HasPrefix(f.lines[1], "  Notes: …"), f.lines[1])
	assert.True(t, strings.HasSuffix(f.lines[1], "END_"), f.lines[1])
	assert.LessOrEqual(t, textWidth(f.lines[1]), 39)
	s.apply(key{kind: keyEnter}, 5)
	f = s.render(40, 24, Style{})
	assert.True(t, strings.HasSuffix(f.lines[1], "…"), f.lines[1])
	assert.LessOrEqual(t, textWidth(f.lines[1]), 39)

	// Esc cancels the edit: back to what was kept.
	s.apply(key{kind: keyNotes}, 5)
	s.apply(key{kind: keyKillLine}, 5)
	s.apply(key{kind: keyEsc}, 5)
	assert.Equal(t, strings.Repeat("long notes ", 20)+"END", s.pick(0).Notes)
}

// In a terminal too small for the whole question, the notes line and the
// notes' key help stay while the notes are edited.
func TestRenderNotesSmall(t *testing.T) {
	l := mustLayout(t, bigLayout(64, false))
	s := newPickerState(&l)
	s.apply(key{kind: keyNotes}, 5)
	s.apply(key{kind: keyPaste, text: "n"}, 5)
	for _, sz := range [][2]int{{40, 10}, {30, 6}} {
		f := s.render(sz[0], sz[1], Style{})
		assert.Contains(t, f.lines, "  Notes: n_", "%v", sz)
		assert.Contains(t, f.lines[len(f.lines)-1], "Enter keep", "%v", sz)
		assert.LessOrEqual(t, len(f.lines), sz[1]-1)
	}
}

// Notes in a batch are per question; the notes line shows the current
// question's.
func TestRenderNotesBatch(t *testing.T) {
	l := mustLayout(t, layoutBatch)
	s := newPickerState(&l)
	for _, k := range keysOf(t, "ctrl+n t:first enter tab") {
		s.apply(k, 5)
	}
	f := s.render(80, 24, Style{})
	assert.NotContains(t, strings.Join(f.lines, "\n"), "Notes:", "question 2 has none")
	s.apply(key{kind: keyBackTab}, 5)
	f = s.render(80, 24, Style{})
	assert.Contains(t, f.lines, "  Notes: first")
}

// The key help wraps between its parts (at most 2 lines), and is cut on
// the last one.
func TestHelpLines(t *testing.T) {
	h := "↑/↓ move · 1-9 jump · Space toggle · Enter next · Tab/Shift-Tab switch question · Ctrl-N notes · Esc decline"
	assert.Equal(t, []string{h}, helpLines(h, 120, 2))
	assert.Equal(t, []string{
		"↑/↓ move · 1-9 jump · Space toggle · Enter next · Tab/Shift-Tab switch question",
		"Ctrl-N notes · Esc decline",
	}, helpLines(h, 79, 2))
	one := helpLines(h, 83, 1)
	require.Len(t, one, 1)
	assert.Equal(t, 83, textWidth(one[0]))
	assert.True(t, strings.HasPrefix(one[0], "↑/↓ move · 1-9 jump · Space toggle"), one[0])
	assert.True(t, strings.HasSuffix(one[0], "…"), one[0])
	for _, w := range []int{4, 10, 30, 59} {
		ls := helpLines(h, w, 2)
		assert.LessOrEqual(t, len(ls), 2)
		for _, l := range ls {
			assert.LessOrEqual(t, textWidth(l), w, "%q", l)
		}
	}
	assert.Nil(t, helpLines("", 80, 2))
	assert.Equal(t, []string{"no separators here, just a long…"}, helpLines("no separators here, just a long text", 32, 2))
}

// Every frame with previews fits every size, with the cursor on every
// entry, while notes are edited or not, colour or not.
func TestRenderPreviewFits(t *testing.T) {
	sizes := [][2]int{{200, 60}, {120, 40}, {100, 12}, {99, 30}, {80, 24}, {60, 15}, {40, 10}, {30, 8}, {20, 5}, {12, 3}, {8, 2}}
	long := previewLayout(numberedLines(200), true)
	var many []map[string]any
	for i := range 40 {
		many = append(many, map[string]any{"index": i, "label": fmt.Sprintf("Option %d", i+1),
			"description": "a description", "preview": numberedLines(i%7 + 1)})
	}
	b, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"question": "Many?", "multiSelect": false, "entries": many, "custom": "Other", "cursor": 0, "help": "h · i"}}})
	for _, layout := range []string{layoutPreview, long, withCoreTexts(string(b))} {
		l := mustLayout(t, layout)
		for _, sz := range sizes {
			for _, editing := range []bool{false, true} {
				s := newPickerState(&l)
				if editing {
					s.apply(key{kind: keyNotes}, 5)
					s.apply(key{kind: keyPaste, text: "some notes"}, 5)
				}
				for c := range s.entryCount() {
					s.st().cursor = c
					f := s.render(sz[0], sz[1], Style{Color: c%2 == 0})
					require.LessOrEqual(t, len(f.lines), max(sz[1]-1, 1), "size %v cursor %d", sz, c)
					cursorLines := 0
					for _, line := range f.lines {
						plain := plainSGR(line)
						require.LessOrEqual(t, textWidth(plain), max(sz[0]-1, 4), "size %v cursor %d: %q", sz, c, plain)
						if strings.HasPrefix(plain, "❯") {
							cursorLines++
						}
					}
					require.Equal(t, 1, cursorLines, "size %v cursor %d:\n%s", sz, c, strings.Join(f.lines, "\n"))
				}
			}
		}
	}
}
