package core

// MaxQuoteChars bounds model text quoted in a message or shown as a title
// (an unknown op, a choice not offered, a made-up tool name): a few dozen
// characters say which text is meant.
const MaxQuoteChars = 40

// SanitizeTitle makes model text fit for one line of a message or a title
// (op "sanitize" with "as":"title"): sanitized, line breaks folded, and cut
// to MaxQuoteChars characters with "…".
func SanitizeTitle(s string) string { return cut(sanitize(s, false), MaxQuoteChars) }

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
