package core

import (
	"strings"
	"testing"
)

// TestWrapRows pins how Claude Code's message rows are broken: at the
// last space that fits, a word longer than a row split, no row longer
// than the width and no text lost.
func TestWrapRows(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"fits exactly", 12, []string{"fits exactly"}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one  two", 4, []string{"one", "two"}},
		{"abcdefghij kl", 4, []string{"abcd", "efgh", "ij", "kl"}},
		{"héllo wörld", 5, []string{"héllo", "wörld"}},
	}
	for _, c := range cases {
		got := wrapRows(c.in, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapRows(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
		for _, row := range got {
			if chars(row) > c.width {
				t.Errorf("wrapRows(%q, %d): row %q is longer than %d", c.in, c.width, row, c.width)
			}
		}
	}
}

// TestContextRows: a question in the rows left is whole when it fits;
// else its last row ends with " …" within the width and the rest of the
// question follows "…", so that rows and rest together hold every word.
func TestContextRows(t *testing.T) {
	q := strings.TrimSpace(strings.Repeat("word ", 80)) // 399 characters: 4 rows
	for room := 0; room <= 5; room++ {
		rows, rest := contextRows(q, room)
		if len(rows) > room {
			t.Fatalf("room %d: %d rows", room, len(rows))
		}
		for _, row := range rows {
			if chars(row) > claudeRowChars {
				t.Errorf("room %d: row of %d characters", room, chars(row))
			}
		}
		shown := strings.TrimSuffix(strings.Join(rows, " "), " …")
		switch {
		case room >= 4:
			if rest != "" || shown != q {
				t.Errorf("room %d: not whole: rows %q, rest %q", room, rows, rest)
			}
		case room == 0:
			if rows != nil || rest != q {
				t.Errorf("room 0: rows %q, rest %q", rows, rest)
			}
		default:
			if !strings.HasSuffix(rows[len(rows)-1], " …") || !strings.HasPrefix(rest, "…") {
				t.Errorf("room %d: the cut is not marked: rows %q, rest %q", room, rows, rest)
			}
			if got := shown + " " + strings.TrimPrefix(rest, "…"); got != q {
				t.Errorf("room %d: rows and rest lose text: %q", room, got)
			}
		}
	}
}
