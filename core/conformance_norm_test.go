package core

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// normConformanceCases are the canonical-equivalence cases of the comparison
// key (see text.go, appendKey): two spellings that Unicode calls canonically
// equivalent are one label, one value, one answer.
func normConformanceCases() []struct{ name, in string } {
	viNFC := `{"question":"Language?","options":[{"label":"Tiếng Việt","value":"vi"},{"label":"English","value":"en"}]}`
	viNFD := `{"question":"Language?","options":[{"label":"Tie\u0302\u0301ng Vie\u0323\u0302t","value":"vi"},{"label":"English","value":"en"}]}`
	return []struct{ name, in string }{
		// Latin: a letter + caron the old hand-made table did not have.
		{"unicode-canon-lubica-duplicate-labels", env("normalize", `{"question":"Who?","options":[{"label":"Ľubica"},{"label":"L\u030cubica"}]}`)},
		{"unicode-canon-lubica-duplicate-values", env("normalize", `{"question":"Who?","options":[{"label":"A","value":"ľubica"},{"label":"B","value":"L\u030cUBICA"}]}`)},
		// Vietnamese: two marks per letter (dot below, then circumflex + acute).
		{"unicode-canon-vietnamese-resolve-nfd-input-nfc-label", resolveEnv(viNFC, "Tie\u0302\u0301ng Vie\u0323\u0302t")},
		{"unicode-canon-vietnamese-resolve-nfc-input-nfd-label", resolveEnv(viNFD, "TIẾNG VIỆT")},
		{"unicode-canon-vietnamese-resolve-marks-any-order", resolveEnv(viNFC, "tiếng vie\u0302\u0323t")},
		{"unicode-canon-vietnamese-duplicate-labels", env("normalize", `{"question":"Language?","options":[{"label":"Tiếng Việt"},{"label":"tiê\u0301ng viê\u0323t"}]}`)},
		// Greek: tonos composed or not, and oxia (U+1F71) which is tonos.
		{"unicode-canon-greek-tonos-resolve", resolveEnv(`{"question":"City?","options":[{"label":"Αθήνα"},{"label":"Πάτρα"}]}`, "ΑΘΗ\u0301ΝΑ")},
		{"unicode-canon-greek-oxia-is-tonos", env("normalize", `{"question":"Q?","options":[{"label":"ά"},{"label":"\u1f71"}]}`)},
		{"unicode-canon-greek-ypogegrammeni-order", env("normalize", `{"question":"Q?","options":[{"label":"ᾯ"},{"label":"Ω\u0345\u0314\u0342"}]}`)},
		// Cyrillic: й is и + breve.
		{"unicode-canon-cyrillic-short-i-duplicate-labels", env("normalize", `{"question":"Q?","options":[{"label":"Йогурт"},{"label":"И\u0306огурт"}]}`)},
		{"unicode-canon-cyrillic-short-i-resolve", resolveEnv(`{"question":"Q?","options":[{"label":"Чай"},{"label":"Кофе"}]}`, "чаи\u0306")},
		// Hangul: a precomposed syllable is its jamo.
		{"unicode-canon-hangul-syllable-vs-jamo-labels", env("normalize", `{"question":"Q?","options":[{"label":"한국어"},{"label":"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"}]}`)},
		{"unicode-canon-hangul-jamo-input-resolves", resolveEnv(`{"question":"Q?","options":[{"label":"예"},{"label":"아니요"}]}`, "\u110b\u1161\u1102\u1175\u110b\u116d")},
		// Stacked marks: dot below (class 220) and circumflex (230) in either order.
		{"unicode-canon-stacked-marks-either-order", env("normalize", `{"question":"Q?","options":[{"label":"a\u0323\u0302"},{"label":"a\u0302\u0323"}]}`)},
		{"unicode-canon-stacked-marks-precomposed", resolveEnv(`{"question":"Q?","options":[{"label":"a\u0302\u0323"},{"label":"b"}]}`, "Ậ")},
		// Marks of the same class are not reordered: these are two labels.
		{"unicode-canon-same-class-marks-distinct", env("normalize", `{"question":"Q?","options":[{"label":"a\u0301\u0302"},{"label":"a\u0302\u0301"}]}`)},
		// Singletons: the Ångström, Kelvin and Ohm signs are letters.
		{"unicode-canon-angstrom-sign-duplicate", env("normalize", `{"question":"Unit?","options":[{"label":"\u212b"},{"label":"Å"}]}`)},
		{"unicode-canon-ohm-kelvin-resolve", resolveEnv(`{"question":"Unit?","options":[{"label":"Ω"},{"label":"K"}]}`, "\u2126")},
		// İ is I + dot above: it keys as i + U+0307, not as i.
		{"unicode-canon-dotted-capital-i-duplicate", env("normalize", `{"question":"City?","options":[{"label":"İstanbul"},{"label":"I\u0307stanbul"}]}`)},
		{"unicode-canon-dotted-capital-i-not-dotless-i", resolveEnv(`{"question":"City?","options":[{"label":"İzmir"},{"label":"Ankara"}]}`, "izmir")},
		// Compatibility forms other than full-width ASCII stay distinct.
		{"unicode-canon-compatibility-ligature-distinct", env("normalize", `{"question":"Q?","options":[{"label":"ﬁle"},{"label":"file"}]}`)},
	}
}

// normSample is a sample of 60 letters with canonical decompositions:
// Latin Extended, Vietnamese, Greek, Cyrillic, Hangul. With the old
// hand-made composition table 58 of them passed as labels distinct from
// their decomposed spelling (only Ẁ and ǹ were in it).
const normSample = "ĽľḰḱǍǎǏǐǑǒǓǔǗǘǦǧǨǩǪǫḂḊḞṀṖṠẀǹ" + // 28 Latin Extended
	"ẤẦẨẪẬếềểễệ" + // 10 Vietnamese
	"ΆΈΉΊΌΎΏΐΰἀ" + // 10 Greek
	"ЙйЁёЇїЎў" + // 8 Cyrillic
	"한국가힣" // 4 Hangul

// TestNormSampleDuplicates: each of the 60 letters, precomposed and
// decomposed (NFD), are two labels with one key: normalize rejects them as
// duplicates, and each spelling typed selects the other's option.
func TestNormSampleDuplicates(t *testing.T) {
	letters := []rune(normSample)
	require.Equal(t, 60, len(letters))
	for _, r := range letters {
		nfc, nfd := string(r), norm.NFD.String(string(r))
		require.True(t, nfc != nfd && norm.NFC.String(nfd) == nfc, "%q is not a precomposed letter", nfc)
		req := `{"question":"Q?","options":[{"label":"` + nfc + `"},{"label":"` + nfd + `"}]}`
		out := string(Handle([]byte(env("normalize", req))))
		require.True(t, strings.Contains(out, `"code":"INVALID_REQUEST"`) && strings.Contains(out, "have the same label"),
			"%q and %+q are not duplicates: %s", nfc, nfd, out)
		for _, c := range [][2]string{{nfc, nfd}, {nfd, nfc}} {
			req := `{"question":"Q?","options":[{"label":"x"},{"label":"` + c[0] + `"}]}`
			out := string(Handle([]byte(resolveEnv(req, c[1]))))
			require.True(t, strings.Contains(out, `"selected":{"index":1`), "%+q does not select %+q: %s", c[1], c[0], out)
		}
	}
}
