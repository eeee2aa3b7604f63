package termui

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecodeKey(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		final bool
		want  key
		n     int
	}{
		{"letter", "j", false, key{kind: keyRune, r: 'j'}, 1},
		{"digit", "7x", false, key{kind: keyRune, r: '7'}, 1},
		{"space", " ", false, key{kind: keyRune, r: ' '}, 1},
		{"utf8 2 bytes", "é", false, key{kind: keyRune, r: 'é'}, 2},
		{"cjk", "中文", false, key{kind: keyRune, r: '中'}, 3},
		{"emoji", "🚀", false, key{kind: keyRune, r: '🚀'}, 4},
		{"cut utf8 waits", "\xe4\xb8", false, key{}, 0},
		{"cut utf8 at the end is dropped", "\xe4\xb8", true, key{}, 2},
		{"invalid byte", "\xff", false, key{}, 1},
		{"C1 control in UTF-8 is dropped", "\u0085", false, key{}, 2},
		{"bidi override is dropped", "\u202e", false, key{}, 3},
		{"enter CR", "\r", false, key{kind: keyEnter}, 1},
		{"enter LF", "\n", false, key{kind: keyEnter}, 1},
		{"enter CRLF is one key", "\r\n", false, key{kind: keyEnter}, 2},
		{"tab", "\t", false, key{kind: keyTab}, 1},
		{"backspace DEL", "\x7f", false, key{kind: keyBackspace}, 1},
		{"backspace BS", "\x08", false, key{kind: keyBackspace}, 1},
		{"ctrl-c", "\x03", false, key{kind: keyCtrlC}, 1},
		{"ctrl-u", "\x15", false, key{kind: keyKillLine}, 1},
		{"ctrl-w", "\x17", false, key{kind: keyKillWord}, 1},
		{"ctrl-p", "\x10", false, key{kind: keyUp}, 1},
		{"ctrl-n is notes", "\x0e", false, key{kind: keyNotes}, 1},
		{"shift-up", "\x1b[1;2A", false, key{kind: keyShiftUp}, 6},
		{"shift-down", "\x1b[1;2B", false, key{kind: keyShiftDown}, 6},
		{"shift+ctrl-down is shift-down", "\x1b[1;6B", false, key{kind: keyShiftDown}, 6},
		{"alt-up is up", "\x1b[1;3A", false, key{kind: keyUp}, 6},
		{"rxvt shift-up", "\x1b[a", false, key{kind: keyShiftUp}, 3},
		{"rxvt shift-down", "\x1b[b", false, key{kind: keyShiftDown}, 3},
		{"shift-pgup", "\x1b[5;2~", false, key{kind: keyShiftPageUp}, 6},
		{"shift-pgdown", "\x1b[6;2~", false, key{kind: keyShiftPageDown}, 6},
		{"ctrl-pgdown is pgdown", "\x1b[6;5~", false, key{kind: keyPageDown}, 6},
		{"ctrl-d ignored", "\x04", false, key{}, 1},
		{"lone esc waits", "\x1b", false, key{}, 0},
		{"lone esc after the wait", "\x1b", true, key{kind: keyEsc}, 1},
		{"esc esc", "\x1b\x1b", false, key{kind: keyEsc}, 1},
		{"esc then letter: esc, the letter stays", "\x1bj", false, key{kind: keyEsc}, 1},
		{"up CSI", "\x1b[A", false, key{kind: keyUp}, 3},
		{"down CSI", "\x1b[B", false, key{kind: keyDown}, 3},
		{"right CSI", "\x1b[C", false, key{kind: keyRight}, 3},
		{"left CSI", "\x1b[D", false, key{kind: keyLeft}, 3},
		{"up SS3 (application mode)", "\x1bOA", false, key{kind: keyUp}, 3},
		{"down SS3", "\x1bOB", false, key{kind: keyDown}, 3},
		{"ctrl-up (modifier ignored)", "\x1b[1;5A", false, key{kind: keyUp}, 6},
		{"shift-tab", "\x1b[Z", false, key{kind: keyBackTab}, 3},
		{"home", "\x1b[H", false, key{kind: keyHome}, 3},
		{"end", "\x1b[F", false, key{kind: keyEnd}, 3},
		{"home ~", "\x1b[1~", false, key{kind: keyHome}, 4},
		{"end ~", "\x1b[4~", false, key{kind: keyEnd}, 4},
		{"pgup", "\x1b[5~", false, key{kind: keyPageUp}, 4},
		{"pgdown", "\x1b[6~", false, key{kind: keyPageDown}, 4},
		{"delete", "\x1b[3~", false, key{kind: keyDelete}, 4},
		{"F5 ignored whole", "\x1b[15~x", false, key{}, 5},
		{"focus in ignored", "\x1b[I", false, key{}, 3},
		{"cut CSI waits", "\x1b[1;", false, key{}, 0},
		{"cut CSI dropped after the wait", "\x1b[1;", true, key{}, 4},
		{"cut SS3 waits", "\x1bO", false, key{}, 0},
		{"cut SS3 after the wait is esc", "\x1bO", true, key{kind: keyEsc}, 1},
		{"up then more", "\x1b[Bj", false, key{kind: keyDown}, 3},
		{"paste", "\x1b[200~a\r\nb\tc\x1b[201~x", false, key{kind: keyPaste, text: "a b c"}, 18},
		{"paste drops controls", "\x1b[200~a\x1b[31mb\x1b[201~", false, key{kind: keyPaste, text: "a[31mb"}, 19},
		{"paste waits for its end", "\x1b[200~abc", false, key{}, 0},
		{"paste without end after the wait", "\x1b[200~abc", true, key{kind: keyPaste, text: "abc"}, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, n := decodeKey([]byte(tc.in), tc.final)
			assert.Equal(t, tc.want, k)
			assert.Equal(t, tc.n, n)
		})
	}
}

// A stream of keys decodes one after another, whatever the chunking.
func TestDecodeKeysStream(t *testing.T) {
	in := "jk\x1b[A\x1b[B 1\t\x1b[Z中\r\x1b"
	var got []string
	b := []byte(in)
	for len(b) > 0 {
		k, n := decodeKey(b, true)
		if assert.NotZero(t, n) {
			got = append(got, k.String())
			b = b[n:]
		}
	}
	assert.Equal(t, []string{"j", "k", "up", "down", " ", "1", "tab", "backtab", "中", "enter", "esc"}, got)
}
