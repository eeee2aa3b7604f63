package termui

import (
	"slices"
	"strings"
	"unicode"

	"github.com/rivo/uniseg"

	"github.com/askcore/askcore"
)

// The picker's state machine: keys in, actions out. No I/O here, so it is
// tested table by table (picker_state_test.go).

// action is what a key asks the picker loop to do.
type action uint8

const (
	actNone      action = iota // nothing changed
	actRedraw                  // the state changed: draw it
	actConfirm                 // Enter: check the current question's pick
	actDecline                 // Esc
	actInterrupt               // Ctrl-C
)

var actionNames = [...]string{"none", "redraw", "confirm", "decline", "interrupt"}

func (a action) String() string { return actionNames[a] }

// qstate is one question's state.
type qstate struct {
	cursor  int           // entry position; len(entries) is the own-answer entry
	toggled []bool        // by entry position (multi-select)
	text    string        // the own answer typed so far
	checked *askcore.Pick // the pick the host accepted on Enter, if any
	msg     string        // the host's message for the last rejected Enter
	top     int           // first entry shown when the list scrolls

	notes    string // the notes typed so far (sent with the pick)
	editing  bool   // the notes line has the keys (Ctrl-N)
	notesWas string // the notes before this edit, restored by Esc
	pvTop    int    // first preview line shown when the preview scrolls
	pvMax    int    // the largest pvTop of entry pvMaxOf's box in the last frame
	pvMaxOf  int    // the entry pvMax was measured for (-1: none)
}

// pickerState is the whole picker's state.
type pickerState struct {
	l      *Layout
	cur    int // the question shown
	qs     []qstate
	page   int // entries the last frame showed at once
	pvPage int // preview lines the last frame's box showed at once

	descs    map[descKey][]string // wrapped descriptions (picker_render.go)
	previews map[descKey][]string // wrapped previews (picker_preview.go)
	listWs   map[widthKey]int     // list column widths beside previews
}

func newPickerState(l *Layout) *pickerState {
	s := &pickerState{l: l, qs: make([]qstate, len(l.Questions))}
	for i := range l.Questions {
		q := &l.Questions[i]
		qs := &s.qs[i]
		qs.cursor = q.Cursor
		qs.pvMaxOf = -1
		qs.toggled = make([]bool, len(q.Entries))
		for _, t := range q.Toggled {
			for e := range q.Entries {
				if q.Entries[e].Index == t {
					qs.toggled[e] = true
				}
			}
		}
	}
	return s
}

func (s *pickerState) q() *LayoutQuestion { return &s.l.Questions[s.cur] }
func (s *pickerState) st() *qstate        { return &s.qs[s.cur] }

// entryCount counts the current question's entries, the own answer
// included.
func (s *pickerState) entryCount() int { return entryCount(s.q()) }

func entryCount(q *LayoutQuestion) int {
	if q.Custom != "" {
		return len(q.Entries) + 1
	}
	return len(q.Entries)
}

// onText reports whether the cursor is on the own-answer entry (the text
// entry), where typing writes text.
func (s *pickerState) onText() bool {
	q := s.q()
	return q.Custom != "" && s.st().cursor == len(q.Entries)
}

// pick is question i's pick as it stands.
func (s *pickerState) pick(i int) askcore.Pick {
	q, qs := &s.l.Questions[i], &s.qs[i]
	p := askcore.Pick{Options: []int{}, Notes: qs.notes}
	if !q.MultiSelect {
		if q.Custom != "" && qs.cursor == len(q.Entries) {
			p.Text = qs.text
		} else {
			p.Options = append(p.Options, q.Entries[qs.cursor].Index)
		}
		return p
	}
	for e, on := range qs.toggled {
		if on {
			p.Options = append(p.Options, q.Entries[e].Index)
		}
	}
	slices.Sort(p.Options)
	p.Text = qs.text
	return p
}

// confirmed reports whether question i's current pick is the one the host
// accepted (a change after Enter needs Enter again).
func (s *pickerState) confirmed(i int) bool {
	c := s.qs[i].checked
	return c != nil && samePick(*c, s.pick(i))
}

// accept records that the host accepted the current question's pick and
// moves on to the next question not confirmed yet; it reports true when
// every question is confirmed (the batch is complete).
func (s *pickerState) accept() (complete bool) {
	p := s.pick(s.cur)
	s.st().checked = &p
	s.st().msg = ""
	n := len(s.qs)
	for d := 1; d <= n; d++ {
		i := (s.cur + d) % n
		if !s.confirmed(i) {
			s.cur = i
			return false
		}
	}
	return true
}

// reject shows the host's message for the current question.
func (s *pickerState) reject(msg string) { s.st().msg = msg }

// picks returns every question's pick.
func (s *pickerState) picks() []askcore.Pick {
	ps := make([]askcore.Pick, len(s.qs))
	for i := range s.qs {
		ps[i] = s.pick(i)
	}
	return ps
}

// apply handles one key. page is how many entries a page key moves.
func (s *pickerState) apply(k key, page int) action {
	q, qs := s.q(), s.st()
	if qs.editing {
		return s.applyNotes(k)
	}
	n := s.entryCount()
	text := s.onText()
	switch k.kind {
	case keyCtrlC:
		return actInterrupt
	case keyNotes:
		qs.editing, qs.notesWas = true, qs.notes
		qs.msg = ""
		return actRedraw
	case keyShiftUp, keyShiftDown, keyShiftPageUp, keyShiftPageDown:
		if s.preview() == "" {
			// Nothing to scroll: Shift-↑/↓ move as ↑/↓ do.
			switch k.kind {
			case keyShiftUp:
				return s.moveTo(qs.cursor - 1)
			case keyShiftDown:
				return s.moveTo(qs.cursor + 1)
			case keyShiftPageUp:
				return s.moveTo(max(0, qs.cursor-max(1, page)))
			default:
				return s.moveTo(min(n-1, qs.cursor+max(1, page)))
			}
		}
		return s.scrollPreview(k.kind)
	case keyEsc:
		return actDecline
	case keyEnter:
		return actConfirm
	case keyTab:
		return s.switchTo(s.cur + 1)
	case keyBackTab:
		return s.switchTo(s.cur - 1)
	case keyUp:
		return s.moveTo(qs.cursor - 1)
	case keyDown:
		return s.moveTo(qs.cursor + 1)
	case keyPageUp:
		return s.moveTo(max(0, qs.cursor-max(1, page)))
	case keyPageDown:
		return s.moveTo(min(n-1, qs.cursor+max(1, page)))
	case keyHome:
		if text && qs.text != "" {
			return actNone
		}
		return s.moveTo(0)
	case keyEnd:
		if text && qs.text != "" {
			return actNone
		}
		return s.moveTo(n - 1)
	case keyBackspace:
		if !text || qs.text == "" {
			return actNone
		}
		qs.text = dropLastGrapheme(qs.text)
		return s.edited()
	case keyKillLine:
		if !text || qs.text == "" {
			return actNone
		}
		qs.text = ""
		return s.edited()
	case keyKillWord:
		if !text || qs.text == "" {
			return actNone
		}
		qs.text = dropLastWord(qs.text)
		return s.edited()
	case keyPaste:
		if !text || k.text == "" {
			return actNone
		}
		qs.text += k.text
		return s.edited()
	case keyRune:
		if text {
			qs.text += string(k.r)
			return s.edited()
		}
		switch {
		case k.r == 'k':
			return s.moveTo(qs.cursor - 1)
		case k.r == 'j':
			return s.moveTo(qs.cursor + 1)
		case k.r >= '1' && k.r <= '9':
			d := int(k.r - '1')
			if d >= len(q.Entries) {
				return actNone
			}
			return s.moveTo(d)
		case k.r == ' ' && q.MultiSelect:
			qs.toggled[qs.cursor] = !qs.toggled[qs.cursor]
			qs.msg = ""
			return actRedraw
		}
	}
	return actNone
}

// applyNotes handles a key while the notes line has the keys: typing
// edits the notes, Enter keeps them, Esc restores what they were before
// (it cancels the edit only), Ctrl-C still interrupts; other keys do
// nothing.
func (s *pickerState) applyNotes(k key) action {
	qs := s.st()
	switch k.kind {
	case keyCtrlC:
		return actInterrupt
	case keyEnter:
		qs.editing = false
		return s.edited()
	case keyEsc:
		qs.editing, qs.notes = false, qs.notesWas
		return s.edited()
	case keyBackspace:
		if qs.notes == "" {
			return actNone
		}
		qs.notes = dropLastGrapheme(qs.notes)
	case keyKillLine:
		if qs.notes == "" {
			return actNone
		}
		qs.notes = ""
	case keyKillWord:
		if qs.notes == "" {
			return actNone
		}
		qs.notes = dropLastWord(qs.notes)
	case keyPaste:
		if k.text == "" {
			return actNone
		}
		qs.notes += k.text
	case keyRune:
		qs.notes += string(k.r)
	default:
		return actNone
	}
	return s.edited()
}

// preview is the preview of the entry under the cursor ("" for none, and
// on the own-answer entry).
func (s *pickerState) preview() string {
	q, qs := s.q(), s.st()
	if qs.cursor >= len(q.Entries) {
		return ""
	}
	return q.Entries[qs.cursor].Preview
}

// scrollPreview moves the preview of the cursor's entry by a line or a
// page (of the last frame's box, which also says where the preview ends;
// render clamps it again for the next size).
func (s *pickerState) scrollPreview(k keyKind) action {
	qs := s.st()
	// Keys that came in one read are applied before the next frame: the
	// box measured may be another entry's (render clamps the top then).
	limit := len(s.preview())
	if qs.pvMaxOf == qs.cursor {
		limit = qs.pvMax
	}
	step := 1
	if k == keyShiftPageUp || k == keyShiftPageDown {
		step = max(s.pvPage-1, 1)
	}
	if k == keyShiftUp || k == keyShiftPageUp {
		step = -step
	}
	top := max(min(qs.pvTop+step, limit), 0)
	if top == qs.pvTop {
		return actNone
	}
	qs.pvTop = top
	return actRedraw
}

// moveTo puts the cursor on entry e (clamped); a preview shown for the new
// entry starts at its top.
func (s *pickerState) moveTo(e int) action {
	e = max(0, min(s.entryCount()-1, e))
	qs := s.st()
	if e == qs.cursor {
		return actNone
	}
	qs.cursor = e
	qs.msg = ""
	qs.pvTop = 0
	return actRedraw
}

// switchTo shows question i (clamped), keeping every question's state.
func (s *pickerState) switchTo(i int) action {
	i = max(0, min(len(s.qs)-1, i))
	if i == s.cur {
		return actNone
	}
	s.cur = i
	return actRedraw
}

func (s *pickerState) edited() action {
	s.st().msg = ""
	return actRedraw
}

// dropLastGrapheme removes the last user-perceived character (a whole
// grapheme cluster: an emoji with its modifiers, a letter with its
// combining marks).
func dropLastGrapheme(t string) string {
	last := 0
	g := uniseg.NewGraphemes(t)
	for g.Next() {
		last, _ = g.Positions()
	}
	return t[:last]
}

// dropLastWord removes trailing spaces and the word before them.
func dropLastWord(t string) string {
	t = strings.TrimRightFunc(t, unicode.IsSpace)
	i := strings.LastIndexFunc(t, unicode.IsSpace)
	return t[:i+1]
}
