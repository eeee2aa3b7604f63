package core

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sanitizeText makes arbitrary text (a model's reply, an error message)
// safe to show on a terminal or in a client, by the same rules the core
// applies to every request field: escape sequences, controls and bidi
// overrides are removed, line breaks are kept as "\n", and the result is
// trimmed. It is what op "sanitize" returns.
func sanitizeText(s string) string { return sanitize(s, true) }

// sanitize removes from s everything that could drive a terminal or hide
// text (see the package doc, "Sanitization"), then trims it. With multiline
// false, line breaks (and the spaces around them) fold to one space.
func sanitize(s string, multiline bool) string {
	if plainASCII(s) {
		return trim(s)
	}
	return trim(sanitizeKeep(s, multiline))
}

// sanitizeKeep is sanitize without the trim.
func sanitizeKeep(s string, multiline bool) string {
	b := make([]byte, 0, len(s))
	lineBreak := func() {
		if multiline {
			b = append(b, '\n')
			return
		}
		// Fold: drop the spaces before the break; the ones after are
		// skipped while folding.
		for len(b) > 0 && b[len(b)-1] == ' ' {
			b = b[:len(b)-1]
		}
		b = append(b, ' ')
	}
	folding := false // single-line: skipping spaces after a folded break
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, "\uFFFD"...)
			i++
			folding = false
			continue
		case r == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d: // C1 OSC
			i = skipString(s, i+size, true)
			continue
		case r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 DCS, SOS, PM, APC
			i = skipString(s, i+size, false)
			continue
		case r == '\r':
			i += size
			if i < len(s) && s[i] == '\n' {
				i++
			}
			lineBreak()
			folding = !multiline
			continue
		case r == '\n' || r == 0x85 || r == '\u2028' || r == '\u2029':
			i += size
			lineBreak()
			folding = !multiline
			continue
		case r == '\t':
			r = ' '
		case !Shown(r):
			i += size
			continue
		}
		i += size
		if folding && r == ' ' {
			continue
		}
		folding = false
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// previewTab is the tab stop of a preview: every 4 columns.
const previewTab = 4

// sanitizePreview makes an option's preview safe to show, keeping its
// shape: a preview is Markdown read as text (code, an ASCII mockup, a
// config excerpt), so the indentation of every line matters. Tabs are
// expanded to the next multiple of 4 columns (counted in characters) before
// sanitizing, as a tab has no width of its own on every surface; then the
// text is sanitized as a description is, except that the first line keeps
// its leading spaces: only blank lines at both ends and trailing white space
// at the end are removed.
func sanitizePreview(s string) string {
	if strings.IndexByte(s, '\t') >= 0 {
		s = expandTabs(s)
	}
	s = sanitizeKeep(s, true)
	// Blank lines before the first line with text.
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\n' {
			start = i + 1
		} else if !isTrimmable(r) {
			break
		}
		i += size
	}
	return strings.TrimRightFunc(s[start:], isTrimmable)
}

// expandTabs replaces every tab by the spaces up to the next tab stop.
func expandTabs(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := previewTab - col%previewTab
			b.WriteString("    "[:n])
			col += n
			continue
		case '\n', '\r', 0x85, '\u2028', '\u2029':
			col = -1
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// Shown reports whether sanitization keeps r as it is: r is not a C0 or C1
// control, DEL, or a bidirectional control (line breaks and tabs, which
// sanitization turns into "\n" and a space, are not Shown either). A front
// door that echoes what a person types before the core has seen it (a
// picker's text entry) keeps only these runes, by this one rule.
func Shown(r rune) bool {
	return r >= 0x20 && !(r >= 0x7f && r < 0xa0) && !isBidiControl(r)
}

// plainASCII reports whether s is printable ASCII only (the common case).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// isBidiControl reports the characters that reorder text on screen: the
// embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, and
// the marks U+200E, U+200F and U+061C.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape skips the rest of an escape sequence whose ESC was just before
// s[i] and returns the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']':
		return skipString(s, i+1, true)
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1, false)
	case c >= 0x20 && c <= 0x2f: // intermediates, then one final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // a two-character sequence (ESC 7, ESC c...)
		return i + 1
	default: // a lone ESC: drop it, keep what follows
		return i
	}
}

// skipCSI skips the parameters, intermediates and final byte of a control
// sequence. A byte that cannot belong to one ends it (and is kept).
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips a string sequence (OSC, DCS, SOS, PM, APC) up to and
// including its terminator: ST (ESC \ or U+009C), or BEL for OSC. An
// unterminated sequence runs to the end of s, as a terminal would swallow it.
func skipString(s string, i int, bel bool) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07 && bel:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // ESC ends the string and starts the next sequence
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + 2
		}
		i++
	}
	return i
}

// isTrimmable reports the characters trimmed from both ends of every
// string: white space and the invisible zero-width characters.
func isTrimmable(r rune) bool {
	switch r {
	case ' ', '\n', '\t', '\r', '\v', '\f', 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return (r >= 0x2000 && r <= 0x200a) || isZeroWidth(r)
}

// isZeroWidth reports the zero-width characters that must not make two
// labels look distinct: U+200B-U+200D, U+2060 and U+FEFF.
func isZeroWidth(r rune) bool {
	return (r >= 0x200b && r <= 0x200d) || r == 0x2060 || r == 0xfeff
}

func trim(s string) string {
	if len(s) > 0 && s[0] > ' ' && s[0] < 0x80 && s[len(s)-1] > ' ' && s[len(s)-1] < 0x80 {
		return s
	}
	return strings.TrimFunc(s, isTrimmable)
}

// isIgnorable reports the characters a comparison key leaves out: the
// zero-width characters, variation selectors, the soft hyphen and tag
// characters. They are kept for display (a ZWJ joins an emoji sequence).
func isIgnorable(r rune) bool {
	// Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt):
	// characters that render as nothing, so they must not make two labels
	// that look the same compare as different.
	switch {
	case r < 0xad:
		return false
	case r <= 0x3164:
		return r == 0xad || r == 0x34f || r == 0x61c || r == 0x115f || r == 0x1160 ||
			r == 0x17b4 || r == 0x17b5 || (r >= 0x180b && r <= 0x180f) ||
			(r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) ||
			(r >= 0x2060 && r <= 0x206f) || r == 0x3164
	case r <= 0xfff8:
		return (r >= 0xfe00 && r <= 0xfe0f) || r == 0xfeff || r == 0xffa0 || r >= 0xfff0
	default:
		return (r >= 0x1bca0 && r <= 0x1bca3) || (r >= 0x1d173 && r <= 0x1d17a) ||
			(r >= 0xe0000 && r <= 0xe0fff)
	}
}

// key is the comparison form of a label, a value or a typed answer: the
// default-ignorable code points dropped, white space trimmed and inner runs
// of it collapsed to one space, full-width ASCII read as ASCII, then every
// code point canonically decomposed (recursively; Hangul syllables into
// jamo) and lower-cased with unicode.ToLower, and each run of combining
// marks put in canonical order. Two canonically equivalent strings (NFC
// and NFD "Tiếng Việt", "한" and its jamo) have the same key. The key is
// lower-cased NFD; it is only ever compared, never shown. See the package
// doc, "Comparing text".
func key(s string) string { return string(appendKey(make([]byte, 0, len(s)), s)) }

// appendKey appends key(s) to b.
func appendKey(b []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	start := len(b)
	space := false
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c <= ' ' {
				space = true
				continue
			}
			if space && len(b) > start {
				b = append(b, ' ')
			}
			space = false
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		return b
	}
	w := keyWriter{b: b, start: start}
	for _, r := range s {
		if r < 0x80 { // ASCII: white space, or a starter with no decomposition
			if r <= ' ' {
				w.space = true
			} else if w.space || w.class != 0 {
				w.write(r)
			} else {
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
				w.b = append(w.b, byte(r))
			}
			continue
		}
		switch {
		case isIgnorable(r):
			continue
		case r <= ' ' || isTrimmable(r):
			w.space = true
			continue
		case r >= 0xff01 && r <= 0xff5e:
			r -= 0xfee0
		}
		if r < 0xc0 {
			w.write(r) // no decomposition
		} else {
			w.decompose(r)
		}
	}
	w.endRun()
	return w.b
}

// keyWriter writes the code points of a key: lowered, with a pending space
// written before the next one, and each run of non-starters (combining
// class > 0) sorted into canonical order when it ends.
type keyWriter struct {
	b        []byte
	start    int   // where the key starts in b
	run      int   // where the current run of non-starters starts in b
	class    uint8 // the class of the last non-starter written; 0: no run
	unsorted bool  // the current run is out of canonical order
	space    bool  // a space is due before the next code point
}

// decompose writes the full canonical decomposition of r.
func (w *keyWriter) decompose(r rune) {
	if l, v, t, ok := decomposeHangul(r); ok {
		// Jamo are starters without case.
		w.put(l, 0)
		w.put(v, 0)
		if t != 0 {
			w.put(t, 0)
		}
		return
	}
	x, y, ok := lookupDecomposition(r)
	if !ok {
		w.write(r)
		return
	}
	w.decompose(x)
	if y != 0 {
		w.write(y)
	}
}

// write writes one code point of a decomposition, lower-cased. (Lowering
// never yields a decomposable code point, and non-starters have no lower
// case; the generator and the tests check this for every code point.)
func (w *keyWriter) write(r rune) {
	var c uint8
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
	} else if c = combiningClass(r); c == 0 {
		r = unicode.ToLower(r)
	}
	w.put(r, c)
}

// put writes r, of combining class c.
func (w *keyWriter) put(r rune, c uint8) {
	if w.space {
		w.endRun()
		if len(w.b) > w.start {
			w.b = append(w.b, ' ')
		}
		w.space = false
	}
	if c == 0 {
		w.endRun()
	} else {
		if w.class == 0 {
			w.run = len(w.b)
		} else if c < w.class {
			w.unsorted = true
		}
		w.class = c
	}
	if r < 0x80 {
		w.b = append(w.b, byte(r))
	} else {
		w.b = utf8.AppendRune(w.b, r)
	}
}

// endRun ends the current run of non-starters, sorting it if needed.
func (w *keyWriter) endRun() {
	if w.unsorted {
		sortMarks(w.b[w.run:])
		w.unsorted = false
	}
	w.class = 0
}

// chars counts the characters (code points) of s, as limits count them.
func chars(s string) int { return utf8.RuneCountInString(s) }

// snippet quotes model text for an error message: sanitized to one line and
// cut to MaxQuoteChars characters.
func snippet(s string) string { return `"` + sanitizeTitle(s) + `"` }
