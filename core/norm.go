package core

import "unicode/utf8"

// Canonical decomposition and canonical ordering, the two halves of
// Unicode's NFD, for the comparison key (see key in text.go). The data is
// in norm_tables.go, generated from golang.org/x/text/unicode/norm for the
// Unicode version of the toolchain's unicode package; the core does not
// import x/text (tests check the tables against it for every code point).

//go:generate go run ./internal/gennorm -o norm_tables.go

// Hangul syllables decompose algorithmically (Unicode §3.12).
const (
	hangulBase  = 0xac00
	hangulCount = 19 * 21 * 28
	jamoLBase   = 0x1100
	jamoVBase   = 0x1161
	jamoTBase   = 0x11a7
	jamoVCount  = 21
	jamoTCount  = 28
)

// decomposeHangul returns the jamo of a Hangul syllable: leading consonant
// l, vowel v and trailing consonant t (0 when it has none). ok is false
// when r is not a precomposed syllable.
func decomposeHangul(r rune) (l, v, t rune, ok bool) {
	s := r - hangulBase
	if s < 0 || s >= hangulCount {
		return 0, 0, 0, false
	}
	l = jamoLBase + s/(jamoVCount*jamoTCount)
	v = jamoVBase + s%(jamoVCount*jamoTCount)/jamoTCount
	if s%jamoTCount != 0 {
		t = jamoTBase + s%jamoTCount
	}
	return l, v, t, true
}

// lookupDecomposition returns the canonical decomposition of r outside the
// Hangul syllables: the full decomposition of x followed by y, or x alone
// when y is 0 (x may decompose further; y and a lone x never do). ok is
// false when r has no decomposition.
func lookupDecomposition(r rune) (x, y rune, ok bool) {
	switch {
	case r < 0xc0:
		return 0, 0, false
	case r >= cjkCompat1First && r < cjkCompat1First+rune(len(cjkCompat1)):
		x = rune(cjkCompat1[r-cjkCompat1First])
		return x, 0, x != 0
	case r >= cjkCompat2First && r < cjkCompat2First+rune(len(cjkCompat2)):
		x = rune(cjkCompat2[r-cjkCompat2First])
		return x, 0, x != 0
	case r <= maxDecomposed:
		lo, hi := int(decompositionPages[r>>8]), int(decompositionPages[r>>8+1])
		for k := uint8(r); lo < hi; {
			m := int(uint(lo+hi) >> 1)
			switch {
			case decompositionKeys[m] < k:
				lo = m + 1
			case decompositionKeys[m] > k:
				hi = m
			default:
				v := decompositions[m]
				return rune(v >> 7), rune(decompositionLast[v&0x7f]), true
			}
		}
	}
	return 0, 0, false
}

// combiningClass returns r's Canonical_Combining_Class (0 for a starter).
func combiningClass(r rune) uint8 {
	if r < 0x370 {
		if r < 0x300 {
			return 0
		}
		return cccMarks[r-0x300]
	}
	// The class set by the last change at or below r: search r's page.
	p := int(r >> 8)
	if p+1 >= len(cccPages) {
		return 0
	}
	lo, hi := int(cccPages[p]), int(cccPages[p+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rune(cccChanges[m]>>8) <= r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return uint8(cccChanges[lo-1])
}

// sortMarks puts a run of non-starters (UTF-8, combining class > 0 each) in
// canonical order: a stable sort by combining class. The run keeps its
// length in bytes. Short runs sort in place by insertion; long ones (only
// hostile input has them) by counting, in linear time.
func sortMarks(b []byte) {
	// Each mark as class<<21 | code point.
	var buf [32]uint32
	ms := buf[:0]
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		ms = append(ms, uint32(combiningClass(r))<<21|uint32(r))
		i += n
	}
	if len(ms) <= len(buf) {
		for i := 1; i < len(ms); i++ {
			m, j := ms[i], i
			for ; j > 0 && ms[j-1]>>21 > m>>21; j-- {
				ms[j] = ms[j-1]
			}
			ms[j] = m
		}
	} else {
		ms = sortByClass(ms)
	}
	i := 0
	for _, m := range ms {
		i += utf8.EncodeRune(b[i:], rune(m&0x1fffff))
	}
}

// sortByClass is a stable counting sort of marks by class.
func sortByClass(ms []uint32) []uint32 {
	var at [256]int
	for _, m := range ms {
		at[m>>21]++
	}
	n := 0
	for c, k := range at {
		at[c] = n
		n += k
	}
	sorted := make([]uint32, len(ms))
	for _, m := range ms {
		sorted[at[m>>21]] = m
		at[m>>21]++
	}
	return sorted
}
