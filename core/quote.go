package core

// maxQuoteChars bounds model text quoted in a message or shown as a title
// (an unknown op, a choice not offered, a made-up tool name): a few dozen
// characters say which text is meant.
const maxQuoteChars = 40

// sanitizeTitle makes model text fit for one line of a message or a title
// (op "sanitize" with "as":"title"): sanitized, line breaks folded, and cut
// to MaxQuoteChars characters with "…".
func sanitizeTitle(s string) string { return cut(sanitize(s, false), maxQuoteChars) }

// cut shortens s to max characters, marking the cut with "…".
func cut(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// head returns the first n characters of s (invalid UTF-8 bytes count one
// each, as they decode to U+FFFD one each).
func head(s string, n int) string {
	c := 0
	for i := range s {
		if c == n {
			return s[:i]
		}
		c++
	}
	return s
}
