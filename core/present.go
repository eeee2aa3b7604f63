package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// presentQuestion lays out question i of a normalized call; a batch's
// text starts with a line saying which question of how many it is.
func presentQuestion(a *call, i int) presentation {
	p := present(&a.Questions[i])
	if a.Batch {
		p.Text = questionPosition(i, len(a.Questions)) + "\n" + p.Text
	}
	return p
}

// questionPosition is "Question 2 of 3".
func questionPosition(i, n int) string {
	return "Question " + strconv.Itoa(i+1) + " of " + strconv.Itoa(n)
}

// present lays out a normalized question:
//
//	[Database] Which database should I use?
//
//	  1. PostgreSQL (recommended)
//	     Reliable; needs a server.
//	  2. SQLite
//	     Preview:
//	         sqlite3 app.db
//	     (end of preview)
//
//	Type 1-2 or a label, or type your own answer. Enter picks 1 (PostgreSQL).
//
// A preview is printed whole under its option, indented four more columns
// and bounded by a line before and after it, which a screen reader reads
// as they are.
func present(r *request) presentation {
	order := r.displayOrder()
	var b strings.Builder
	if r.Header != "" {
		b.WriteString("[")
		b.WriteString(r.Header)
		b.WriteString("] ")
	}
	b.WriteString(r.Question)
	b.WriteString("\n")
	if len(order) > 0 {
		b.WriteString("\n")
		width := len(strconv.Itoa(len(order)))
		indent := strings.Repeat(" ", 2+width+2)
		for n, i := range order {
			o := &r.Options[i]
			num := strconv.Itoa(n + 1)
			b.WriteString("  ")
			b.WriteString(strings.Repeat(" ", width-len(num)))
			b.WriteString(num)
			b.WriteString(". ")
			b.WriteString(o.Label)
			if o.Recommended {
				b.WriteString(" (recommended)")
			}
			b.WriteString("\n")
			if o.Description != "" {
				for _, line := range strings.Split(o.Description, "\n") {
					if line != "" {
						b.WriteString(indent)
						b.WriteString(line)
					}
					b.WriteString("\n")
				}
			}
			if o.Preview != "" {
				b.WriteString(indent)
				b.WriteString(previewStart)
				b.WriteString("\n")
				for _, line := range strings.Split(o.Preview, "\n") {
					if line != "" {
						b.WriteString(indent)
						b.WriteString("    ")
						b.WriteString(line)
					}
					b.WriteString("\n")
				}
				b.WriteString(indent)
				b.WriteString(previewEnd)
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\n")
	b.WriteString(hint(r, order))
	return presentation{Text: b.String(), Order: order}
}

// The lines that bound a preview in line mode.
const (
	previewStart = "Preview:"
	previewEnd   = "(end of preview)"
)

// hint is the one line that says how to answer.
func hint(r *request, order []int) string {
	n := len(order)
	if n == 0 {
		return "Type your answer and press Enter."
	}
	var b strings.Builder
	b.WriteString("Type ")
	switch {
	case r.MultiSelect:
		b.WriteString("the numbers (1-")
		b.WriteString(strconv.Itoa(n))
		b.WriteString(") or labels of the options you choose, separated by commas")
	case n == 1:
		b.WriteString("1 or the label")
	default:
		b.WriteString("a number (1-")
		b.WriteString(strconv.Itoa(n))
		b.WriteString(") or a label")
	}
	if r.AllowCustom {
		if r.MultiSelect {
			b.WriteString(", and your own answer if you like")
		} else {
			b.WriteString(", or type your own answer")
		}
	}
	b.WriteString(".")
	if r.MultiSelect {
		// Recommended options are displayed first: they are 1..k.
		var nums, labels []string
		for _, i := range order {
			if !r.Options[i].Recommended {
				break
			}
			nums = append(nums, strconv.Itoa(len(nums)+1))
			labels = append(labels, r.Options[i].Label)
		}
		if len(nums) > 0 {
			b.WriteString(" Enter picks ")
			b.WriteString(strings.Join(nums, ", "))
			b.WriteString(" (")
			b.WriteString(strings.Join(labels, ", "))
			b.WriteString(").")
		}
	} else if d := r.defaultIndex(); d >= 0 {
		b.WriteString(" Enter picks 1 (")
		b.WriteString(r.Options[d].Label)
		b.WriteString(").")
	}
	return b.String()
}

func appendPresentation(b []byte, p *presentation) []byte {
	b = append(b, `{"text":`...)
	b = jsonx.AppendString(b, p.Text)
	b = append(b, `,"order":[`...)
	for i, x := range p.Order {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendInt(b, x)
	}
	return append(b, "]}"...)
}

// JSON returns the presentation as op "present" writes it.
func (p presentation) JSON() []byte { return appendPresentation(nil, &p) }
