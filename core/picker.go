package core

import (
	"github.com/askcore/askcore/core/internal/jsonx"
)

// Texts a keyboard picker shows besides the request's own (op "picker").
const (
	pickerCustom       = "Type your own answer"
	pickerAnswer       = "Type your answer"
	pickerRecommended  = "recommended"
	pickerMoveHelp     = "↑/↓ move"
	pickerDigitsHelp   = "1-9 jump"
	pickerToggleHelp   = "Space toggle"
	pickerChooseHelp   = "Enter choose"
	pickerConfirmHelp  = "Enter confirm"
	pickerNextHelp     = "Enter next"
	pickerSubmitHelp   = "Enter submit"
	pickerSwitchHelp   = "Tab/Shift-Tab switch question"
	pickerNotesKeyHelp = "Ctrl-N notes"
	pickerDeclineHelp  = "Esc decline"
	pickerTypeHelp     = "type to answer"
	pickerHelpSep      = " · "
	pickerTogglePrefix = "[x] "
	pickerOffPrefix    = "[ ] "
	pickerMore         = "more"
	pickerDeclined     = "✗ declined"
	pickerInterrupted  = "✗ dismissed (Ctrl-C)"
	pickerNotes        = "Notes"
	pickerNotesHelp    = "Enter keep notes · Esc cancel"
	pickerPreviewTitle = "Preview"
	pickerPreviewHelp  = "Shift-↑/↓ scroll"
)

// appendPicker writes what a keyboard picker (docs/SPEC.md) shows
// for a normalized call: per question its texts, its entries in display
// order (each with its position in the request, which a pick sends back),
// the label of the own-answer entry when free text is allowed, where the
// cursor starts, what starts toggled on, and one line of key help. Then the
// words drawn around them: the note after a recommended entry, the
// multi-select prefixes, the word after a count of hidden lines, the lines
// left after Esc and Ctrl-C, the label of the notes line and the key help
// shown while notes are edited, the title of the preview box and the key
// help on its border when the preview scrolls.
//
//	{"questions":[{"position"?,"header"?,"question","multiSelect",
//	  "entries":[{"index","label","description"?,"preview"?,"recommended"?}],
//	  "custom"?,"cursor","toggled","help"}],
//	 "recommended":"recommended","on":"[x] ","off":"[ ] ","more":"more",
//	 "declined":"✗ declined","interrupted":"✗ dismissed (Ctrl-C)",
//	 "notes":"Notes","notesHelp":"Enter keep notes · Esc cancel",
//	 "previewTitle":"Preview","previewHelp":"Shift-↑/↓ scroll"}
func appendPicker(b []byte, a *call) []byte {
	b = append(b, `{"questions":[`...)
	for i := range a.Questions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPickerQuestion(b, a, i)
	}
	b = append(b, `],"recommended":`...)
	b = jsonx.AppendString(b, pickerRecommended)
	b = append(b, `,"on":`...)
	b = jsonx.AppendString(b, pickerTogglePrefix)
	b = append(b, `,"off":`...)
	b = jsonx.AppendString(b, pickerOffPrefix)
	b = append(b, `,"more":`...)
	b = jsonx.AppendString(b, pickerMore)
	b = append(b, `,"declined":`...)
	b = jsonx.AppendString(b, pickerDeclined)
	b = append(b, `,"interrupted":`...)
	b = jsonx.AppendString(b, pickerInterrupted)
	b = append(b, `,"notes":`...)
	b = jsonx.AppendString(b, pickerNotes)
	b = append(b, `,"notesHelp":`...)
	b = jsonx.AppendString(b, pickerNotesHelp)
	b = append(b, `,"previewTitle":`...)
	b = jsonx.AppendString(b, pickerPreviewTitle)
	b = append(b, `,"previewHelp":`...)
	b = jsonx.AppendString(b, pickerPreviewHelp)
	return append(b, '}')
}

func appendPickerQuestion(b []byte, a *call, i int) []byte {
	r := &a.Questions[i]
	b = append(b, '{')
	if a.Batch {
		b = append(b, `"position":`...)
		b = jsonx.AppendString(b, questionPosition(i, len(a.Questions)))
		b = append(b, ',')
	}
	if r.Header != "" {
		b = append(b, `"header":`...)
		b = jsonx.AppendString(b, r.Header)
		b = append(b, ',')
	}
	b = append(b, `"question":`...)
	b = jsonx.AppendString(b, r.Question)
	b = append(b, `,"multiSelect":`...)
	b = jsonx.AppendBool(b, r.MultiSelect)
	b = append(b, `,"entries":[`...)
	var ob [MaxOptions]int
	for n, oi := range r.appendDisplayOrder(ob[:0]) {
		o := &r.Options[oi]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = jsonx.AppendInt(b, oi)
		b = append(b, `,"label":`...)
		b = jsonx.AppendString(b, o.Label)
		if o.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonx.AppendString(b, o.Description)
		}
		if o.Preview != "" {
			b = append(b, `,"preview":`...)
			b = jsonx.AppendString(b, o.Preview)
		}
		if o.Recommended {
			b = append(b, `,"recommended":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.AllowCustom {
		b = append(b, `,"custom":`...)
		if len(r.Options) == 0 {
			b = jsonx.AppendString(b, pickerAnswer)
		} else {
			b = jsonx.AppendString(b, pickerCustom)
		}
	}
	// Recommended options are displayed first, so the cursor starts on
	// the first entry: the default when there is one.
	b = append(b, `,"cursor":0,"toggled":[`...)
	if r.MultiSelect {
		first := true
		for oi := range r.Options {
			if r.Options[oi].Recommended {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = jsonx.AppendInt(b, oi)
			}
		}
	}
	b = append(b, `],"help":`...)
	b = jsonx.AppendString(b, pickerHelp(a, i))
	return append(b, '}')
}

// pickerHelp is the key help line of question i.
func pickerHelp(a *call, i int) string {
	r := &a.Questions[i]
	var parts []string
	if len(r.Options) == 0 {
		parts = append(parts, pickerTypeHelp)
	} else {
		parts = append(parts, pickerMoveHelp, pickerDigitsHelp)
		if r.MultiSelect {
			parts = append(parts, pickerToggleHelp)
		}
	}
	switch {
	case a.Batch && i < len(a.Questions)-1:
		parts = append(parts, pickerNextHelp)
	case a.Batch:
		parts = append(parts, pickerSubmitHelp)
	case r.MultiSelect || len(r.Options) == 0:
		parts = append(parts, pickerConfirmHelp)
	default:
		parts = append(parts, pickerChooseHelp)
	}
	if a.Batch && len(a.Questions) > 1 {
		parts = append(parts, pickerSwitchHelp)
	}
	parts = append(parts, pickerNotesKeyHelp, pickerDeclineHelp)
	s := ""
	for n, p := range parts {
		if n > 0 {
			s += pickerHelpSep
		}
		s += p
	}
	return s
}
