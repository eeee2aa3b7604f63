package rpcline

import (
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lines reads every line of in (read one byte at a time when slow), with
// limit, as strings; a too-long line is "TOO LONG <size>".
func lines(t *testing.T, in string, limit int, slow bool) []string {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if slow {
		r = iotest.OneByteReader(r)
	}
	lr := NewReader(r, limit)
	var out []string
	for {
		line, err := lr.Next()
		var tl *TooLong
		switch {
		case err == io.EOF:
			return out
		case errors.As(err, &tl):
			require.Equal(t, limit, tl.Limit)
			out = append(out, "TOO LONG "+itoa(tl.Size))
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, string(line))
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLines(t *testing.T) {
	cases := []struct {
		name, in string
		limit    int
		want     []string
	}{
		{"plain", "a\nbb\n", 10, []string{"a\n", "bb\n"}},
		{"crlf", "a\r\nbb\r\n", 10, []string{"a\r\n", "bb\r\n"}},
		{"last line without newline", "a\nbb", 10, []string{"a\n", "bb"}},
		{"empty lines", "\n\r\n\n", 10, []string{"\n", "\r\n", "\n"}},
		{"nothing", "", 10, nil},
		{"exactly the limit", "12345\n1234\r\n12345", 5, []string{"12345\n", "1234\r\n", "12345"}},
		{"a CR counts", "12345\r\nok\n", 5, []string{"TOO LONG 6", "ok\n"}},
		{"one over the limit", "123456\nok\n", 5, []string{"TOO LONG 6", "ok\n"}},
		{"one over, at the end", "ok\n123456", 5, []string{"ok\n", "TOO LONG 6"}},
		{"far over", strings.Repeat("x", 200000) + "\r\nok\n", 1000, []string{"TOO LONG 200001", "ok\n"}},
		{"far over, at the end", "ok\n" + strings.Repeat("x", 200000), 1000, []string{"ok\n", "TOO LONG 200000"}},
		{"a lone CR is content", "a\rb\n", 10, []string{"a\rb\n"}},
		{"long lines within the limit", strings.Repeat("y", 3<<20) + "\nz\n", 4 << 20, []string{strings.Repeat("y", 3<<20) + "\n", "z\n"}},
	}
	for _, tc := range cases {
		for _, slow := range []bool{false, true} {
			name := tc.name
			if slow {
				name += "/byte by byte"
			}
			t.Run(name, func(t *testing.T) {
				assert.Equal(t, tc.want, lines(t, tc.in, tc.limit, slow))
			})
		}
	}
}

// Every line is a slice of its own: the next Next does not overwrite it.
func TestLinesAreTheirOwn(t *testing.T) {
	lr := NewReader(strings.NewReader("first\nsecond\n"), 100)
	a, err := lr.Next()
	require.NoError(t, err)
	_, err = lr.Next()
	require.NoError(t, err)
	assert.Equal(t, "first\n", string(a))
}

func TestTooLongReadsTheEnvelope(t *testing.T) {
	body := `{"method":"tools/call","params":{"arguments":"` + strings.Repeat("é", 300000) + `"},"jsonrpc":"2.0","id":7}`
	for _, slow := range []bool{false, true} {
		var r io.Reader = strings.NewReader(body + "\nnext\n")
		if slow {
			r = iotest.OneByteReader(r)
		}
		lr := NewReader(r, 64<<10)
		_, err := lr.Next()
		var tl *TooLong
		require.ErrorAs(t, err, &tl)
		assert.Equal(t, int64(len(body)), tl.Size)
		assert.Equal(t, Envelope{ID: json.RawMessage(`7`), Method: "tools/call", Request: true}, tl.Envelope)
		assert.Equal(t, "a line of "+itoa(int64(len(body)))+" bytes is over the limit of 65536 bytes; it was discarded", tl.Error())
		line, err := lr.Next()
		require.NoError(t, err)
		assert.Equal(t, "next\n", string(line))
	}
}

func TestTrimEOL(t *testing.T) {
	for in, want := range map[string]string{"a\n": "a", "a\r\n": "a", "a": "a", "a\r": "a", "\n": "", "a\n\n": "a\n", "a\rb": "a\rb"} {
		assert.Equal(t, want, string(TrimEOL([]byte(in))), "%q", in)
	}
}

// A line just within the limit is kept in blocks and copied once, whole:
// reading it allocates about twice its size, never the growth of one
// buffer copied again and again.
func TestLongLineIsCopiedOnce(t *testing.T) {
	const limit = 10 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	line, err := NewReader(&endless{n: limit}, limit).Next()
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Len(t, line, limit+1)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(limit*9/4), "allocated %d bytes for a %d-byte line", allocated, limit)
}

// endless is a line of n bytes of 'x' and a newline, generated as it is
// read: nothing holds it whole but the reader under test.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		p[0] = '\n'
		e.n = -1
		return 1, nil
	}
	k := min(int64(len(p)), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// A 256 MiB line is discarded with a bounded amount of memory: what the
// reader allocates is the limit and its buffers, not the line.
func TestTooLongIsNotBuffered(t *testing.T) {
	const size = 256 << 20
	const limit = 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lr := NewReader(&endless{n: size}, limit)
	_, err := lr.Next()
	runtime.ReadMemStats(&after)
	var tl *TooLong
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, int64(size), tl.Size)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(8*limit), "allocated %d bytes for a %d-byte line", allocated, size)
	_, err = lr.Next()
	assert.Equal(t, io.EOF, err)
}

func TestReadErrorsPassThrough(t *testing.T) {
	boom := errors.New("boom")
	lr := NewReader(io.MultiReader(strings.NewReader("ok\npart"), iotest.ErrReader(boom)), 100)
	line, err := lr.Next()
	require.NoError(t, err)
	assert.Equal(t, "ok\n", string(line))
	_, err = lr.Next()
	assert.ErrorIs(t, err, boom)
}

func TestNewReaderRefusesNoLimit(t *testing.T) {
	assert.Panics(t, func() { NewReader(strings.NewReader(""), 0) })
}

// The envelope of a line too long to hold, as the Reader scans it going
// by: the keys around a large value, whichever SDK wrote them.
func TestTooLongEnvelopes(t *testing.T) {
	big := strings.Repeat("z", 10000)
	cases := []struct {
		name, line string
		want       Envelope
	}{
		// The TypeScript SDKs write method first, jsonrpc and id last.
		{"typescript request", `{"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"` + big + `"}},"jsonrpc":"2.0","id":12}`,
			Envelope{ID: json.RawMessage(`12`), Method: "tools/call", Request: true}},
		{"typescript response", `{"result":{"action":"accept","content":{"answer":"` + big + `"}},"jsonrpc":"2.0","id":3}`,
			Envelope{ID: json.RawMessage(`3`), Response: true}},
		// go-sdk writes jsonrpc and id first.
		{"go request", `{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"x":"` + big + `"}}`,
			Envelope{ID: json.RawMessage(`"abc"`), Method: "tools/call", Request: true}},
		{"go response", `{"jsonrpc":"2.0","id":-4,"result":{"x":"` + big + `"}}`,
			Envelope{ID: json.RawMessage(`-4`), Response: true}},
		{"id between two large values", `{"method":"x","params":"` + big + `","id":5,"more":"` + big + `"}`,
			Envelope{ID: json.RawMessage(`5`), Method: "x", Request: true}},
		{"string id at the end, with escapes", `{"method":"x","params":"` + big + `","id":"a\"}b"}`,
			Envelope{ID: json.RawMessage(`"a\"}b"`), Method: "x", Request: true}},
		{"string id ending in an escaped backslash, spaced", `{"method":"x","params":"` + big + `" , "id" : "a\\" } `,
			Envelope{ID: json.RawMessage(`"a\\"`), Method: "x", Request: true}},
		{"a key that ends in id is not the id", `{"method":"x","params":"` + big + `","xid":5}`,
			Envelope{Method: "x", Request: true}},
		{"a fractional id is not usable", `{"method":"x","params":"` + big + `","id":1.5}`,
			Envelope{Method: "x", Request: true}},
		{"id inside params is not the id", `{"method":"x","params":{"id":5,"y":"` + big + `"}}`,
			Envelope{Method: "x", Request: true}},
		{"id in a nested object at the end is not the id", `{"method":"x","params":{"y":"` + big + `","id":5}}  `,
			Envelope{Method: "x", Request: true}},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"x","params":"` + big + `"}`,
			Envelope{Method: "x", Request: true}},
		{"the line ends inside the id", `{"method":"x","params":"` + big + `","id":12`, Envelope{Method: "x", Request: true}},
		{"not json", `garbage` + big, Envelope{}},
		{"an array", `[{"id":1}` + big, Envelope{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(iotest.HalfReader(strings.NewReader(tc.line+"\n")), 1000).Next()
			var tl *TooLong
			require.ErrorAs(t, err, &tl)
			assert.Equal(t, int64(len(tc.line)), tl.Size)
			assert.Equal(t, tc.want, tl.Envelope)
		})
	}
}

// A Scanner finds the top-level id and keys whatever the nesting and the
// strings around them, fed in pieces of any size.
func TestScanner(t *testing.T) {
	cases := []struct {
		in   string
		want Envelope
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"x"}`, Envelope{ID: json.RawMessage(`1`), Method: "x", Request: true}},
		{` { "id" : "a\"b" , "result" : {"id":2} }`, Envelope{ID: json.RawMessage(`"a\"b"`), Response: true}},
		{`{"params":{"id":5,"s":"\"id\":6,"},"id":7}`, Envelope{ID: json.RawMessage(`7`)}},
		{`{"params":["}",{"a":"]"}],"error":{},"id":-15}`, Envelope{ID: json.RawMessage(`-15`), Response: true}},
		{`{"params":["}",{"a":"]"}],"error":{},"id":-1.5e3}`, Envelope{Response: true}}, // not an integer: ParseID
		{`{"id":{"a":1},"method":"m"}`, Envelope{Method: "m", Request: true}},
		{`{"id":null}`, Envelope{}},
		{`{"id":1`, Envelope{}}, // cut inside the id
		{`{"id":1,"id":2}`, Envelope{ID: json.RawMessage(`2`)}},
		{`{"id":"` + strings.Repeat("x", 200) + `","method":"m"}`, Envelope{Method: "m", Request: true}}, // too long to keep
		{`{"method":7,"id":1}`, Envelope{ID: json.RawMessage(`1`), Request: true}},
		{`{"method":"m","result":1}`, Envelope{Method: "m", Request: true}},
		{`[{"id":1}]`, Envelope{}},
		{`{"idx":1,"methodx":"m"}`, Envelope{}},
		{``, Envelope{}},
	}
	for _, tc := range cases {
		for _, size := range []int{1, 3, max(1, len(tc.in))} {
			var s Scanner
			for in := []byte(tc.in); len(in) > 0; in = in[min(size, len(in)):] {
				s.Feed(in[:min(size, len(in))])
			}
			assert.Equal(t, tc.want, s.Envelope(), "%s in pieces of %d", tc.in, size)
		}
	}
}
