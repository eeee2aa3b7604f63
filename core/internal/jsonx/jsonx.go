// Package jsonx is the core's one JSON seam: a small, reflection-free reader
// and writer for the handful of shapes the core reads and writes.
//
// It exists so that the WebAssembly module carries neither encoding/json nor
// reflect (most of the bytes above the Go runtime floor) and so that the
// codec can change without touching the rules.
//
// Reader decisions:
//   - RFC 8259 grammar, strict: no comments, no trailing commas, no BOM, no
//     NaN/Infinity, one value per input, raw control characters in strings
//     are an error.
//   - Nesting depth is limited (Parse's maxDepth) so that a depth bomb is an
//     error, not a stack overflow.
//   - Invalid UTF-8 inside strings, and lone UTF-16 surrogates in \u escapes,
//     decode as U+FFFD (as encoding/json does), so every decoded string is
//     valid UTF-8.
//   - Objects keep their members in input order, duplicates included; callers
//     decide what a duplicate means (Value.Lookup reports how many there are).
//   - Numbers are validated and kept as their literal text.
//   - No copies: a string without escapes, and a number, share memory with
//     the input (data must not change while the Value is in use), and the
//     members and items of all objects and arrays come from a few shared
//     backing arrays, which a Parser keeps from one input to the next. A
//     request parses in a handful of allocations, none once a Parser has
//     seen one like it, which matters most in WebAssembly, where each one
//     costs several times more than natively and its garbage collector is
//     paid for by the calls themselves.
//
// Writer decisions: AppendString escapes '"', '\\', all control characters
// below U+0020 (\b \f \n \r \t in short form, the rest as \u00XX), DEL as
// \u007f, U+2028 and U+2029 (as JavaScript source would need), and '<',
// '>' and '&' as \u003c, \u003e and \u0026, as encoding/json does: the
// core's output is then a fixed point of encoding/json, so a Go value
// holding the core's bytes marshals to exactly those bytes (json.Marshal
// would rewrite a raw '<'), and it can be embedded in an HTML page as it
// is. Invalid UTF-8 is written as U+FFFD, so the output is always valid
// UTF-8.
package jsonx

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Noun names the kind with its article, for messages: "got a number".
func (k Kind) Noun() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	default:
		return "an object"
	}
}

// Value is one decoded JSON value.
type Value struct {
	Kind Kind
	Bool bool     // Bool
	Str  string   // String: the decoded text; Number: the literal
	Arr  []Value  // Array
	Obj  []Member // Object, in input order
}

// Member is one key/value pair of an object.
type Member struct {
	Key string
	Val Value
}

// Lookup returns the last member called key and how many members have that
// key (0 when absent).
func (v Value) Lookup(key string) (Value, int) {
	var found Value
	n := 0
	for i := range v.Obj {
		if v.Obj[i].Key == key {
			found = v.Obj[i].Val
			n++
		}
	}
	return found, n
}

// SyntaxError is a malformed input.
type SyntaxError struct {
	Offset int // byte offset of the problem
	Msg    string
}

func (e *SyntaxError) Error() string {
	return e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

type parser struct {
	data     []byte
	pos      int
	maxDepth int
	buf      []byte
	// Scratch stacks: members and items of the objects and arrays being
	// read, copied out once each is complete into the arenas below.
	members []Member
	items   []Value
	// Arenas: the members and items of completed objects and arrays, handed
	// out as full slices (len == cap, so an append by a caller copies). When
	// one is full a new, larger one is started; the slices already handed out
	// keep the old one alive.
	memberArena []Member
	itemArena   []Value
}

// A Parser reads JSON into buffers it keeps from one input to the next.
// The Values it returns stay valid, all together, until its Reset, which
// hands their memory to the next Parse. A Parser serves one goroutine at a
// time; the zero Parser is ready to use.
type Parser struct{ p parser }

// Parse decodes data, which must hold exactly one JSON value (surrounded by
// optional whitespace), nested at most maxDepth arrays/objects deep. The
// Value's strings may share memory with data (see the package doc).
func (ps *Parser) Parse(data []byte, maxDepth int) (Value, error) {
	p := &ps.p
	p.data, p.pos, p.maxDepth = data, 0, maxDepth
	if len(data) > 2 && cap(p.members) == 0 {
		// Room for a request's nesting without regrowing the scratch stacks.
		p.members = make([]Member, 0, 16)
		p.items = make([]Value, 0, 8)
	}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.fail("unexpected " + p.describe() + " after the JSON value")
	}
	return v, nil
}

// Reset ends the Values the Parser returned: the next Parse reuses their
// memory. What they referenced (inputs, decoded strings) is let go, and so
// is a buffer a rare large input grew past the bounds below, which a Parser
// kept for reuse would otherwise hold for good.
func (ps *Parser) Reset() {
	p := &ps.p
	p.data = nil
	p.memberArena = rewind(p.memberArena)
	p.itemArena = rewind(p.itemArena)
	p.members = rewind(p.members)
	p.items = rewind(p.items)
	if cap(p.buf) > keepBytes {
		p.buf = nil
	}
}

// The buffers Reset keeps: arenas and stacks of at most keepEntries (a
// request uses a few dozen members and items; the arena for a large input
// starts at 1024 members) and a string buffer of at most keepBytes.
const (
	keepEntries = 1024
	keepBytes   = 64 << 10
)

func rewind[T any](s []T) []T {
	if cap(s) > keepEntries {
		return nil
	}
	clear(s)
	return s[:0]
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

// describe names the byte at p.pos for a message, without echoing input
// that could carry control characters.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c > 0x20 && c < 0x7f {
		if c == '\'' {
			return `character "'"`
		}
		return "character '" + string(rune(c)) + "'"
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return Value{Kind: Bool, Bool: true}, p.literal("true")
	case c == 'f':
		return Value{Kind: Bool}, p.literal("false")
	case c == 'n':
		return Value{Kind: Null}, p.literal("null")
	default:
		return Value{}, p.fail("unexpected " + p.describe() + " where a value was expected")
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal (want " + word + ")")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	if depth > p.maxDepth {
		return Value{}, p.fail("nested more than " + strconv.Itoa(p.maxDepth) + " levels deep")
	}
	p.pos++ // '{'
	v := Value{Kind: Object}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	mark := len(p.members)
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.fail("unexpected " + p.describe() + " where an object key was expected")
		}
		k, err := p.key()
		if err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.fail("unexpected " + p.describe() + " where ':' was expected")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		p.members = append(p.members, Member{Key: k, Val: val})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.fail("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.Obj = p.takeMembers(mark)
			return v, nil
		default:
			return Value{}, p.fail("unexpected " + p.describe() + " where ',' or '}' was expected")
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	if depth > p.maxDepth {
		return Value{}, p.fail("nested more than " + strconv.Itoa(p.maxDepth) + " levels deep")
	}
	p.pos++ // '['
	v := Value{Kind: Array, Arr: []Value{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	mark := len(p.items)
	for {
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		p.items = append(p.items, val)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.fail("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.Arr = p.takeItems(mark)
			return v, nil
		default:
			return Value{}, p.fail("unexpected " + p.describe() + " where ',' or ']' was expected")
		}
	}
}

// takeMembers moves the members above mark from the scratch stack to the
// arena and returns them.
func (p *parser) takeMembers(mark int) []Member {
	n := len(p.members) - mark
	if cap(p.memberArena)-len(p.memberArena) < n {
		p.memberArena = make([]Member, 0, max(n, 2*cap(p.memberArena), min(len(p.data)/16, 1024), 8))
	}
	start := len(p.memberArena)
	p.memberArena = append(p.memberArena, p.members[mark:]...)
	clear(p.members[mark:])
	p.members = p.members[:mark]
	return p.memberArena[start:len(p.memberArena):len(p.memberArena)]
}

// takeItems is takeMembers for array items.
func (p *parser) takeItems(mark int) []Value {
	n := len(p.items) - mark
	if cap(p.itemArena)-len(p.itemArena) < n {
		p.itemArena = make([]Value, 0, max(n, 2*cap(p.itemArena), min(len(p.data)/64, 256), 4))
	}
	start := len(p.itemArena)
	p.itemArena = append(p.itemArena, p.items[mark:]...)
	clear(p.items[mark:])
	p.items = p.items[:mark]
	return p.itemArena[start:len(p.itemArena):len(p.itemArena)]
}

// view returns d[i:j] as a string sharing d's memory.
func view(d []byte, i, j int) string {
	if i >= j {
		return ""
	}
	return unsafe.String(&d[i], j-i)
}

func (p *parser) number() (Value, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return Value{}, p.fail("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return Value{}, p.fail("invalid number (digits expected after '.')")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return Value{}, p.fail("invalid number (digits expected in the exponent)")
		}
	}
	p.pos = i
	return Value{Kind: Number, Str: view(d, start, i)}, nil
}

// key decodes an object key. The keys the core reads come back as
// constants, without allocating.
func (p *parser) key() (string, error) {
	d := p.data
	for i := p.pos + 1; i < len(d) && i-p.pos <= 20; i++ {
		if c := d[i]; c == '"' {
			if k, ok := knownKey(d[p.pos+1 : i]); ok {
				p.pos = i + 1
				return k, nil
			}
			break
		} else if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	return p.str()
}

func knownKey(b []byte) (string, bool) {
	switch string(b) {
	case "op":
		return "op", true
	case "request":
		return "request", true
	case "input":
		return "input", true
	case "response":
		return "response", true
	case "header":
		return "header", true
	case "question":
		return "question", true
	case "options":
		return "options", true
	case "allowCustom":
		return "allowCustom", true
	case "label":
		return "label", true
	case "value":
		return "value", true
	case "description":
		return "description", true
	case "desc":
		return "desc", true
	case "recommended":
		return "recommended", true
	case "action":
		return "action", true
	case "content":
		return "content", true
	case "choice":
		return "choice", true
	case "custom_answer":
		return "custom_answer", true
	case "answer":
		return "answer", true
	case "arguments":
		return "arguments", true
	case "questions":
		return "questions", true
	case "multiSelect":
		return "multiSelect", true
	case "inputs":
		return "inputs", true
	case "index":
		return "index", true
	}
	return "", false
}

// str decodes the string starting at p.pos (on the opening quote).
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	d := p.data
	start := p.pos
	// Fast path: printable ASCII without escapes.
	i := start
	for i < len(d) {
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return view(d, start, i), nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		i++
	}
	b := append(p.buf[:0], d[start:i]...)
	for {
		if i >= len(d) {
			p.pos = i
			return "", p.fail("unexpected end of input in a string")
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = b
			return string(b), nil
		case c < 0x20:
			p.pos = i
			return "", p.fail("raw control character 0x" + strconv.FormatUint(uint64(c), 16) + " in a string (escape it)")
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i + 1
				return "", p.fail("unexpected end of input in a string")
			}
			e := d[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					p.pos = i
					return "", p.fail("invalid \\u escape (four hex digits expected)")
				}
				i += 4
				if r >= 0xD800 && r < 0xDC00 {
					// A high surrogate: a low one must follow to make a pair.
					if i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						if r2, ok := hex4(d, i+2); ok && r2 >= 0xDC00 && r2 < 0xE000 {
							r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
							i += 6
						} else {
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				} else if r >= 0xDC00 && r < 0xE000 {
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				p.pos = i - 1
				return "", p.fail("invalid escape in a string")
			}
		case c < 0x80:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, d[i:i+size]...)
			}
			i += size
		}
	}
}

func hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string (see the package doc for the
// escaping rules).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
		case r == '\u2028':
			b = append(b, s[start:i]...)
			b = append(b, `\u2028`...)
		case r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, `\u2029`...)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendInt appends n as a JSON number.
func AppendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}
