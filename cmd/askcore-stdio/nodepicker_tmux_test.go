package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/missing"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// The Node keyboard picker (hostjs: @askcore/askcore/picker, driven by
// hostjs/test/picker-ask.mjs, the Node twin of "ask") against "askcore-stdio
// ask", on real pseudo-terminals of the same size, from ONE key script: after
// every step both panes are the same, colours included (capture-pane -e),
// and at the end both leave the same history (the summary line) and print
// the same bytes with the same exit status. Skipped without node or tmux.

// nodeStep is one step of a key script: what is typed, then what both
// screens show once it took effect.
type nodeStep struct {
	keys   []string // tmux key names (Down, Enter, Space, BTab, C-w, Escape, ...)
	typed  string   // typed as it is
	paste  string   // pasted (bracketed paste)
	resize [2]int   // cols, rows: both windows resized
	cursor string   // the cursor's entry starts with it
	ends   string   // the cursor's entry ends with it
	want   string   // the screen contains it
}

type nodeCase struct {
	name       string
	args       string // the request
	cols, rows int
	env        string // variables for both commands (NO_COLOR=1 ...)
	stdin      bool   // the request on stdin: keys from /dev/tty
	first      string // the cursor's entry on the first frame
	steps      []nodeStep
	exit       int
	answer     string // the answer both print; "" when it is an error
	once       string // drawn once after a resize (default: askRequest's question)
	// reflow: a resize narrower than the frame's lines, which the terminal
	// reflows, pushing old rows into the scrollback (termui/PICKER.md,
	// "Rendering", Resize): both histories are still the same.
	reflow bool
}

// nodeAsk is the Node twin's command line; without node the test ends as
// missing.Tool says.
func nodeAsk(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing.Tool(t, "node is not installed: the Node picker tests need it; install Node.js (hostjs/package.json, engines)")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "hostjs", "test", "picker-ask.mjs"))
	require.NoError(t, err)
	if _, err := os.Stat(script); err != nil {
		t.Skipf("no %s", script)
	}
	return tmuxtest.Quote(node) + " " + tmuxtest.Quote(script)
}

func TestNodePicker(t *testing.T) {
	nodeCmd := nodeAsk(t)
	// The waits read the visible pane only: a resize pushes old frames into
	// the scrollback.
	server := tmuxtest.New(t, tmuxtest.Config{Unset: modelKeys})
	dir := t.TempDir()

	wideArgs := `{"header":"言語","question":"どの言語で返信しますか？","options":[` +
		`{"label":"日本語","description":"全角の説明文がここに入ります。","recommended":true},` +
		`{"label":"中文（简体）非常长的标签会被截断而不会换行到下一行"},{"label":"Cafe\u0301 cre\u0300me"},` +
		`{"label":"🚀 Emoji 👍 label"},{"label":"한국어"}],"allowCustom":true}`
	hostile := colors(true)
	hostile["question"] = "Which colour?" + escapes
	hostile["options"] = []map[string]any{
		{"label": "Red" + escapes, "value": "red", "description": "Warm." + escapes},
		{"label": "Blue\x1b[31m", "value": "blue", "recommended": true},
	}
	manyArgs := manyOptions(t)
	long := mustJSON(t, map[string]any{"header": "Plan", "question": strings.Repeat("A question long enough to wrap over several lines of a narrow terminal. ", 3),
		"options": []map[string]any{
			{"label": "Alpha", "description": strings.Repeat("A description that wraps, with well-known hyphen-ated words (and brackets), 12.5% numbers. ", 2), "recommended": true},
			{"label": "Beta", "description": "Short."},
		}, "multiSelect": true, "allowCustom": true})

	pickAnswer := func(args string, picks ...askcore.Pick) string {
		answer, _ := pickSummary(t, args, picks...)
		return answer
	}

	cases := []nodeCase{
		{
			name: "single", args: askRequest, cols: 100, rows: 30, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Staging"},
				{keys: []string{"k"}, cursor: "1. Production"},
				{keys: []string{"j"}, cursor: "2. Staging"},
				{keys: []string{"1"}, cursor: "1. Production"},
				{keys: []string{"End"}, cursor: "2. Staging"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(askRequest, askcore.Pick{Options: []int{0}}),
		},
		{
			name: "request on stdin", args: askRequest, cols: 100, rows: 30, stdin: true, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Staging"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(askRequest, askcore.Pick{Options: []int{0}}),
		},
		{
			name: "multi-select and own text", args: featuresArgs, cols: 90, rows: 24, first: "[x] 1. Auth",
			steps: []nodeStep{
				{keys: []string{"Space"}, cursor: "[ ] 1. Auth"},
				{keys: []string{"Enter"}, want: pickRejection(t, featuresArgs, 0, askcore.Pick{Options: []int{}})[:40]},
				{keys: []string{"j", "Space"}, cursor: "[x] 2. Billing"},
				{keys: []string{"3", "Space"}, cursor: "[x] 3. Search"},
				{keys: []string{"Space"}, cursor: "[ ] 3. Search"},
				{keys: []string{"End"}, cursor: "[ ]  ✎ "},
				{typed: "jk own", ends: ": jk own"},
				{keys: []string{"BSpace"}, ends: ": jk ow"},
				{keys: []string{"Up"}, cursor: "[ ] 3. Search"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(featuresArgs, askcore.Pick{Options: []int{1}, Text: "jk ow"}),
		},
		{
			name: "batch with Tab", args: batchArgs, cols: 120, rows: 40, first: "1. Blue",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Red"},
				{keys: []string{"Tab"}, want: "Question 2 of 3"},
				{keys: []string{"Enter"}, want: pickRejection(t, batchArgs, 1, askcore.Pick{Options: []int{}})},
				{keys: []string{"Space"}, cursor: "[x] 1. Lint"},
				{keys: []string{"j", "j", "Space"}, cursor: "[x] 3. Fuzz"},
				{keys: []string{"Tab"}, want: "Question 3 of 3"},
				{typed: "oops one", ends: ": oops one"},
				{keys: []string{"C-w"}, ends: ": oops"},
				{keys: []string{"C-u"}, ends: ":"},
				{paste: "jk\nAuror", ends: ": jk Auror"},
				{typed: "a", ends: ": jk Aurora"},
				{keys: []string{"BTab", "BTab"}, want: "Question 1 of 3"},
				{keys: []string{"Enter"}, want: "✓ Colour"},
				{keys: []string{"Enter"}, want: "✓ 2"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(batchArgs, askcore.Pick{Options: []int{0}}, askcore.Pick{Options: []int{0, 2}}, askcore.Pick{Text: "jk Aurora"}),
		},
		{
			name: "Esc", args: askRequest, cols: 100, rows: 30, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Staging"},
				{keys: []string{"Escape"}, want: "[exit 5]"},
			},
			exit: 5,
		},
		{
			name: "Ctrl-C", args: batchArgs, cols: 100, rows: 30, first: "1. Blue",
			steps: []nodeStep{
				{keys: []string{"Tab"}, want: "Question 2 of 3"},
				{keys: []string{"C-c"}, want: "[exit 3]"},
			},
			exit: 3,
		},
		{
			name: "wide text typed", args: wideArgs, cols: 36, rows: 20, first: "1. 日本語",
			steps: []nodeStep{
				{keys: []string{"End"}, cursor: "✎ "},
				{typed: "中文 e\u0301 👍", ends: ": 中文 e\u0301 👍"},
				{keys: []string{"BSpace"}, ends: ": 中文 e\u0301"},
				{keys: []string{"BSpace", "BSpace"}, ends: ": 中文"},
				{typed: "x", ends: ": 中文 x"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(wideArgs, askcore.Pick{Options: []int{}, Text: "中文 x"}),
		},
		{
			name: "64 options in 12 rows", args: manyArgs, cols: 70, rows: 12, first: "1. Option 1",
			steps: []nodeStep{
				{keys: strings.Fields(strings.Repeat("Down ", 12)), cursor: "13. Option 13"},
				{keys: []string{"End"}, cursor: "✎ "},
				{keys: []string{"PPage"}, want: "↓"},
				{keys: []string{"PPage"}, want: "↑"},
				{keys: []string{"NPage"}, want: "more"},
				{keys: []string{"Home"}, cursor: "1. Option 1"},
				{keys: []string{"9"}, cursor: "9. Option 9"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(manyArgs, askcore.Pick{Options: []int{8}}),
		},
		{
			// The sizes of TestPickerScreen's resize: the frame fits each, so
			// the terminal's reflow leaves nothing behind.
			name: "resize", args: askRequest, cols: 100, rows: 30, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Staging"},
				{resize: [2]int{120, 40}, cursor: "2. Staging"},
				{resize: [2]int{60, 15}, cursor: "2. Staging"},
				{keys: []string{"Up"}, cursor: "1. Production"},
				{resize: [2]int{52, 12}, cursor: "1. Production"},
				{resize: [2]int{80, 24}, cursor: "1. Production"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(askRequest, askcore.Pick{Options: []int{1}}),
		},
		{
			name: "wrapping", args: long, cols: 44, rows: 40, first: "[x] 1. Alpha",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "[ ] 2. Beta"},
				{keys: []string{"End"}, cursor: "[ ]  ✎"},
				{typed: strings.Repeat("typed past the width ", 3), ends: "width"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(long, askcore.Pick{Options: []int{0}, Text: strings.TrimSpace(strings.Repeat("typed past the width ", 3))}),
		},
		{
			name: "compact", args: long, cols: 30, rows: 12, first: "[x] 1. Alpha",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "[ ] 2. Beta"},
				{keys: []string{"Down"}, cursor: "[ ]  ✎"},
				{keys: []string{"Escape"}, want: "[exit 5]"},
			},
			exit: 5,
		},
		{
			name: "NO_COLOR", args: featuresArgs, cols: 100, rows: 30, env: "NO_COLOR=1", first: "[x] 1. Auth",
			steps: []nodeStep{
				{keys: []string{"End"}, cursor: "[ ]  ✎ "},
				{keys: []string{"Escape"}, want: "[exit 5]"},
			},
			exit: 5,
		},
		{
			// Notes (Ctrl-N): the notes line under the question, the notes'
			// key help, letters and digits written there, the edit keys,
			// Esc cancelling the edit only, Enter keeping them; the pick
			// carries them into the answer and the summary.
			name: "notes single", args: askRequest, cols: 100, rows: 30, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Staging"},
				{keys: []string{"C-n"}, want: "Enter keep notes · Esc cancel"},
				{typed: "keep it, j k 1", want: "  Notes: keep it, j k 1"},
				{keys: []string{"BSpace"}, want: "  Notes: keep it, j k\n"},
				{keys: []string{"C-w", "C-w"}, want: "  Notes: keep it,\n"},
				{paste: "a\nb", want: "  Notes: keep it, a b"},
				{keys: []string{"Enter"}, cursor: "2. Staging", want: "Ctrl-N notes · Esc decline"},
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: " and more", want: "keep it, a b and more"},
				{keys: []string{"Escape"}, want: "Ctrl-N notes · Esc decline"},
				{keys: []string{"Up", "Down"}, cursor: "2. Staging", want: "  Notes: keep it, a b"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(askRequest, askcore.Pick{Options: []int{0}, Notes: "keep it, a b"}), // a paste's line break folds to a space
		},
		{
			name: "notes too long", args: askRequest, cols: 100, rows: 30, first: "1. Production",
			steps: []nodeStep{
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{paste: strings.Repeat("n", 2001), want: "  Notes: …n"},
				{keys: []string{"Enter"}, want: "Ctrl-N notes"},
				{keys: []string{"Enter"}, want: pickRejection(t, askRequest, 0, askcore.Pick{Options: []int{1}, Notes: strings.Repeat("n", 2001)})[:30]},
				{keys: []string{"C-n", "C-u"}, want: "Enter keep notes"},
				{typed: "short", want: "  Notes: short"},
				{keys: []string{"Enter"}, want: "Ctrl-N notes"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(askRequest, askcore.Pick{Options: []int{1}, Notes: "short"}),
		},
		{
			name: "notes multi-select and own text", args: featuresArgs, cols: 90, rows: 24, first: "[x] 1. Auth",
			steps: []nodeStep{
				{keys: []string{"End"}, cursor: "[ ]  ✎ "},
				{typed: "mine", ends: ": mine"},
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "jk 12 👍🏽", want: "  Notes: jk 12 👍🏽"},
				{keys: []string{"BSpace"}, want: "  Notes: jk 12\n"},
				{keys: []string{"Enter"}, ends: ": mine", want: "Ctrl-N notes"},
				{keys: []string{"Up", "Space"}, cursor: "[x] 3. Search"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(featuresArgs, askcore.Pick{Options: []int{0, 2}, Text: "mine", Notes: "jk 12"}),
		},
		{
			// Each question of a batch has its own notes; a change to
			// the notes of a confirmed question un-confirms it.
			name: "notes batch", args: batchArgs, cols: 120, rows: 40, first: "1. Blue",
			steps: []nodeStep{
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "one", want: "  Notes: one"},
				{keys: []string{"Enter"}, want: "Ctrl-N notes"},
				{keys: []string{"Enter"}, want: "Question 2 of 3"},
				{keys: []string{"Space"}, cursor: "[x] 1. Lint"},
				{keys: []string{"Enter"}, want: "Question 3 of 3"},
				{typed: "Aurora", ends: ": Aurora"},
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "tentative", want: "  Notes: tentative"},
				{keys: []string{"Enter"}, want: "Ctrl-N notes"},
				{keys: []string{"BTab", "BTab"}, want: "  Notes: one"},
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "!", want: "  Notes: one!"},
				{keys: []string{"Enter"}, want: "[Colour]"},
				{keys: []string{"Enter"}, want: "Question 3 of 3"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(batchArgs, askcore.Pick{Options: []int{1}, Notes: "one!"}, askcore.Pick{Options: []int{0}}, askcore.Pick{Text: "Aurora", Notes: "tentative"}),
		},
		{
			name: "notes in a small terminal", args: manyArgs, cols: 40, rows: 8, first: "1. Option 1",
			steps: []nodeStep{
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "a long note that is wider than the terminal", want: "  Notes: …"},
				{keys: []string{"Enter"}, want: "  Notes: a long"},
				{keys: []string{"Down"}, cursor: "2. Option 2"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(manyArgs, askcore.Pick{Options: []int{1}, Notes: "a long note that is wider than the terminal"}),
		},
		{
			name: "notes NO_COLOR", args: featuresArgs, cols: 100, rows: 30, env: "NO_COLOR=1", first: "[x] 1. Auth",
			steps: []nodeStep{
				{keys: []string{"C-n"}, want: "  Notes: _\n"},
				{typed: "plain", want: "  Notes: plain_\n"},
				{keys: []string{"Enter"}, want: "  Notes: plain\n"},
				{keys: []string{"Escape"}, want: "[exit 5]"},
			},
			exit: 5,
		},
		{
			name: "hostile text", args: mustJSON(t, hostile), cols: 120, rows: 40, first: "1. Blue",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Red"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(mustJSON(t, hostile), askcore.Pick{Options: []int{0}}),
		},
	}

	// Option previews (the core's layout has their words): beside the
	// list from 100 columns, below it under, scrolled with the Shift keys.
	previewArgs := mustJSON(t, map[string]any{"header": "Layout", "question": "Which layout for the settings page?",
		"options": []map[string]any{
			{"label": "Sidebar", "description": "Nav on the left.", "recommended": true,
				"preview": "┌────────┬──────────┐\n│ Nav    │ Content  │\n│ - A    │          │\n└────────┴──────────┘"},
			{"label": "Tabs", "description": "Tabs on top.",
				"preview": "[ A ] [ B ] [ C ]\n-----------------\n  Content here that is a rather long line which wraps at narrow widths"},
			{"label": "Code", "preview": strings.TrimSuffix(strings.Repeat("func step() {\n\treturn 1 // a line\n}\n", 30), "\n")},
			{"label": "Plain"},
		}, "allowCustom": true})
	for _, size := range [][2]int{{120, 40}, {100, 30}, {99, 30}, {80, 40}, {60, 16}} {
		cases = append(cases, nodeCase{
			name: fmt.Sprintf("previews %dx%d", size[0], size[1]), args: previewArgs, cols: size[0], rows: size[1], first: "1. Sidebar",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Tabs", want: "[ A ]"},
				{keys: []string{"Down"}, cursor: "3. Code", want: "func step"},
				{keys: []string{"S-Down", "S-Down", "S-Down"}, want: "↑ 3"},
				{keys: []string{"S-NPage"}, want: "more"},
				{keys: []string{"S-Up"}, want: "more"},
				{keys: []string{"S-PPage"}, want: "more"},
				{keys: []string{"Down"}, cursor: "4. Plain"},
				{keys: []string{"S-Down"}, cursor: "✎"},
				{keys: []string{"S-Up", "Up"}, cursor: "3. Code"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(previewArgs, askcore.Pick{Options: []int{2}}),
		})
	}
	// Notes beside a preview (120 columns) and above one below the list
	// (60), the own answer typed beside the previews.
	for _, size := range [][2]int{{120, 40}, {60, 24}} {
		cases = append(cases, nodeCase{
			name: fmt.Sprintf("previews and notes %dx%d", size[0], size[1]), args: previewArgs, cols: size[0], rows: size[1], first: "1. Sidebar",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Tabs", want: "[ A ]"},
				{keys: []string{"C-n"}, want: "Enter keep notes"},
				{typed: "keep v15", want: "  Notes: keep v15"},
				{keys: []string{"Enter"}, cursor: "2. Tabs", want: "Ctrl-N notes"},
				{keys: []string{"End"}, cursor: "✎"},
				{typed: "table driven", ends: ": table driven"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(previewArgs, askcore.Pick{Options: []int{}, Text: "table driven", Notes: "keep v15"}),
		})
	}
	// Wide text in a preview: CJK, combining marks, an emoji with a skin
	// tone (4 cells, as tmux draws it), wrapped indented lines.
	wideText := mustJSON(t, map[string]any{"question": "Which greeting?", "options": []map[string]any{
		{"label": "日本語", "preview": "こんにちは、世界！\n  Cafe\u0301 cre\u0300me 👍🏽 ok\n    " + strings.Repeat("長い行は折り返されます。", 8)},
		{"label": "Emoji", "preview": "👍🏽👍🏽👍🏽 | three\n👨\u200d👩\u200d👧 | family\n🇫🇷 | flag"},
	}})
	for _, size := range [][2]int{{120, 30}, {60, 24}} {
		cases = append(cases, nodeCase{
			name: fmt.Sprintf("preview wide text %dx%d", size[0], size[1]), args: wideText, cols: size[0], rows: size[1], first: "1. 日本語",
			steps: []nodeStep{
				{keys: []string{"Down"}, cursor: "2. Emoji", want: "family"},
				{keys: []string{"Enter"}, want: "[exit 0]"},
			},
			answer: pickAnswer(wideText, askcore.Pick{Options: []int{1}}),
		})
	}
	// Resizes with a preview shown (the scroll position kept): growing,
	// below the list then beside it, nothing left anywhere; shrinking,
	// beside then below, the live frame the same at each size.
	cases = append(cases, nodeCase{
		name: "previews resize wider", args: previewArgs, cols: 60, rows: 24, first: "1. Sidebar", once: "Which layout",
		steps: []nodeStep{
			{keys: []string{"Down", "Down"}, cursor: "3. Code", want: "func step"},
			{keys: []string{"S-Down"}, want: "↑ 1"},
			{resize: [2]int{100, 30}, cursor: "3. Code", want: "↑ 1"},
			{resize: [2]int{120, 40}, cursor: "3. Code", want: "↑ 1"},
			{resize: [2]int{130, 40}, cursor: "3. Code", want: "↑ 1"},
			{keys: []string{"Enter"}, want: "[exit 0]"},
		},
		answer: pickAnswer(previewArgs, askcore.Pick{Options: []int{2}}),
	}, nodeCase{
		name: "previews resize narrower", args: previewArgs, cols: 130, rows: 40, first: "1. Sidebar", once: "Which layout", reflow: true,
		steps: []nodeStep{
			{keys: []string{"Down", "Down"}, cursor: "3. Code", want: "func step"},
			{keys: []string{"S-Down", "S-Down"}, want: "↑ 2"},
			{resize: [2]int{100, 30}, cursor: "3. Code", want: "↑ 2"},
			{resize: [2]int{120, 40}, cursor: "3. Code", want: "↑ 2"},
			{resize: [2]int{70, 30}, cursor: "3. Code", want: "↑ 2"},
			{resize: [2]int{60, 24}, cursor: "3. Code", want: "↑ 2"},
			{keys: []string{"Enter"}, want: "[exit 0]"},
		},
		answer: pickAnswer(previewArgs, askcore.Pick{Options: []int{2}}),
	})

	// The cases run in parallel (go test's -parallel, GOMAXPROCS by
	// default): each has its own two sessions and files, and most of a
	// case is waiting for two screens, which overlaps well.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tm := server.With(t)
			slug := strings.NewReplacer(" ", "-", "_", "-").Replace(c.name)
			req := writeFile(t, dir, slug+".json", c.args)
			sessions := map[string]string{"go": bin + " ask --engine wasm", "js": nodeCmd}
			outs := map[string]string{}
			for who, cmd := range sessions {
				out := filepath.Join(dir, slug+"."+who+".out")
				outs[who] = out
				env := c.env
				if env != "" {
					env += " "
				}
				line := fmt.Sprintf(`echo before; %s%s --request "$(cat %s)" > %s`, env, cmd, req, tmuxtest.Quote(out))
				if c.stdin {
					line = fmt.Sprintf(`echo before; cat %s | %s%s > %s`, req, env, cmd, tmuxtest.Quote(out))
				}
				tm.Session(who+"-"+slug, c.cols, c.rows, line)
			}
			goS, jsS := "go-"+slug, "js-"+slug
			both := func(f func(name string)) { f(goS); f(jsS) }
			step := func(i int, s nodeStep) {
				cond := func(scr string) bool {
					cur := tmuxtest.CursorLine(scr)
					if s.cursor != "" && !strings.HasPrefix(cur, s.cursor) {
						return false
					}
					if s.ends != "" && !strings.HasSuffix(cur, s.ends) {
						return false
					}
					once := c.once
					if once == "" {
						once = "Deploy to"
					}
					if s.resize != [2]int{} && (!fits(scr, s.resize[0], s.resize[1]) || strings.Count(scr, "❯") != 1 || strings.Count(scr, once) != 1) {
						return false // not drawn for the new size yet
					}
					return s.want == "" || strings.Contains(scr, s.want)
				}
				both(func(name string) { tm.WaitScreen(name, fmt.Sprintf("step %d (%+v)", i, s), cond) })
				samePanes(t, tm, goS, jsS, fmt.Sprintf("after step %d (%+v)", i, s))
			}
			step(0, nodeStep{cursor: c.first})
			if c.env == "" {
				assert.Contains(t, tm.Pane(jsS, true), "\x1b[", "colour on a terminal")
			} else {
				assert.NotContains(t, tm.Pane(jsS, true), "\x1b[", "NO_COLOR: no SGR at all")
			}
			for i, s := range c.steps {
				both(func(name string) {
					switch {
					case s.resize != [2]int{}:
						tm.Resize(name, s.resize[0], s.resize[1])
					case s.paste != "":
						tm.Paste(name, s.paste)
					case s.typed != "":
						tm.Type(name, s.typed)
					default:
						tm.Keys(name, s.keys...)
					}
				})
				step(i+1, s)
			}
			exit := fmt.Sprintf("[exit %d]", c.exit)
			both(func(name string) { tm.WaitFor(name, exit) })
			goAll, jsAll := tm.All(goS, true), tm.All(jsS, true)
			assert.Equal(t, goAll, jsAll, "the same history (scrollback and screen) once both ended")
			assert.True(t, strings.HasPrefix(tm.All(jsS, false), "before\n"), "nothing of the picker above the command's line")
			if !c.reflow {
				assert.NotContains(t, tm.All(jsS, false), "❯", "no picker left in the scrollback")
			}
			goOut, err := os.ReadFile(outs["go"])
			require.NoError(t, err)
			jsOut, err := os.ReadFile(outs["js"])
			require.NoError(t, err)
			assert.Equal(t, string(goOut), string(jsOut), "the same answer bytes")
			if c.answer != "" {
				assert.Equal(t, c.answer+"\n", string(jsOut))
			}
		})
	}
}

// samePanes waits until both panes are the same, colours included (the
// slower one may still be drawing: on a loaded machine that can take
// seconds), and stops the test with both when they stay different (the
// first difference is the one to read; each later step would wait its
// full patience again).
func samePanes(t *testing.T, tm *tmuxtest.Server, a, b, what string) {
	t.Helper()
	var pa, pb string
	if !tm.Poll(func() bool { pa, pb = tm.Pane(a, true), tm.Pane(b, true); return pa == pb }) {
		require.Equal(t, pa, pb, "the Go and the Node picker draw the same %s", what)
	}
}

// TestNodePickerLineMode: wherever the core's terminal op says line mode,
// the Node twin answers in the readline line mode (its own prompt, the
// core's present text), with the same answer as askcore-stdio's line mode.
func TestNodePickerLineMode(t *testing.T) {
	nodeCmd := nodeAsk(t)
	server := newTmux(t)
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	want := `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}` + "\n"
	for _, c := range []struct{ name, prefix, flag string }{
		{"TERM=dumb", "TERM=dumb ", ""},
		{"--plain", "", " --plain"},
		{"ASKCORE_PLAIN=1", "ASKCORE_PLAIN=1 ", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := server.With(t)
			name := strings.NewReplacer("=", "-").Replace(strings.TrimLeft(c.name, "-"))
			outs := map[string]string{}
			for who, cmd := range map[string]string{"go": bin + " ask --engine wasm", "js": nodeCmd} {
				outs[who] = filepath.Join(dir, name+"."+who)
				tm.Session(who+"-"+name, 120, 40, fmt.Sprintf(`%s%s%s --request "$(cat %s)" > %s`, c.prefix, cmd, c.flag, req, tmuxtest.Quote(outs[who])))
			}
			for _, who := range []string{"go", "js"} {
				scr := tm.WaitFor(who+"-"+name, "1. Production (recommended)")
				assert.Contains(t, scr, present(t, askRequest, 0))
				assert.NotContains(t, scr, "❯")
				tm.Line(who+"-"+name, "2")
				scr = tm.WaitFor(who+"-"+name, "[exit 0]")
				assert.Contains(t, scr, "→ Staging\n")
				b, err := os.ReadFile(outs[who])
				require.NoError(t, err)
				assert.Equal(t, want, string(b), who)
			}
		})
	}
}

// TestNodePickerSignals: SIGTERM and SIGINT from elsewhere while the
// picker is up, for both: the picker is erased, the terminal cooked
// again, and the same error bytes and exit status (ASK_ABORTED with the
// signal as the reason).
func TestNodePickerSignals(t *testing.T) {
	nodeCmd := nodeAsk(t)
	server := tmuxtest.New(t, tmuxtest.Config{Unset: modelKeys})
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tm := server.With(t)
			outs := map[string]string{}
			for who, cmd := range map[string]string{"go": bin + " ask --engine wasm", "js": nodeCmd} {
				name := fmt.Sprintf("%s-%d", who, sig)
				pid := filepath.Join(dir, name+".pid")
				outs[who] = filepath.Join(dir, name+".out")
				script := writeFile(t, dir, name+".sh", fmt.Sprintf("echo $$ > %s\nexec %s --request \"$(cat %s)\"\n", tmuxtest.Quote(pid), cmd, req))
				tm.Session(name, 100, 30, fmt.Sprintf(`echo before; sh %s > %s; echo "status $?"; stty -a | grep -o ' -*icanon'`, script, tmuxtest.Quote(outs[who])))
				tm.WaitCursor(name, "1. Production")
				b, err := os.ReadFile(pid)
				require.NoError(t, err)
				var p int
				_, err = fmt.Sscan(string(b), &p)
				require.NoError(t, err)
				require.NoError(t, syscall.Kill(p, sig))
				scr := tm.WaitFor(name, "status ", "[exit 0]")
				assert.Contains(t, scr, "status 3\n icanon\n", "%s: the terminal is cooked again", who)
				assert.True(t, strings.HasPrefix(tm.All(name, false), "before\nstatus 3\n"), "%s: the picker is erased:\n%s", who, tm.All(name, false))
			}
			assert.Equal(t, tm.All(fmt.Sprintf("go-%d", sig), true), tm.All(fmt.Sprintf("js-%d", sig), true))
			goOut, err := os.ReadFile(outs["go"])
			require.NoError(t, err)
			jsOut, err := os.ReadFile(outs["js"])
			require.NoError(t, err)
			assert.Equal(t, string(goOut), string(jsOut))
		})
	}
}
