package termui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func plainSGR(s string) string { return sgrRE.ReplaceAllString(s, "") }

// bigLayout has n options with descriptions, labels in several scripts,
// and a long question.
func bigLayout(n int, multi bool) string {
	labels := []string{"PostgreSQL", "数据库选项", "Café crème", "🚀 Rocket", "e\u0301e\u0301 combining", "한국어 레이블", "A very long label that goes on and on past the width of any narrow terminal"}
	type entry struct {
		Index       int    `json:"index"`
		Label       string `json:"label"`
		Description string `json:"description,omitempty"`
		Recommended bool   `json:"recommended,omitempty"`
	}
	var es []entry
	for i := range n {
		e := entry{Index: i, Label: fmt.Sprintf("%s %d", labels[i%len(labels)], i+1)}
		if i%2 == 0 {
			e.Description = strings.Repeat("説明 description words ", 1+i%4)
		}
		e.Recommended = i == 0
		es = append(es, e)
	}
	q := map[string]any{
		"header": "Choice", "question": strings.Repeat("Which one of these many options should we use? ", 3),
		"multiSelect": multi, "entries": es, "custom": "Type your own answer", "cursor": 0,
		"help": "↑/↓ move · 1-9 jump · Enter choose · Esc decline",
	}
	if multi {
		q["toggled"] = []int{0}
	}
	b, _ := json.Marshal(map[string]any{"questions": []any{q}})
	return withCoreTexts(string(b))
}

// Every frame fits the terminal: no line wider than cols-1 cells, no more
// lines than rows-1, the cursor's entry always shown, whatever the size,
// the cursor, the scripts in the labels, colour or not.
func TestRenderFits(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}, {40, 10}, {30, 8}, {20, 5}, {12, 3}, {8, 2}, {80, 1}}
	for _, layout := range []string{bigLayout(64, false), bigLayout(64, true), bigLayout(3, false), layoutBatch, layoutText} {
		l := mustLayout(t, layout)
		for _, sz := range sizes {
			for _, color := range []bool{false, true} {
				s := newPickerState(&l)
				n := s.entryCount()
				for c := range n {
					s.st().cursor = c
					f := s.render(sz[0], sz[1], Style{Color: color})
					require.LessOrEqual(t, len(f.lines), max(sz[1]-1, 1), "size %v cursor %d", sz, c)
					cursorLines := 0
					for _, line := range f.lines {
						plain := plainSGR(line)
						if !color {
							require.NotContains(t, line, "\x1b", "no escape sequences without colour")
						}
						require.LessOrEqual(t, textWidth(plain), max(sz[0]-1, 4), "size %v cursor %d: %q", sz, c, plain)
						if strings.HasPrefix(plain, "❯") {
							cursorLines++
						}
					}
					require.Equal(t, 1, cursorLines, "size %v cursor %d: the cursor's entry is shown once:\n%s", sz, c, strings.Join(f.lines, "\n"))
				}
			}
		}
	}
}

func TestRenderSingle(t *testing.T) {
	l := mustLayout(t, layoutSingle)
	s := newPickerState(&l)
	f := s.render(80, 24, Style{})
	assert.Equal(t, []string{
		"[Database] Which database?",
		"",
		"❯ 1. PostgreSQL  recommended",
		"  2. SQLite",
		"  3. MySQL",
		"   ✎ Type your own answer",
		"help",
	}, f.lines)

	// On the own answer: label, colon, the text, a cursor.
	s.apply(key{kind: keyEnd}, 5)
	for _, r := range "jk" {
		s.apply(key{kind: keyRune, r: r}, 5)
	}
	f = s.render(80, 24, Style{})
	assert.Equal(t, "❯  ✎ Type your own answer: jk_", f.lines[5])

	// A rejected Enter shows the host's message above the help.
	s.reject("Choose one of the options.")
	f = s.render(80, 24, Style{})
	assert.Equal(t, []string{"Choose one of the options.", "help"}, f.lines[6:])
}

func TestRenderMultiAndBatch(t *testing.T) {
	l := mustLayout(t, layoutMulti)
	s := newPickerState(&l)
	f := s.render(80, 24, Style{})
	assert.Equal(t, []string{
		"Which features?",
		"",
		"❯ [x] 1. Auth  recommended",
		"  [x] 2. Cache  recommended",
		"  [ ] 3. Logs",
		"  [ ]  ✎ Other",
		"h",
	}, f.lines)

	l = mustLayout(t, layoutBatch)
	s = newPickerState(&l)
	s.apply(key{kind: keyEnter}, 5)
	s.accept()
	f = s.render(80, 24, Style{})
	assert.Equal(t, []string{
		" ✓ DB  [Extras]  3 ",
		"Question 2 of 3",
		"[Extras] Which extras?",
		"",
		"❯ [ ] 1. Auth",
		"  [ ] 2. Cache",
		"  [ ]  ✎ Other",
		"h",
	}, f.lines)
}

// A list taller than the terminal scrolls: ↑/↓ say how many entries are
// hidden, the cursor's entry is always in view.
func TestRenderScrolls(t *testing.T) {
	l := mustLayout(t, bigLayout(64, false))
	s := newPickerState(&l)
	s.st().cursor = 40
	f := s.render(60, 14, Style{})
	text := strings.Join(f.lines, "\n")
	assert.Regexp(t, `(?m)^  ↑ \d+ more$`, text)
	assert.Regexp(t, `(?m)^  ↓ \d+ more$`, text)
	assert.Regexp(t, `(?m)^❯ 41\. `, text)
	assert.LessOrEqual(t, len(f.lines), 13)

	// Moving down one keeps the window where it was while the cursor
	// stays in view (no jumping).
	top := s.st().top
	s.apply(key{kind: keyDown}, f.page)
	s.render(60, 14, Style{})
	assert.LessOrEqual(t, s.st().top-top, 1, "the window moves by at most one entry")
	assert.GreaterOrEqual(t, s.st().top, top)

	// The last entry: nothing hidden below.
	s.st().cursor = 64
	f = s.render(60, 14, Style{})
	assert.NotRegexp(t, `(?m)^  ↓ `, strings.Join(f.lines, "\n"))
	assert.Contains(t, f.lines[len(f.lines)-2], "✎")
}
