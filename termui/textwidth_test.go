package termui

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTextWidth(t *testing.T) {
	for _, tc := range []struct {
		s string
		w int
	}{
		{"abc", 3},
		{"中文", 4},
		{"e\u0301", 1},       // combining acute
		{"Ω\u0308\u0301", 1}, // two combining marks
		{"👍", 2},
		{"👍🏽", 4},              // skin tone: counted as drawn apart (tmux does)
		{"🇫🇷", 4},              // flag: counted as its two letters drawn apart
		{"👨\u200d👩\u200d👧", 6}, // ZWJ family: counted as drawn apart
		{"한국어", 6},
		{"", 0},
	} {
		assert.Equal(t, tc.w, textWidth(tc.s), "%q", tc.s)
	}
}

func TestTruncateAndTail(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"hello", 5, "hello"},
		{"hello world", 5, "hell…"},
		{"中文中文", 5, "中文…"},
		{"中文中文", 4, "中…"}, // 中文 fits in 4, but then the ellipsis does not
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"},
		{"👍👍👍", 4, "👍…"},
		{"abc", 0, ""},
	} {
		got, w := truncate(tc.s, tc.width)
		assert.Equal(t, tc.want, got, "truncate(%q, %d)", tc.s, tc.width)
		assert.Equal(t, textWidth(got), w)
		assert.LessOrEqual(t, w, max(tc.width, 0))
	}
	got, w := tail("hello world", 6)
	assert.Equal(t, "…world", got)
	assert.Equal(t, 6, w)
	got, _ = tail("中文中文", 5)
	assert.Equal(t, "…中文", got)
	got, _ = tail("short", 10)
	assert.Equal(t, "short", got)
}

func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"the quick", "brown fox"}, wrap("the quick brown fox", 10, 0))
	assert.Equal(t, []string{"one", "two three"}, wrap("one\ntwo three", 10, 0))
	assert.Equal(t, []string{"abcdefghij", "klm"}, wrap("abcdefghijklm", 10, 0))
	assert.Equal(t, []string{"the quick", "brown fox…"}, wrap("the quick brown fox jumps", 10, 2))
	// CJK breaks between ideographs; no line is wider than asked.
	for _, l := range wrap("日本語のテキストはどこでも改行できます。", 9, 0) {
		assert.LessOrEqual(t, textWidth(l), 9, l)
	}
	// Controls never reach a line.
	for _, l := range wrap("a\x1b[31mred\x07\tb", 20, 0) {
		assert.NotContains(t, l, "\x1b")
		assert.NotContains(t, l, "\x07")
	}
	assert.Equal(t, []string{""}, wrap("", 10, 0))
}

func TestCleanText(t *testing.T) {
	assert.Equal(t, "a b[31mc", cleanText("a\nb\x1b[31mc"))
	assert.Equal(t, "abc", cleanText("a\u202eb\u2066c"))
	s := "plain text"
	assert.Equal(t, s, cleanText(s))
	assert.Equal(t, "ab", cleanText("\x00a\x01\u009bb"))
}
