package termui

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askcore/askcore/core"
)

// keyKind is a key the picker knows. Everything else decodes to keyNone and
// is ignored.
type keyKind uint8

const (
	keyNone keyKind = iota
	keyRune         // a printable character: key.r
	keyUp
	keyDown
	keyLeft
	keyRight
	keyHome
	keyEnd
	keyPageUp
	keyPageDown
	keyEnter
	keyTab
	keyBackTab // Shift-Tab
	keyEsc
	keyCtrlC
	keyBackspace
	keyDelete
	keyKillLine // Ctrl-U: clear the typed text
	keyKillWord // Ctrl-W: delete the last word of the typed text
	keyPaste    // bracketed paste: key.text
	keyNotes    // Ctrl-N: add or edit the question's notes
	keyShiftUp  // Shift-↑: scroll the preview up a line
	keyShiftDown
	keyShiftPageUp // Shift-PgUp: scroll the preview up a page
	keyShiftPageDown
)

var keyNames = [...]string{
	keyNone: "none", keyRune: "rune", keyUp: "up", keyDown: "down", keyLeft: "left",
	keyRight: "right", keyHome: "home", keyEnd: "end", keyPageUp: "pgup",
	keyPageDown: "pgdown", keyEnter: "enter", keyTab: "tab", keyBackTab: "backtab",
	keyEsc: "esc", keyCtrlC: "ctrl+c", keyBackspace: "backspace", keyDelete: "delete",
	keyKillLine: "ctrl+u", keyKillWord: "ctrl+w", keyPaste: "paste", keyNotes: "ctrl+n",
	keyShiftUp: "shift+up", keyShiftDown: "shift+down", keyShiftPageUp: "shift+pgup",
	keyShiftPageDown: "shift+pgdown",
}

func (k keyKind) String() string { return keyNames[k] }

// key is one decoded key press.
type key struct {
	kind keyKind
	r    rune   // keyRune
	text string // keyPaste: the pasted text, line breaks and controls folded to spaces
}

func (k key) String() string {
	switch k.kind {
	case keyRune:
		return string(k.r)
	case keyPaste:
		return "paste(" + k.text + ")"
	}
	return k.kind.String()
}

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// decodeKey decodes the key at the start of b and returns it with the
// number of bytes it took. n == 0 means b starts with an incomplete
// sequence: call again with more bytes, or with final set once no more
// came in time (a lone ESC is then the Esc key). b must not be empty.
//
// Sequences understood: CSI and SS3 cursor keys, Home, End, PgUp, PgDn,
// Delete, Shift-Tab (CSI Z), bracketed paste; modifiers are ignored except
// Shift on ↑, ↓, PgUp and PgDn (CSI 1;2A, CSI 5;2~, rxvt's CSI a / CSI b),
// which scroll a preview. C0 keys: Enter (CR, LF, CR LF), Tab, Backspace
// (DEL, BS), Ctrl-C, Ctrl-U, Ctrl-W, Ctrl-P (up), Ctrl-N (notes). ESC followed by anything but "[" or "O" is the
// Esc key (the picker has no Alt bindings); the byte after it is left for
// the next call.
func decodeKey(b []byte, final bool) (key, int) {
	c := b[0]
	switch {
	case c == 0x1b:
		return decodeEsc(b, final)
	case c == '\r':
		if len(b) > 1 && b[1] == '\n' {
			return key{kind: keyEnter}, 2
		}
		return key{kind: keyEnter}, 1
	case c == '\n':
		return key{kind: keyEnter}, 1
	case c == '\t':
		return key{kind: keyTab}, 1
	case c == 0x7f || c == 0x08:
		return key{kind: keyBackspace}, 1
	case c == 0x03:
		return key{kind: keyCtrlC}, 1
	case c == 0x15:
		return key{kind: keyKillLine}, 1
	case c == 0x17:
		return key{kind: keyKillWord}, 1
	case c == 0x10:
		return key{kind: keyUp}, 1
	case c == 0x0e:
		return key{kind: keyNotes}, 1
	case c < 0x20:
		return key{}, 1
	case c < utf8.RuneSelf:
		return key{kind: keyRune, r: rune(c)}, 1
	}
	if !utf8.FullRune(b) {
		if final {
			return key{}, len(b)
		}
		return key{}, 0
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError || !printable(r) {
		return key{}, n
	}
	return key{kind: keyRune, r: r}, n
}

func decodeEsc(b []byte, final bool) (key, int) {
	if len(b) == 1 {
		if final {
			return key{kind: keyEsc}, 1
		}
		return key{}, 0
	}
	switch b[1] {
	case 'O': // SS3: ESC O <final>
		if len(b) < 3 {
			if final {
				return key{kind: keyEsc}, 1
			}
			return key{}, 0
		}
		return key{kind: cursorKey(b[2])}, 3
	case '[':
	default:
		return key{kind: keyEsc}, 1
	}
	// CSI: ESC [ parameters (0x30-0x3F) intermediates (0x20-0x2F) final (0x40-0x7E)
	i := 2
	for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
		i++
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i == len(b) {
		if final {
			return key{}, len(b) // a cut sequence: drop it
		}
		return key{}, 0
	}
	fin := b[i]
	if fin < 0x40 || fin > 0x7e {
		return key{}, i // not a CSI after all: drop the introducer and parameters
	}
	n := i + 1
	params := string(b[2:i])
	num, mod, _ := strings.Cut(params, ";")
	shift := shifted(mod)
	switch fin {
	case 'Z':
		return key{kind: keyBackTab}, n
	case 'a': // rxvt
		return key{kind: keyShiftUp}, n
	case 'b':
		return key{kind: keyShiftDown}, n
	case 'A':
		if shift {
			return key{kind: keyShiftUp}, n
		}
	case 'B':
		if shift {
			return key{kind: keyShiftDown}, n
		}
	case '~':
		switch num {
		case "1", "7":
			return key{kind: keyHome}, n
		case "4", "8":
			return key{kind: keyEnd}, n
		case "5":
			if shift {
				return key{kind: keyShiftPageUp}, n
			}
			return key{kind: keyPageUp}, n
		case "6":
			if shift {
				return key{kind: keyShiftPageDown}, n
			}
			return key{kind: keyPageDown}, n
		case "3":
			return key{kind: keyDelete}, n
		case "200":
			return decodePaste(b, n, final)
		}
		return key{}, n
	}
	return key{kind: cursorKey(fin)}, n
}

// shifted reports whether a CSI modifier parameter (1 + a bit mask: 1
// Shift, 2 Alt, 4 Ctrl, ...) includes Shift.
func shifted(mod string) bool {
	m, err := strconv.Atoi(mod)
	return err == nil && m >= 2 && (m-1)&1 != 0
}

func cursorKey(fin byte) keyKind {
	switch fin {
	case 'A':
		return keyUp
	case 'B':
		return keyDown
	case 'C':
		return keyRight
	case 'D':
		return keyLeft
	case 'H':
		return keyHome
	case 'F':
		return keyEnd
	}
	return keyNone
}

// decodePaste takes a bracketed paste whose start marker ends at start.
func decodePaste(b []byte, start int, final bool) (key, int) {
	end := bytes.Index(b[start:], []byte(pasteEnd))
	if end < 0 {
		if !final {
			return key{}, 0
		}
		// The end marker did not come: take what there is.
		return key{kind: keyPaste, text: foldText(string(b[start:]))}, len(b)
	}
	return key{kind: keyPaste, text: foldText(string(b[start : start+end]))}, start + end + len(pasteEnd)
}

// foldText makes pasted text one line: line breaks and tabs become
// spaces, other controls and invalid bytes are dropped.
func foldText(s string) string {
	var sb strings.Builder
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			sb.WriteByte(' ')
		case r == utf8.RuneError || !printable(r):
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// printable reports whether r may be drawn: the core's rule for what
// sanitization keeps (core.Shown), applied to typed and pasted text, which
// is drawn before the core sees it, so it cannot rearrange the picker.
func printable(r rune) bool { return core.Shown(r) }
