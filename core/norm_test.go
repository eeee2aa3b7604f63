package core

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// These tests check the generated tables (norm_tables.go) and the key
// against golang.org/x/text/unicode/norm, the reference the tables are
// generated from. Only tests and the generator import x/text.

func isSurrogate(r rune) bool { return r >= 0xd800 && r <= 0xdfff }

// TestNormUnicodeVersion: the tables, x/text's norm and the toolchain's
// unicode package (whose ToLower the key uses) are one Unicode version.
func TestNormUnicodeVersion(t *testing.T) {
	require.Equal(t, unicode.Version, norm.Version, "x/text's norm and the toolchain's unicode package differ: pin an x/text that matches")
	require.Equal(t, unicode.Version, normUnicodeVersion, "norm_tables.go is for another Unicode version: run go generate ./core")
}

// fullDecomposition expands lookupDecomposition and decomposeHangul
// recursively, as keyWriter.decompose does; nil when r has none.
func fullDecomposition(t testing.TB, r rune) []rune {
	if l, v, tc, ok := decomposeHangul(r); ok {
		if tc != 0 {
			return []rune{l, v, tc}
		}
		return []rune{l, v}
	}
	x, y, ok := lookupDecomposition(r)
	if !ok {
		return nil
	}
	d := fullDecomposition(t, x)
	if d == nil {
		d = []rune{x}
	} else {
		require.True(t, y != 0, "%U: x = %U decomposes but comes alone", r, x)
	}
	if y != 0 {
		require.True(t, fullDecomposition(t, y) == nil, "%U: y = %U decomposes", r, y)
		d = append(d, y)
	}
	return d
}

// TestNormTablesEveryCodePoint: for every code point, the combining class
// and the full canonical decomposition equal x/text's, and the Hangul
// syllables decompose as norm.NFD decomposes them.
func TestNormTablesEveryCodePoint(t *testing.T) {
	decomposable, nonStarters := 0, 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isSurrogate(r) {
			continue
		}
		s := string(r)
		p := norm.NFD.PropertiesString(s)
		if got, want := combiningClass(r), p.CCC(); got != want {
			t.Fatalf("combiningClass(%U) = %d, x/text %d", r, got, want)
		}
		if p.CCC() != 0 {
			nonStarters++
		}
		got := fullDecomposition(t, r)
		want := []rune(string(p.Decomposition()))
		if _, _, _, ok := decomposeHangul(r); ok {
			want = []rune(norm.NFD.String(s))
			require.True(t, len(want) > 1, "x/text does not decompose %U", r)
		}
		if string(got) != string(want) {
			t.Fatalf("decomposition of %U = %U, x/text %U", r, got, want)
		}
		if got != nil {
			decomposable++
		}
	}
	// Unicode 15.0: 2,061 decompositions besides the 11,172 Hangul
	// syllables, 922 non-starters.
	require.True(t, decomposable >= 2061+11172 && nonStarters >= 922, "%d decomposable, %d non-starters", decomposable, nonStarters)
}

// refKey is the key computed with x/text: the key's own mapping of single
// code points (ignorables, white space, full-width ASCII), then NFD,
// unicode.ToLower per code point, NFD again, and the spaces collapsed.
func refKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case isIgnorable(r):
			continue
		case r <= ' ' || isTrimmable(r):
			r = ' '
		case r >= 0xff01 && r <= 0xff5e:
			r -= 0xfee0
		}
		b.WriteRune(r)
	}
	d := norm.NFD.String(strings.Map(unicode.ToLower, norm.NFD.String(b.String())))
	return strings.Join(strings.FieldsFunc(d, func(r rune) bool { return r == ' ' }), " ")
}

// TestKeyCanonicalEquivalenceEveryCodePoint: for every code point c,
// key(c) = key(NFD(c)) = key(NFC(c)) = refKey(c), and the key is a fixed
// point (lower-cased NFD). For every code point that decomposes, is a
// non-starter or has a lower case, the same holds for c between a letter
// and two marks that canonical ordering swaps, and after a letter with a
// mark of class 230 (so c's own marks interleave with others).
func TestKeyCanonicalEquivalenceEveryCodePoint(t *testing.T) {
	forms := []func(string) string{
		func(s string) string { return s },
		norm.NFD.String, norm.NFC.String,
	}
	contexts := [][2]string{{"", ""}, {"Q", "\u0302\u0323"}, {"o\u0301", "\u031b"}}
	var kb [64]byte
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isSurrogate(r) {
			continue
		}
		cs := contexts[:1]
		if p := norm.NFD.PropertiesString(string(r)); p.Decomposition() != nil || p.CCC() != 0 || unicode.ToLower(r) != r || (r >= hangulBase && r < hangulBase+hangulCount) {
			cs = contexts
		}
		for _, c := range cs {
			s := c[0] + string(r) + c[1]
			want := refKey(s)
			for i, f := range forms {
				if got := string(appendKey(kb[:0], f(s))); got != want {
					t.Fatalf("form %d of %+q (%U): key %+q, want %+q", i, s, r, got, want)
				}
			}
			if k := key(want); k != want {
				t.Fatalf("%U: key(key) = %+q, key %+q", r, k, want)
			}
			if !norm.NFD.IsNormalString(want) {
				t.Fatalf("%U: key %+q is not NFD", r, want)
			}
		}
	}
}

// keyPool is what the random strings are made of: letters with and
// without decompositions, marks of many classes, singletons, Hangul
// syllables and jamo, Greek and Cyrillic, ignorables, spaces, full-width.
var keyPool = []rune{
	'a', 'A', 'e', 'o', 'u', 'U', 'i', 'I', 'y', 'k', ' ', ' ',
	0x300, 0x301, 0x302, 0x303, 0x308, 0x30c, 0x323, 0x327, 0x328, 0x31b, 0x334, 0x345, 0x342, 0x313, 0x314,
	0x5b0, 0x5b4, 0x5bc, 0x94d, 0x93c, 0xf71, 0xf72, 0xf74, 0xf80, 0x1d165, 0x1d16e, 0x302a, 0x3099,
	'é', 'É', 'ệ', 'Ệ', 'ự', 'Ǘ', 'ǘ', 'ḉ', 'Ḉ', 'Ǭ', 'ΐ', 'ᾷ', 'ᾯ', 'Ά', 'ώ', 'й', 'Й', 'ё', 'ї', 'ǰ',
	0x212b, 0x2126, 0x212a, 0x340, 0x341, 0x343, 0x344, 0xf73, 0xf75, 0xf81, 0x1fee, 0x1d15e, 0x1d160, 0xf900, 0x2f800,
	'가', '각', '한', 0x1100, 0x1161, 0x1175, 0x11a8, 0x11ab, 0x115f, 0x1160,
	0x130, 0x131, 0xdf, 0x1e9e, 0x3c2, 0x3a3,
	0x200b, 0x200d, 0x34f, 0xfe0f, 0xad, 0x2062,
	0xa0, 0x3000, 0x2000, 0x2003, '\t',
	0xff21, 0xff41, 0xff10,
	'ς', 'σ', 'ß',
}

// TestKeyRandomStrings checks key against refKey, NFD and NFC on random
// strings from keyPool (runs of marks stay short of x/text's 30, where it
// inserts U+034F).
func TestKeyRandomStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 50000
	if testing.Short() {
		n = 5000
	}
	var rs []rune
	var kb [128]byte
	for i := 0; i < n; i++ {
		rs = rs[:0]
		for j := 1 + rng.IntN(12); j > 0; j-- {
			rs = append(rs, keyPool[rng.IntN(len(keyPool))])
		}
		s := string(rs)
		want := refKey(s)
		for _, f := range []string{s, norm.NFD.String(s), norm.NFC.String(s)} {
			if got := string(appendKey(kb[:0], f)); got != want {
				t.Fatalf("%+q (as %+q): key %+q, want %+q", s, f, got, want)
			}
		}
		if u := strings.ToUpper(s); key(u) != refKey(u) {
			t.Fatalf("%+q: key %+q, want %+q", u, key(u), refKey(u))
		}
	}
}

// FuzzKey: for any valid UTF-8, the key of its NFD and of its NFC is its
// key, the key is a fixed point, and, when no run of non-starters is
// longer than x/text's 30 (where it inserts U+034F), it is refKey.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"Café", "Tie\u0302\u0301ng Việt", "한국어", "a\u0302\u200b\u0323", "ᾯ ǘ", "İı ß Ｋ\u212a", strings.Repeat("\u0345\u0301\u0323", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		k := key(s)
		require.Equal(t, k, key(norm.NFD.String(s)), "NFD of %+q", s)
		require.Equal(t, k, key(norm.NFC.String(s)), "NFC of %+q", s)
		require.Equal(t, k, key(k), "key of the key of %+q", s)
		run, longest := 0, 0
		for _, r := range s {
			if combiningClass(r) != 0 || lookupDecompositionStartsWithMark(r) {
				run += 4 // a decomposition can add marks
			} else {
				run = 0
			}
			longest = max(longest, run)
		}
		if longest <= 30 {
			require.Equal(t, refKey(s), k, "%+q", s)
		}
	})
}

// lookupDecompositionStartsWithMark reports a code point whose
// decomposition begins with a non-starter (U+0344, U+0F73...).
func lookupDecompositionStartsWithMark(r rune) bool {
	x, _, ok := lookupDecomposition(r)
	for ok {
		if combiningClass(x) != 0 {
			return true
		}
		x, _, ok = lookupDecomposition(x)
	}
	return false
}

// TestKeyMarkOrder: canonical ordering in short runs (insertion) and
// long ones (counting sort), across spaces, ignorables and starters.
func TestKeyMarkOrder(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"a\u0323\u0302", "a\u0302\u0323"},
		{"ệ", "e\u0302\u0323"},
		{"Ệ", "e\u0323\u0302"},
		{"a\u0302\u200b\u0323", "a\u0323\u0302"}, // the ignorable is dropped first
		{"ᾯ", "ω\u0345\u0314\u0342"},
		{"ự", "u\u0323\u031b"},
	} {
		require.Equal(t, key(c.a), key(c.b), "%+q vs %+q", c.a, c.b)
	}
	for _, c := range []struct{ a, b string }{
		{"a\u0302\u0302\u0301", "a\u0302\u0301\u0302"}, // same class: order kept
		{"a\u0302 \u0323", "a\u0323 \u0302"},           // a space ends the run
		{"a\u0302b\u0323", "a\u0323b\u0302"},
	} {
		require.True(t, key(c.a) != key(c.b), "%+q and %+q have one key", c.a, c.b)
	}
	// Runs around the insertion/counting boundary, and a hostile one.
	for _, n := range []int{1, 2, 31, 32, 33, 100, 50000} {
		marks := []rune{0x345, 0x301, 0x323, 0x327, 0x334, 0x302, 0x31b} // 240 230 220 202 1 230 216
		var in, want strings.Builder
		in.WriteString("Q")
		want.WriteString("q")
		var byClass [256][]rune
		for i := 0; i < n; i++ {
			m := marks[i%len(marks)]
			in.WriteRune(m)
			c := combiningClass(m)
			byClass[c] = append(byClass[c], m)
		}
		for _, ms := range byClass {
			want.WriteString(string(ms))
		}
		in.WriteString(" é")
		want.WriteString(" e\u0301")
		require.Equal(t, want.String(), key(in.String()), "run of %d", n)
	}
}

// TestKeyASCIIUnchanged: ASCII keys are what they were (the fast path).
func TestKeyASCIIUnchanged(t *testing.T) {
	for _, c := range [][2]string{{"  Use \t Postgres ", "use postgres"}, {"YES", "yes"}, {"a\x00b", "a b"}} {
		require.Equal(t, c[1], key(c[0]))
		require.Equal(t, c[1], refKey(c[0]))
	}
}

// latinPairs is the hand-made table of Latin letter + mark pairs the key
// composed before it had full canonical equivalence (about 170 letters),
// kept as test data: per mark, base letters each followed by the letter
// they compose to.
var latinPairs = [...]struct {
	mark  rune
	pairs string
}{
	{0x300, "AÀEÈIÌOÒUÙaàeèiìoòuùNǸnǹWẀwẁYỲyỳ"},
	{0x301, "AÁEÉIÍOÓUÚYÝaáeéiíoóuúyýCĆcćLĹlĺNŃnńRŔrŕSŚsśZŹzźGǴgǵWẂwẃ"},
	{0x302, "AÂEÊIÎOÔUÛaâeêiîoôuûCĈcĉGĜgĝHĤhĥJĴjĵSŜsŝWŴwŵYŶyŷ"},
	{0x303, "AÃNÑOÕaãnñoõIĨiĩUŨuũ"},
	{0x304, "AĀaāEĒeēIĪiīOŌoōUŪuū"},
	{0x306, "AĂaăEĔeĕGĞgğIĬiĭOŎoŏUŬuŭ"},
	{0x307, "CĊcċEĖeėGĠgġIİZŻzż"},
	{0x308, "AÄEËIÏOÖUÜaäeëiïoöuüyÿYŸ"},
	{0x30a, "AÅaåUŮuů"},
	{0x30b, "OŐoőUŰuű"},
	{0x30c, "CČcčDĎdďEĚeěNŇnňRŘrřSŠsšTŤtťZŽzž"},
	{0x326, "SȘsșTȚtț"},
	{0x327, "CÇcçGĢgģKĶkķLĻlļNŅnņRŖrŗSŞsşTŢtţ"},
	{0x328, "AĄaąEĘeęIĮiįUŲuų"},
}

// TestKeyLatinPairs: every pair of the old table is an NFC composition
// and still compares equal, now without a table of its own.
func TestKeyLatinPairs(t *testing.T) {
	n := 0
	for _, c := range latinPairs {
		rs := []rune(c.pairs)
		require.True(t, len(rs)%2 == 0, "odd pairs for %U", c.mark)
		for i := 0; i < len(rs); i += 2 {
			decomposed, composed := string(rs[i])+string(c.mark), string(rs[i+1])
			require.Equal(t, composed, norm.NFC.String(decomposed))
			require.Equal(t, key(composed), key(decomposed), "%q + %U", rs[i], c.mark)
			n++
		}
	}
	require.True(t, n >= 170, "only %d pairs", n)
}

// BenchmarkAppendKey: the key of ASCII, Latin-1 (NFC) and decomposed
// (NFD) text, and of Vietnamese and Hangul, into a stack buffer as
// normalize and resolve build keys.
func BenchmarkAppendKey(b *testing.B) {
	latin1 := "Crème Brûlée à la Façon de Noël"
	for _, c := range []struct{ name, s string }{
		{"ascii", "Use PostgreSQL for the Database"},
		{"latin1", latin1},
		{"decomposed", norm.NFD.String(latin1)},
		{"vietnamese", "Tiếng Việt có dấu thanh điệu"},
		{"hangul", "한국어 데이터베이스"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf [256]byte
			b.ReportAllocs()
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				appendKey(buf[:0], c.s)
			}
		})
	}
}
