package core

import "testing"

// TestSanitizeText pins the rule front doors use for text that does not
// come from a request (a model's reply, an error message).
func TestSanitizeText(t *testing.T) {
	cases := map[string]string{
		"plain text":                     "plain text",
		"tab\tand\nnewline":              "tab and\nnewline",
		"  surrounding space \n":         "surrounding space",
		"a\x1b[31mred\x1b[0m":            "ared",
		"t\x1b]0;title\x07x":             "tx",
		"t\x1b]8;;http://e\x1b\\link":    "tlink",
		"safe\rEVIL":                     "safe\nEVIL",
		"crlf\r\nline":                   "crlf\nline",
		"bell\a back\b nul\x00 del\x7f":  "bell back nul del",
		"\u202eevil\u202c \u2066x\u2069": "evil x",
		"c1\u009b31m csi":                "c1 csi",
		"bad utf8 \xff":                  "bad utf8 \uFFFD",
		"esc at end\x1b":                 "esc at end",
		"esc c\x1bcreset":                "esc creset",
		"unicode é 世界 🙂":                 "unicode é 世界 🙂",
	}
	for in, want := range cases {
		if got := sanitizeText(in); got != want {
			t.Errorf("SanitizeText(%q) = %q, want %q", in, got, want)
		}
	}
}
