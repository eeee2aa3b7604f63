package termui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
)

// Layouts shaped like the core's picker op writes them, with the core's
// texts (coreTexts).
var (
	layoutSingle = withCoreTexts(`{"questions":[{"header":"Database","question":"Which database?","multiSelect":false,
		"entries":[{"index":1,"label":"PostgreSQL","recommended":true},{"index":0,"label":"SQLite"},{"index":2,"label":"MySQL"}],
		"custom":"Type your own answer","cursor":0,"help":"help"}]}`)
	layoutNoCustom = withCoreTexts(`{"questions":[{"question":"Pick","multiSelect":false,
		"entries":[{"index":0,"label":"A"},{"index":1,"label":"B"}],"cursor":1,"help":"h"}]}`)
	layoutMulti = withCoreTexts(`{"questions":[{"question":"Which features?","multiSelect":true,
		"entries":[{"index":2,"label":"Auth","recommended":true},{"index":0,"label":"Cache","recommended":true},{"index":1,"label":"Logs"}],
		"custom":"Other","cursor":0,"toggled":[0,2],"help":"h"}]}`)
	layoutText  = withCoreTexts(`{"questions":[{"question":"Your name?","multiSelect":false,"entries":[],"custom":"Type your answer","cursor":0,"help":"h"}]}`)
	layoutBatch = withCoreTexts(`{"questions":[
		{"position":"Question 1 of 3","header":"DB","question":"Which database?","multiSelect":false,
		 "entries":[{"index":0,"label":"SQLite"},{"index":1,"label":"PostgreSQL"}],"cursor":0,"help":"h"},
		{"position":"Question 2 of 3","header":"Extras","question":"Which extras?","multiSelect":true,
		 "entries":[{"index":0,"label":"Auth"},{"index":1,"label":"Cache"}],"custom":"Other","cursor":0,"toggled":[],"help":"h"},
		{"position":"Question 3 of 3","question":"Name?","multiSelect":false,"entries":[],"custom":"Type your answer","cursor":0,"help":"h"}]}`)
)

// coreTexts are the texts the core's picker op writes around the
// questions (recommended, on, off, more, declined, interrupted), as a
// JSON object.
var coreTexts = func() map[string]json.RawMessage {
	var env struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(core.Handle([]byte(`{"op":"picker","request":{"question":"?"}}`)), &env); err != nil {
		panic(err)
	}
	delete(env.Result, "questions")
	return env.Result
}()

// withCoreTexts adds coreTexts to a layout's questions.
func withCoreTexts(questions string) string {
	var l map[string]json.RawMessage
	if err := json.Unmarshal([]byte(questions), &l); err != nil {
		panic(err)
	}
	for k, v := range coreTexts {
		l[k] = v
	}
	b, err := json.Marshal(l)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func mustLayout(t testing.TB, s string) Layout {
	t.Helper()
	l, err := DecodeLayout([]byte(s))
	require.NoError(t, err)
	return l
}

// keysOf turns a script into keys: words separated by spaces are key
// names (up down left right home end pgup pgdn enter tab btab esc ctrl+c
// bs ctrl+u ctrl+w space), one character is that key, "t:TEXT" types
// TEXT rune by rune ("_" is a space), "p:TEXT" pastes it.
func keysOf(t testing.TB, script string) []key {
	t.Helper()
	names := map[string]key{
		"up": {kind: keyUp}, "down": {kind: keyDown}, "left": {kind: keyLeft}, "right": {kind: keyRight},
		"home": {kind: keyHome}, "end": {kind: keyEnd}, "pgup": {kind: keyPageUp}, "pgdn": {kind: keyPageDown},
		"enter": {kind: keyEnter}, "tab": {kind: keyTab}, "btab": {kind: keyBackTab}, "esc": {kind: keyEsc},
		"ctrl+c": {kind: keyCtrlC}, "bs": {kind: keyBackspace}, "ctrl+u": {kind: keyKillLine},
		"ctrl+w": {kind: keyKillWord}, "space": {kind: keyRune, r: ' '}, "ctrl+n": {kind: keyNotes},
		"shift+up": {kind: keyShiftUp}, "shift+down": {kind: keyShiftDown},
		"shift+pgup": {kind: keyShiftPageUp}, "shift+pgdn": {kind: keyShiftPageDown},
	}
	var ks []key
	for _, w := range strings.Fields(script) {
		switch {
		case strings.HasPrefix(w, "t:"):
			for _, r := range strings.ReplaceAll(w[2:], "_", " ") {
				ks = append(ks, key{kind: keyRune, r: r})
			}
		case strings.HasPrefix(w, "p:"):
			ks = append(ks, key{kind: keyPaste, text: strings.ReplaceAll(w[2:], "_", " ")})
		case len([]rune(w)) == 1:
			ks = append(ks, key{kind: keyRune, r: []rune(w)[0]})
		default:
			k, ok := names[w]
			require.True(t, ok, "unknown key %q", w)
			ks = append(ks, k)
		}
	}
	return ks
}

// drive plays keys on a fresh state the way Run does, with a check that
// accepts every pick except those with neither options nor text. It
// returns the last action and the picks when the last question was
// confirmed.
func drive(t testing.TB, layout, script string) (*pickerState, action, []askcore.Pick, []string) {
	t.Helper()
	l := mustLayout(t, layout)
	s := newPickerState(&l)
	var last action
	var rejected []string
	for _, k := range keysOf(t, script) {
		last = s.apply(k, 5)
		switch last {
		case actDecline, actInterrupt:
			return s, last, nil, rejected
		case actConfirm:
			p := s.pick(s.cur)
			if len(p.Options) == 0 && p.Text == "" {
				s.reject("empty")
				rejected = append(rejected, "empty")
				continue
			}
			if s.accept() {
				return s, last, s.picks(), rejected
			}
		}
	}
	return s, last, nil, rejected
}

func picksJSON(ps []askcore.Pick) string {
	b, _ := json.Marshal(ps)
	return string(b)
}

func TestPickerStateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, layout, script string
		picks                string // JSON of the picks once the batch is complete; "" none
		last                 action
		cursor               int // the current question's cursor at the end
		rejected             int
	}{
		// Section 9, single-select.
		{"enter takes the start (recommended first)", layoutSingle, "enter", `[{"options":[1],"text":""}]`, actConfirm, 0, 0},
		{"down moves", layoutSingle, "down enter", `[{"options":[0],"text":""}]`, actConfirm, 1, 0},
		{"j/k move", layoutSingle, "j j k enter", `[{"options":[0],"text":""}]`, actConfirm, 1, 0},
		{"up stops at the top", layoutSingle, "up up enter", `[{"options":[1],"text":""}]`, actConfirm, 0, 0},
		{"down stops at the own answer", layoutSingle, "down down down down down", "", actNone, 3, 0},
		{"digit jumps", layoutSingle, "3 enter", `[{"options":[2],"text":""}]`, actConfirm, 2, 0},
		{"digit past the options does nothing", layoutSingle, "t:9", "", actNone, 0, 0},
		{"digit 0 does nothing", layoutSingle, "t:0", "", actNone, 0, 0},
		{"home end", layoutSingle, "end home down enter", `[{"options":[0],"text":""}]`, actConfirm, 1, 0},
		{"pgdn pgup", layoutSingle, "pgdn pgup", "", actRedraw, 0, 0},
		{"esc declines", layoutSingle, "down esc", "", actDecline, 1, 0},
		{"ctrl-c interrupts", layoutSingle, "down ctrl+c", "", actInterrupt, 1, 0},
		{"space does nothing in single-select", layoutSingle, "space", "", actNone, 0, 0},
		{"letters do nothing on an option", layoutSingle, "t:x", "", actNone, 0, 0},
		{"tab does nothing with one question", layoutSingle, "tab btab", "", actNone, 0, 0},
		{"cursor starts where the layout says", layoutNoCustom, "enter", `[{"options":[1],"text":""}]`, actConfirm, 1, 0},
		{"no own-answer entry: down stops at the last option", layoutNoCustom, "down down enter", `[{"options":[1],"text":""}]`, actConfirm, 1, 0},

		// The own-answer entry: typing writes there; j, k, digits and
		// space are letters.
		{"own answer", layoutSingle, "t:4 end t:jk_12 enter", `[{"options":[],"text":"jk 12"}]`, actConfirm, 3, 0},
		{"own answer: backspace ctrl-w ctrl-u", layoutSingle, "end t:one_two bs ctrl+w t:x enter", `[{"options":[],"text":"one x"}]`, actConfirm, 3, 0},
		{"own answer: ctrl-u clears; empty is rejected", layoutSingle, "end t:abc ctrl+u enter", "", actConfirm, 3, 1},
		{"own answer: backspace removes a whole cluster", layoutSingle, "end t:ae\u0301 bs t:b enter", `[{"options":[],"text":"ab"}]`, actConfirm, 3, 0},
		{"own answer: paste", layoutSingle, "end p:hello_world enter", `[{"options":[],"text":"hello world"}]`, actConfirm, 3, 0},
		{"paste on an option does nothing", layoutSingle, "p:x", "", actNone, 0, 0},
		{"text kept when moving away; the option is the pick", layoutSingle, "end t:abc up enter", `[{"options":[2],"text":""}]`, actConfirm, 2, 0},
		{"text kept when coming back", layoutSingle, "end t:abc up down t:d enter", `[{"options":[],"text":"abcd"}]`, actConfirm, 3, 0},
		{"home/end in typed text do nothing", layoutSingle, "end t:a home end t:b enter", `[{"options":[],"text":"ab"}]`, actConfirm, 3, 0},

		// Optionless: a text entry.
		{"text question", layoutText, "t:Ada_jk9 enter", `[{"options":[],"text":"Ada jk9"}]`, actConfirm, 0, 0},
		{"text question: empty is rejected, then answered", layoutText, "enter t:x enter", `[{"options":[],"text":"x"}]`, actConfirm, 0, 1},
		{"text question: up/down do nothing", layoutText, "up down", "", actNone, 0, 0},

		// Multi-select: recommended options start toggled on.
		{"multi: recommended start on", layoutMulti, "enter", `[{"options":[0,2],"text":""}]`, actConfirm, 0, 0},
		{"multi: space toggles", layoutMulti, "space down down space enter", `[{"options":[0,1],"text":""}]`, actConfirm, 2, 0},
		{"multi: none is rejected", layoutMulti, "space down space enter", "", actConfirm, 1, 1},
		{"multi: digits jump, do not toggle", layoutMulti, "3 space enter", `[{"options":[0,1,2],"text":""}]`, actConfirm, 2, 0},
		{"multi: own answer adds text; space is a letter there", layoutMulti, "end t:a_b enter", `[{"options":[0,2],"text":"a b"}]`, actConfirm, 3, 0},

		// Batches: Enter confirms and moves on; Tab/Shift-Tab move without
		// confirming and keep what was chosen.
		{"batch: enter through", layoutBatch, "down enter space enter t:Bo enter",
			`[{"options":[1],"text":""},{"options":[0],"text":""},{"options":[],"text":"Bo"}]`, actConfirm, 0, 0},
		{"batch: tab keeps choices", layoutBatch, "down tab space tab t:Bo btab btab enter enter enter",
			`[{"options":[1],"text":""},{"options":[0],"text":""},{"options":[],"text":"Bo"}]`, actConfirm, 0, 0},
		{"batch: enter on the last goes back to a skipped one", layoutBatch, "tab tab t:Bo enter",
			"", actConfirm, 0, 0},
		{"batch: skipped multi with nothing toggled is rejected", layoutBatch, "enter enter", "", actConfirm, 0, 1},
		{"batch: tab stops at the ends", layoutBatch, "btab tab tab tab tab t:x enter btab btab enter space enter",
			`[{"options":[0],"text":""},{"options":[0],"text":""},{"options":[],"text":"x"}]`, actConfirm, 0, 0},
		{"batch: changing a confirmed answer needs enter again", layoutBatch, "enter space enter btab down enter",
			"", actConfirm, 0, 0},
		{"batch: esc anywhere declines", layoutBatch, "enter tab esc", "", actDecline, 0, 0},

		// Notes (Ctrl-N): a text of their own, kept with Enter, the edit
		// cancelled with Esc; they go with the pick.
		{"notes: ctrl-n, type, enter keeps, enter confirms", layoutSingle, "down ctrl+n t:keep_v15 enter enter",
			`[{"options":[0],"text":"","notes":"keep v15"}]`, actConfirm, 1, 0},
		{"notes: keys are letters there (j k digits space)", layoutSingle, "ctrl+n t:jk_12_ enter enter",
			`[{"options":[1],"text":"","notes":"jk 12 "}]`, actConfirm, 0, 0},
		{"notes: esc cancels the edit only", layoutSingle, "ctrl+n t:abc enter ctrl+n t:def esc enter",
			`[{"options":[1],"text":"","notes":"abc"}]`, actConfirm, 0, 0},
		{"notes: esc on a first edit leaves none", layoutSingle, "ctrl+n t:abc esc enter", `[{"options":[1],"text":""}]`, actConfirm, 0, 0},
		{"notes: edit keys", layoutSingle, "ctrl+n t:one_two bs ctrl+w t:x p:_pasted enter enter",
			`[{"options":[1],"text":"","notes":"one x pasted"}]`, actConfirm, 0, 0},
		{"notes: ctrl-u clears", layoutSingle, "ctrl+n t:abc ctrl+u enter enter", `[{"options":[1],"text":""}]`, actConfirm, 0, 0},
		{"notes: arrows and tab do nothing while editing", layoutSingle, "ctrl+n down up tab t:x enter enter",
			`[{"options":[1],"text":"","notes":"x"}]`, actConfirm, 0, 0},
		{"notes: ctrl-c still interrupts", layoutSingle, "ctrl+n t:x ctrl+c", "", actInterrupt, 0, 0},
		{"notes: beside an own answer", layoutSingle, "end t:mine ctrl+n t:why enter enter",
			`[{"options":[],"text":"mine","notes":"why"}]`, actConfirm, 3, 0},
		{"notes: optionless question", layoutText, "t:Ada ctrl+n t:or_Bo enter t:x enter",
			`[{"options":[],"text":"Adax","notes":"or Bo"}]`, actConfirm, 0, 0},
		{"notes: multi-select", layoutMulti, "ctrl+n t:SSO_only enter space enter",
			`[{"options":[0],"text":"","notes":"SSO only"}]`, actConfirm, 0, 0},
		{"notes: space in notes does not toggle", layoutMulti, "ctrl+n space enter enter",
			`[{"options":[0,2],"text":"","notes":" "}]`, actConfirm, 0, 0},
		{"notes: per question in a batch", layoutBatch, "ctrl+n t:one enter enter space ctrl+n t:two enter enter t:Bo enter",
			`[{"options":[0],"text":"","notes":"one"},{"options":[0],"text":"","notes":"two"},{"options":[],"text":"Bo"}]`, actConfirm, 0, 0},
		{"notes: a change to a confirmed question's notes needs enter again", layoutBatch, "enter space enter btab btab ctrl+n t:late enter tab tab t:Bo enter",
			"", actConfirm, 0, 0},

		// Shift-↑/↓ scroll a preview; without one they move as ↑/↓ do.
		{"shift arrows without a preview move", layoutSingle, "shift+down shift+down shift+up enter", `[{"options":[0],"text":""}]`, actConfirm, 1, 0},
		{"shift pages without a preview move", layoutSingle, "shift+pgdn shift+pgup", "", actRedraw, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, last, picks, rejected := drive(t, tc.layout, tc.script)
			assert.Equal(t, tc.last, last, "last action")
			if tc.picks == "" {
				assert.Nil(t, picks, "the batch must not be complete")
			} else {
				assert.Equal(t, tc.picks, picksJSON(picks))
			}
			assert.Equal(t, tc.cursor, s.st().cursor, "cursor")
			assert.Len(t, rejected, tc.rejected, "rejected picks")
		})
	}
}

func TestPickerStateBatchFlow(t *testing.T) {
	// After Tab to the last question and Enter there, the picker goes back
	// to the first question that is not confirmed.
	s, _, picks, _ := drive(t, layoutBatch, "tab tab t:Bo enter")
	assert.Nil(t, picks)
	assert.Equal(t, 0, s.cur)
	assert.True(t, s.confirmed(2))
	assert.False(t, s.confirmed(0))

	// Changing a confirmed question un-confirms it; Enter there again
	// completes the batch (1 and 2 are confirmed).
	s, _, picks, _ = drive(t, layoutBatch, "enter space enter btab btab down")
	assert.Nil(t, picks)
	assert.False(t, s.confirmed(0), "changed after Enter")
	assert.True(t, s.confirmed(1))
	assert.Equal(t, 0, s.cur)
	assert.Equal(t, actConfirm, s.apply(key{kind: keyEnter}, 5))
	assert.False(t, s.accept(), "question 3 is still open")
	assert.Equal(t, 2, s.cur)
}

func TestPickJSON(t *testing.T) {
	b, err := json.Marshal(askcore.Pick{})
	require.NoError(t, err)
	assert.Equal(t, `{"options":[],"text":""}`, string(b))
	b, err = json.Marshal(askcore.Pick{Options: []int{2, 0}, Text: "a \"b\""})
	require.NoError(t, err)
	assert.Equal(t, `{"options":[2,0],"text":"a \"b\""}`, string(b))
}

func TestLayoutValidate(t *testing.T) {
	for _, tc := range []struct{ name, layout, err string }{
		{"not JSON", `{`, "decoding"},
		{"no questions", withCoreTexts(`{"questions":[]}`), "no questions"},
		{"no texts", `{"questions":[{"question":"q","entries":[],"custom":"o","cursor":0,"help":""}]}`, `no "recommended" text`},
		{"a text missing", strings.Replace(withCoreTexts(`{"questions":[{"question":"q","entries":[],"custom":"o","cursor":0,"help":""}]}`),
			`"more":"`, `"less":"`, 1), `no "more" text`},
		{"nothing to pick", withCoreTexts(`{"questions":[{"question":"q","entries":[],"cursor":0,"help":""}]}`), "no entries"},
		{"cursor out of range", withCoreTexts(`{"questions":[{"question":"q","entries":[{"index":0,"label":"a"}],"cursor":1,"help":""}]}`), "cursor 1"},
		{"cursor on the own answer", withCoreTexts(`{"questions":[{"question":"q","entries":[{"index":0,"label":"a"}],"custom":"o","cursor":1,"help":""}]}`), ""},
		{"toggled unknown", withCoreTexts(`{"questions":[{"question":"q","multiSelect":true,"entries":[{"index":0,"label":"a"}],"cursor":0,"toggled":[3],"help":""}]}`), "toggled index 3"},
		{"duplicate index", withCoreTexts(`{"questions":[{"question":"q","entries":[{"index":0,"label":"a"},{"index":0,"label":"b"}],"cursor":0,"help":""}]}`), "two entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeLayout([]byte(tc.layout))
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.err)
			}
		})
	}
}
