// Command gennorm writes core/norm_tables.go: the canonical decompositions
// and canonical combining classes the core's comparison key uses (see
// core/norm.go), taken from golang.org/x/text/unicode/norm. The core itself
// stays standard library only; this generator and the core's tests are the
// only code that imports x/text.
//
// Run it with `go generate ./core` (the //go:generate line is in
// core/norm.go). It fails, writing nothing, when x/text's Unicode version is
// not the toolchain's (unicode.Version), or when the data breaks one of the
// assumptions the core's code makes (listed in check below).
//
// Tables written:
//
//   - decompositions, decompositionKeys, decompositionPages: the code
//     points with a canonical decomposition outside the Hangul syllables
//     (computed) and the two CJK compatibility blocks, sorted and grouped
//     in pages of 256 code points. decompositionPages[p] is the index of
//     page p's first entry (entry p+1 ends it), decompositionKeys holds
//     each code point's low byte, and decompositions x<<7 | i: the full
//     decomposition of the code point is the full decomposition of x
//     followed by y = decompositionLast[i] (i == 0: x alone). y is the last
//     code point of the full decomposition, so it never decomposes; x is
//     the code point with the lowest value whose full decomposition is the
//     rest (or that rest itself, when it is one code point).
//   - cjkCompat1, cjkCompat2: the singleton decompositions of the CJK
//     compatibility ideographs U+F900-U+FAD9 and U+2F800-U+2FA1D, indexed
//     by cp - start (0: none).
//   - cccChanges: sorted uint32s cp<<8 | ccc, one where the canonical
//     combining class changes from the previous code point's (before the
//     first entry every class is 0).
//   - cccPages: per 256-code-point page p, the index of the first entry
//     of cccChanges in it or after it (entry p+1 ends it).
//   - cccMarks: the classes of U+0300-U+036F (Combining Diacritical Marks),
//     looked up directly.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"runtime/debug"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

const (
	hangulFirst = 0xac00
	hangulLast  = 0xd7a3
	cjk1First   = 0xf900
	cjk1Last    = 0xfad9
	cjk2First   = 0x2f800
	cjk2Last    = 0x2fa1d
	// Below these the core does not look anything up.
	noDecompositionBelow = 0xc0
	noClassBelow         = 0x300
)

func main() {
	out := flag.String("o", "norm_tables.go", "output file")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("gennorm: ")

	if norm.Version != unicode.Version {
		log.Fatalf("x/text/unicode/norm has Unicode %s, the toolchain's unicode package %s: pin an x/text whose norm tables match the toolchain", norm.Version, unicode.Version)
	}

	decomp := map[rune][]rune{} // full canonical decompositions (Hangul excluded)
	byDecomp := map[string]rune{}
	ccc := make([]uint8, unicode.MaxRune+1)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isSurrogate(r) {
			continue
		}
		p := norm.NFD.PropertiesString(string(r))
		ccc[r] = p.CCC()
		if d := p.Decomposition(); d != nil && !(r >= hangulFirst && r <= hangulLast) {
			rs := []rune(string(d))
			decomp[r] = rs
			if _, ok := byDecomp[string(d)]; !ok {
				byDecomp[string(d)] = r
			}
		}
	}
	check(decomp, ccc)

	type entry struct{ cp, x, y rune }
	var entries []entry
	cjk1 := make([]uint32, cjk1Last-cjk1First+1)
	cjk2 := make([]uint32, cjk2Last-cjk2First+1)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		d, ok := decomp[r]
		if !ok {
			continue
		}
		switch {
		case r >= cjk1First && r <= cjk1Last:
			cjk1[r-cjk1First] = uint32(d[0])
			continue
		case r >= cjk2First && r <= cjk2Last:
			cjk2[r-cjk2First] = uint32(d[0])
			continue
		}
		e := entry{cp: r}
		switch len(d) {
		case 1:
			e.x = d[0]
		case 2:
			e.x, e.y = d[0], d[1]
		default:
			e.x, ok = byDecomp[string(d[:len(d)-1])]
			if !ok {
				log.Fatalf("%U: no code point decomposes to %U, the decomposition without its last code point", r, d[:len(d)-1])
			}
			e.y = d[len(d)-1]
		}
		entries = append(entries, e)
	}
	maxDecomposed := entries[len(entries)-1].cp

	// The distinct last code points (index 0: none).
	last := []uint32{0}
	lastIndex := map[rune]int{}
	for _, e := range entries {
		if _, ok := lastIndex[e.y]; e.y != 0 && !ok {
			lastIndex[e.y] = len(last)
			last = append(last, uint32(e.y))
		}
	}
	if len(last) > 1<<7 {
		log.Fatalf("%d distinct last code points do not fit in 7 bits", len(last))
	}
	keys := make([]uint8, len(entries))
	values := make([]uint32, len(entries))
	for i, e := range entries {
		if e.x >= 1<<25 {
			log.Fatalf("%U: x = %U does not fit in 25 bits", e.cp, e.x)
		}
		keys[i] = uint8(e.cp)
		values[i] = uint32(e.x)<<7 | uint32(lastIndex[e.y])
	}
	pages := make([]uint16, maxDecomposed>>8+2)
	for p := range pages {
		pages[p] = uint16(len(entries))
		for i, e := range entries {
			if e.cp>>8 >= rune(p) {
				pages[p] = uint16(i)
				break
			}
		}
	}

	var marks [0x70]uint8
	for i := range marks {
		marks[i] = ccc[0x300+i]
	}

	var changes []uint32
	prev := uint8(0)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if ccc[r] != prev {
			changes = append(changes, uint32(r)<<8|uint32(ccc[r]))
			prev = ccc[r]
		}
	}

	if changes[len(changes)-1]&0xff != 0 {
		log.Fatalf("the last code point has a combining class")
	}
	var changePages []uint16
	for p := rune(0); ; p++ {
		i := 0
		for i < len(changes) && rune(changes[i]>>8)>>8 < p {
			i++
		}
		changePages = append(changePages, uint16(i))
		if i == len(changes) {
			break
		}
	}

	textVersion := "(unknown version)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "golang.org/x/text" {
				textVersion = dep.Version
			}
		}
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by \"go run ./internal/gennorm\"; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// From golang.org/x/text %s, unicode/norm (Unicode %s); the layout is\n", textVersion, norm.Version)
	fmt.Fprintf(&b, "// described in internal/gennorm/main.go.\n\n")
	fmt.Fprintf(&b, "package core\n\n")
	fmt.Fprintf(&b, "// normUnicodeVersion is the Unicode version of these tables: the\n")
	fmt.Fprintf(&b, "// toolchain's unicode.Version when they were generated.\n")
	fmt.Fprintf(&b, "const normUnicodeVersion = %q\n\n", norm.Version)
	fmt.Fprintf(&b, "const (\n")
	fmt.Fprintf(&b, "\tcjkCompat1First = %#x\n", cjk1First)
	fmt.Fprintf(&b, "\tcjkCompat2First = %#x\n", cjk2First)
	fmt.Fprintf(&b, "\t// maxDecomposed is the largest code point in decompositions.\n")
	fmt.Fprintf(&b, "\tmaxDecomposed = %#x\n", maxDecomposed)
	fmt.Fprintf(&b, ")\n\n")
	fmt.Fprintf(&b, "// decompositionPages: the first entry of each page of 256 code points.\n")
	writeArray(&b, "decompositionPages", "uint16", len(pages), 12, func(i int) string { return fmt.Sprint(pages[i]) })
	fmt.Fprintf(&b, "// decompositionKeys: the low byte of each code point (%d entries).\n", len(keys))
	writeArray(&b, "decompositionKeys", "uint8", len(keys), 16, func(i int) string { return fmt.Sprintf("%#02x", keys[i]) })
	fmt.Fprintf(&b, "// decompositions: x<<7 | index in decompositionLast.\n")
	writeArray(&b, "decompositions", "uint32", len(values), 8, func(i int) string { return fmt.Sprintf("%#07x", values[i]) })
	fmt.Fprintf(&b, "// decompositionLast: the last code points of decompositions.\n")
	writeArray(&b, "decompositionLast", "uint32", len(last), 8, func(i int) string { return fmt.Sprintf("%#04x", last[i]) })
	fmt.Fprintf(&b, "// cjkCompat1: the decompositions of U+%04X-U+%04X (0: none).\n", cjk1First, cjk1Last)
	writeArray(&b, "cjkCompat1", "uint32", len(cjk1), 8, func(i int) string { return fmt.Sprintf("%#05x", cjk1[i]) })
	fmt.Fprintf(&b, "// cjkCompat2: the decompositions of U+%04X-U+%04X (0: none).\n", cjk2First, cjk2Last)
	writeArray(&b, "cjkCompat2", "uint32", len(cjk2), 8, func(i int) string { return fmt.Sprintf("%#05x", cjk2[i]) })
	fmt.Fprintf(&b, "// cccChanges: cp<<8 | ccc where the class changes, sorted (%d entries).\n", len(changes))
	writeArray(&b, "cccChanges", "uint32", len(changes), 8, func(i int) string { return fmt.Sprintf("%#08x", changes[i]) })

	fmt.Fprintf(&b, "// cccPages: the first entry of cccChanges in or after each page of 256\n")
	fmt.Fprintf(&b, "// code points (past the last page every class is 0).\n")
	writeArray(&b, "cccPages", "uint16", len(changePages), 12, func(i int) string { return fmt.Sprint(changePages[i]) })
	fmt.Fprintf(&b, "// cccMarks: the classes of U+0300-U+036F.\n")
	writeArray(&b, "cccMarks", "uint8", len(marks), 16, func(i int) string { return fmt.Sprint(marks[i]) })

	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("formatting the output: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "gennorm: %s: Unicode %s, %d decompositions (+%d CJK compatibility, Hangul computed), %d class changes\n",
		*out, norm.Version, len(entries), count(cjk1)+count(cjk2), len(changes))
}

// check verifies what the core's code takes for granted, so that a new
// Unicode version that breaks an assumption fails here rather than giving
// a wrong key.
func check(decomp map[rune][]rune, ccc []uint8) {
	fail := func(format string, args ...any) { log.Fatalf("unexpected Unicode data: "+format, args...) }
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isSurrogate(r) {
			continue
		}
		d, has := decomp[r]
		if has && r < noDecompositionBelow {
			fail("%U below U+%04X decomposes", r, noDecompositionBelow)
		}
		// Non-starters are not lower-cased (the key skips ToLower for them).
		if ccc[r] != 0 && unicode.ToLower(r) != r {
			fail("non-starter %U has a lower case %U", r, unicode.ToLower(r))
		}
		if ccc[r] != 0 && r < noClassBelow {
			fail("%U below U+%04X has combining class %d", r, noClassBelow, ccc[r])
		}
		if has {
			for i, c := range d {
				if c == 0 || c >= 1<<21 {
					fail("%U decomposes to %U", r, d)
				}
				// No code point of a full decomposition decomposes (so y,
				// and x when it comes alone, need no lookup).
				if _, ok := decomp[c]; ok || (c >= hangulFirst && c <= hangulLast) {
					fail("%U's decomposition %U is not full at %d", r, d, i)
				}
			}
			inCJK := (r >= cjk1First && r <= cjk1Last) || (r >= cjk2First && r <= cjk2Last)
			if inCJK && len(d) != 1 {
				fail("CJK compatibility %U decomposes to %d code points", r, len(d))
			}
		}
		// The key lower-cases each code point of the full decomposition
		// with unicode.ToLower and does not decompose or reorder the result
		// again: lowering a code point that has no decomposition must not
		// produce one that has, nor change a combining class.
		if l := unicode.ToLower(r); l != r {
			if _, ok := decomp[l]; !has && (ok || (l >= hangulFirst && l <= hangulLast)) {
				fail("unicode.ToLower(%U) = %U decomposes", r, l)
			}
			if ccc[l] != ccc[r] {
				fail("unicode.ToLower(%U) = %U changes the combining class %d to %d", r, l, ccc[r], ccc[l])
			}
		}
	}
}

func writeArray(b *bytes.Buffer, name, typ string, n, perLine int, item func(int) string) {
	fmt.Fprintf(b, "var %s = [%d]%s{", name, n, typ)
	for i := 0; i < n; i++ {
		if i%perLine == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(item(i))
		b.WriteString(",")
	}
	b.WriteString("\n}\n\n")
}

func count(a []uint32) int {
	n := 0
	for _, v := range a {
		if v != 0 {
			n++
		}
	}
	return n
}

func isSurrogate(r rune) bool { return r >= 0xd800 && r <= 0xdfff }
