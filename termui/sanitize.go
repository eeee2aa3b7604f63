package termui

import (
	"strings"
	"unicode/utf8"
)

// SanitizeText makes free text safe to print on a terminal: it drops ESC
// sequences (CSI and OSC whole), other C0 and C1 control characters except
// newline and tab, DEL, and bidi override/isolate/mark characters; a
// carriage return becomes a newline (so "safe\rEVIL" shows both parts
// instead of overwriting one with the other), and invalid UTF-8 becomes
// U+FFFD.
//
// STOPGAP: the core sanitizes everything it returns (present text,
// messages, answers), but has no op for arbitrary text, and the model's
// free text (its reply content) never goes through the core. This filter
// covers that text until the core exposes the rule (e.g. a "sanitize" op);
// then SanitizeText should call it instead.
func SanitizeText(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == 0x1b: // ESC: drop the whole sequence when we can tell its end
			i += size
			i = skipEscape(s, i)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				// CRLF: the LF that follows is enough.
			} else {
				b.WriteByte('\n')
			}
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// other control characters: dropped
		case isBidiControl(r):
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isClean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || isBidiControl(r) {
			return false
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape returns the index just past the escape sequence whose ESC was
// before i: CSI ("[" params final), OSC ("]" ... BEL or ESC "\"), or one
// following character.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', '_', '^', 'X':
		for j := i + 1; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	default:
		if s[i] < 0x80 && s[i] >= 0x20 {
			return i + 1 // a two-character sequence (ESC c, ESC 7, ...)
		}
		return i
	}
}

// skipCSI returns the index past a CSI sequence's parameters and final byte
// starting at i.
func skipCSI(s string, i int) int {
	for j := i; j < len(s); j++ {
		if c := s[j]; c >= 0x40 && c <= 0x7e {
			return j + 1
		} else if c < 0x20 || c > 0x7e {
			return j
		}
	}
	return len(s)
}
