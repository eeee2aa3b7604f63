package termui

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askcore/askcore"
)

// Layout is what the core's picker op returns: everything the keyboard
// picker shows, in display order, already sanitized. The picker adds no
// words of its own: every text it draws is a field here (its only own
// marks are glyphs: the cursor ❯, the own-answer mark ✎, ✓ on a confirmed
// question of a batch, ↑/↓ with a count when the list or a preview
// scrolls, … where text is cut, the preview box's frame ╭─╮│╰╯).
type Layout struct {
	Questions []LayoutQuestion `json:"questions"`

	// The texts drawn around the questions, all the core's:
	// Recommended is the note after a recommended entry (e.g.
	// "recommended"); On and Off prefix a multi-select entry toggled on or
	// off (e.g. "[x] ", "[ ] "); More follows the count of entries
	// scrolled out of view (e.g. "↓ 12 more"). Declined and Interrupted
	// are the lines a host passes to Picker.Done after Esc and after
	// Ctrl-C, where the summary of an answer would go (e.g. "✗ declined",
	// "✗ dismissed (Ctrl-C)"); the picker itself never draws them.
	Recommended string `json:"recommended"`
	On          string `json:"on"`
	Off         string `json:"off"`
	More        string `json:"more"`
	Declined    string `json:"declined"`
	Interrupted string `json:"interrupted"`

	// Notes labels the notes line under the question (e.g. "Notes"), and
	// NotesHelp replaces the key help while the notes are edited (e.g.
	// "Enter keep notes · Esc cancel").
	Notes     string `json:"notes"`
	NotesHelp string `json:"notesHelp"`
	// PreviewTitle is drawn on the top border of the preview box (e.g.
	// "Preview"); PreviewHelp on its bottom border when the preview is
	// taller than the box (e.g. "Shift-↑/↓ scroll").
	PreviewTitle string `json:"previewTitle"`
	PreviewHelp  string `json:"previewHelp"`
}

// LayoutQuestion is one question of the layout.
type LayoutQuestion struct {
	// Position is drawn above the question in a batch (e.g. "Question 2
	// of 3").
	Position string `json:"position,omitempty"`
	// Header is the short chip ("Database"); a batch also names its tabs
	// by it (by the 1-based position when there is none).
	Header   string `json:"header,omitempty"`
	Question string `json:"question"`

	MultiSelect bool `json:"multiSelect"`
	// Entries are the options in display order.
	Entries []LayoutEntry `json:"entries"`
	// Custom is the label of the own-answer entry (also the placeholder of
	// the text entry of an optionless question); empty: free text is not
	// allowed.
	Custom string `json:"custom,omitempty"`
	// Cursor is the entry where the cursor starts (len(Entries): the
	// own-answer entry).
	Cursor int `json:"cursor"`
	// Toggled lists the request indices toggled on at the start
	// (multi-select).
	Toggled []int `json:"toggled,omitempty"`
	// Help is the line of key help drawn under the question.
	Help string `json:"help"`
}

// LayoutEntry is one option of a question.
type LayoutEntry struct {
	// Index is the option's position in the request, sent back in a Pick.
	Index       int    `json:"index"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	// Preview is shown in a box beside the list (below it on a narrow
	// terminal) while the entry has the focus: lines of text whose shape
	// matters (code, a mockup), made safe by the core, tabs expanded.
	Preview string `json:"preview,omitempty"`
	// Recommended entries carry Layout.Recommended after their label.
	Recommended bool `json:"recommended,omitempty"`
}

// DecodeLayout decodes the core's picker result (the "result" member of
// the envelope) and checks that it can be drawn.
func DecodeLayout(b []byte) (Layout, error) {
	var l Layout
	if err := json.Unmarshal(b, &l); err != nil {
		return Layout{}, fmt.Errorf("termui: decoding the picker layout: %w", err)
	}
	if err := l.Validate(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// Validate reports a layout the picker cannot show: no questions, one of
// the texts drawn around them missing (the picker has no words of its own:
// a layout without them is not the core's), a question with neither
// entries nor an own-answer entry, a cursor out of range, a toggled index
// that is no entry's.
func (l *Layout) Validate() error {
	if len(l.Questions) == 0 {
		return errors.New("termui: the picker layout has no questions")
	}
	for _, t := range []struct{ name, text string }{
		{"recommended", l.Recommended}, {"on", l.On}, {"off", l.Off}, {"more", l.More},
		{"declined", l.Declined}, {"interrupted", l.Interrupted},
		{"notes", l.Notes}, {"notesHelp", l.NotesHelp},
		{"previewTitle", l.PreviewTitle}, {"previewHelp", l.PreviewHelp},
	} {
		if t.text == "" {
			return fmt.Errorf("termui: the picker layout has no %q text", t.name)
		}
	}
	for i := range l.Questions {
		q := &l.Questions[i]
		n := len(q.Entries)
		if q.Custom != "" {
			n++
		}
		if n == 0 {
			return fmt.Errorf("termui: picker layout question %d has no entries and no own-answer entry", i+1)
		}
		if q.Cursor < 0 || q.Cursor >= n {
			return fmt.Errorf("termui: picker layout question %d: cursor %d is not an entry (0..%d)", i+1, q.Cursor, n-1)
		}
		seen := map[int]bool{}
		for _, e := range q.Entries {
			if seen[e.Index] {
				return fmt.Errorf("termui: picker layout question %d: two entries with index %d", i+1, e.Index)
			}
			seen[e.Index] = true
		}
		for _, t := range q.Toggled {
			if !seen[t] {
				return fmt.Errorf("termui: picker layout question %d: toggled index %d is no entry's", i+1, t)
			}
		}
	}
	return nil
}

// samePick reports whether p and o chose the same, with the same notes.
func samePick(p, o askcore.Pick) bool {
	if p.Text != o.Text || p.Notes != o.Notes || len(p.Options) != len(o.Options) {
		return false
	}
	for i := range p.Options {
		if p.Options[i] != o.Options[i] {
			return false
		}
	}
	return true
}
