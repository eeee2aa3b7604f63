package acpagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/rpcline"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // signalled after each Write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote == nil {
		s.wrote = make(chan struct{}, 1)
	}
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

// waitFor waits until the buffer holds text.
func (s *syncBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	timeout := time.After(patience)
	for {
		s.mu.Lock()
		if s.wrote == nil {
			s.wrote = make(chan struct{}, 1)
		}
		found, wrote := strings.Contains(s.b.String(), text), s.wrote
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-wrote:
		case <-timeout:
			t.Fatalf("no %q in %q", text, s.String())
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// guarded is what the guard made of an input: the bytes the SDK read, the
// answers written to the client, the log.
type guarded struct {
	forwarded string
	replies   []string
	log       string
	open      int // requests counted as waiting for a response
}

func runGuard(t *testing.T, in io.Reader) guarded {
	t.Helper()
	var client, log syncBuffer
	out := newOutput(&client)
	g := newLineGuard(in, out, slog.New(slog.NewTextHandler(&log, nil)))
	got, err := io.ReadAll(g)
	require.NoError(t, err)
	<-out.done // the answers are written once the input ended
	var replies []string
	if s := client.String(); s != "" {
		replies = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	return guarded{forwarded: string(got), replies: replies, log: log.String(), open: out.unanswered()}
}

// The guard passes every line the SDK handles as it is, repairs responses
// the SDK would drop, answers lines the SDK would drop (or die of) with the
// JSON-RPC error the specification gives, and drops the rest with a log
// line. Each line is read byte by byte from a reader that returns odd
// pieces.
func TestLineGuard(t *testing.T) {
	const nullParse = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	const notObject = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a message must be a JSON object"}}`
	const batch = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: JSON-RPC batches are not supported"}}`
	malformed := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the client sent a malformed response"}}`
	}
	long := strings.Repeat("a", 2<<20) // a line far over the guard's read buffer, under the limit
	cases := []struct {
		name, line string
		forwarded  string // what the SDK reads instead of line ("=" for line itself)
		reply      string // the answer to the client, "" for none
		log        string // in the log
		open       int
	}{
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"action":"accept"}}`, "=", "", "", 0},
		{"error response", `{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"m"}}`, "=", "", "", 0},
		{"request", `{"jsonrpc":"2.0","method":"session/prompt","id":2,"params":{"x":1}}`, "=", "", "", 1},
		{"notification", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, "=", "", "", 0},
		{"jsonrpc 1.0 (the SDK serves it)", `{"jsonrpc":"1.0","id":3,"method":"initialize"}`, "=", "", "", 1},
		{"object id on a response (the SDK ignores it)", `{"jsonrpc":"2.0","id":{"o":1},"result":1}`, "=", "", "", 0},
		{"blank", `   `, "=", "", "", 0},
		{"long, under the limit", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"t":"` + long + `"}}`, "=", "", "", 1},

		{"error code a string", `{"jsonrpc":"2.0","id":5,"error":{"code":"boom","message":42}}`, malformed("5"), "", "a malformed response", 0},
		{"jsonrpc a number", `{"jsonrpc":2,"id":"k","result":{}}`, malformed(`"k"`), "", "a malformed response", 0},
		{"fractional code, leading space", `  {"jsonrpc":"2.0","id":6,"error":{"code":1.5,"message":"m"}}`, malformed("6"), "", "", 0},
		{"long malformed response", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"` + long + `"}}`, malformed("1"), "", "", 0},
		{"response cut short", `{"jsonrpc":"2.0","id":7,"result":{"action":"acc`, malformed("7"), "", "not valid JSON", 0},

		{"not JSON", `this is not JSON {{{`, "", nullParse, "Parse error", 0},
		{"NUL bytes", "\x00\x01\x02", "", nullParse, "", 0},
		{"a number", `42`, "", notObject, "", 0},
		{"a string", `"x"`, "", notObject, "", 0},
		{"null", `null`, "", notObject, "", 0},
		{"true", `true`, "", notObject, "", 0},
		{"empty batch", `[]`, "", batch, "", 0},
		{"batch", `[{"jsonrpc":"2.0","id":50,"method":"session/list","params":{}}]`, "", batch, "", 0},
		{"method a number", `{"jsonrpc":"2.0","id":51,"method":7}`, "",
			`{"jsonrpc":"2.0","id":51,"error":{"code":-32600,"message":"Invalid request: the member \"method\" cannot be number"}}`, "", 0},
		{"empty object", `{}`, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: neither a method nor an id"}}`, "", 0},
		{"request cut short", `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"x":"`, "",
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32700,"message":"Parse error"}}`, "", 0},

		// Request ids as rpcline.ParseID takes them, as in askcore-mcp.
		{"request with a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"session/list","params":{}}`, "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: the id must be a string or an integer, got a number"}}`, "", 0},
		{"request with an exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"session/list","params":{}}`, "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: the id must be a string or an integer, got a number"}}`, "", 0},
		{"request with an id past 2^53", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"session/list","params":{}}`, "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: the id 12345678901234567890 is out of range (at most 2^53 in magnitude)"}}`, "", 0},
		{"request with an object id", `{"jsonrpc":"2.0","id":{"o":1},"method":"session/list","params":{}}`, "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: the id must be a string or an integer, got an object"}}`, "", 0},

		{"malformed notification", `{"jsonrpc":"2.0","method":5}`, "", "", "dropped a malformed notification", 0},
		{"response without an id", `{"jsonrpc":"2.0","result":1}`, "", "", "dropped a response without an id", 0},
		{"malformed response, null id", `{"jsonrpc":"2.0","id":null,"error":{"code":"x"}}`, "", "", "without a usable id", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.line + "\n" + `{"jsonrpc":"2.0","id":99,"result":null}` // and a last line without a newline
			g := runGuard(t, iotest.OneByteReader(iotest.HalfReader(strings.NewReader(in))))
			want := tc.forwarded
			switch want {
			case "=":
				want = tc.line + "\n"
			case "":
			default:
				want += "\n"
			}
			want += `{"jsonrpc":"2.0","id":99,"result":null}`
			if len(want) > 1000 || len(g.forwarded) > 1000 {
				assert.True(t, want == g.forwarded, "forwarded %d bytes, want %d", len(g.forwarded), len(want))
			} else {
				assert.Equal(t, want, g.forwarded)
			}
			if tc.reply == "" {
				assert.Empty(t, g.replies)
			} else if assert.Len(t, g.replies, 1) {
				assert.JSONEq(t, tc.reply, g.replies[0])
			}
			assert.Contains(t, g.log, tc.log)
			assert.Equal(t, tc.open, g.open)
		})
	}
}

// Lines over maxLineBytes are discarded as they stream by; what can be
// read of the envelope decides the answer. The limit is the SDK's: a
// line of exactly maxLineBytes, its newline included, reaches the SDK.
func TestLineGuardOversized(t *testing.T) {
	skipBytesUnderRace(t)
	pad := func(n int) string { return strings.Repeat("x", n) }
	// frame makes a line of exactly n bytes, newline excluded: head, a
	// padded string, tail.
	frame := func(n int, head, tail string) string {
		return head + pad(n-len(head)-len(tail)) + tail
	}
	const head = `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"`
	const tail = `"}]}}`

	t.Run("at the limit", func(t *testing.T) {
		line := frame(maxLineBytes-1, head, tail)
		g := runGuard(t, strings.NewReader(line+"\n"))
		assert.True(t, g.forwarded == line+"\n", "the line reached the SDK whole")
		assert.Empty(t, g.replies)
		assert.Equal(t, 1, g.open)
	})
	t.Run("at the limit, last line without a newline", func(t *testing.T) {
		line := frame(maxLineBytes-1, head, tail)
		g := runGuard(t, strings.NewReader(line))
		assert.True(t, g.forwarded == line)
		assert.Empty(t, g.replies)
	})
	t.Run("one byte over, last line without a newline", func(t *testing.T) {
		g := runGuard(t, strings.NewReader(frame(maxLineBytes, head, tail)))
		assert.Empty(t, g.forwarded)
		require.Len(t, g.replies, 1)
	})

	type answer struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Bytes        int `json:"bytes"`
				MaxLineBytes int `json:"maxLineBytes"`
			} `json:"data"`
		} `json:"error"`
	}
	next := `{"jsonrpc":"2.0","id":100,"method":"session/list","params":{}}` + "\n"
	cases := []struct {
		name      string
		line      string
		reply     string // the id answered, "" for none
		forwarded string // an error response fed to the SDK for this id
	}{
		{"request one byte over", frame(maxLineBytes, head, tail), `"big"`, ""},
		{"request, id after the params", frame(3*maxLineBytes/2, `{"jsonrpc":"2.0","method":"session/prompt","params":{"t":"`, `","id":{"x":1}},"id":77}`), `77`, ""},
		{"request, an id inside the params is not its id", frame(maxLineBytes+5, `{"jsonrpc":"2.0","method":"session/prompt","params":{"id":5,"t":"\"id\":6,`, `"}}`), "", ""},
		{"response to our request", frame(maxLineBytes+1000, `{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{"answer":"`, `"}}}`), "", "3"},
		{"notification", frame(maxLineBytes+1, `{"jsonrpc":"2.0","method":"session/cancel","params":{"p":"`, `"}}`), "", ""},
		{"not JSON", pad(2 * maxLineBytes), "", ""},
		{"an id too long to keep", frame(maxLineBytes+1, `{"jsonrpc":"2.0","id":"`+pad(200)+`","method":"m","params":"`, `"}`), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := runGuard(t, iotest.HalfReader(strings.NewReader(tc.line+"\n"+next)))
			want := next
			if tc.forwarded != "" {
				var resp answer
				first, rest, _ := strings.Cut(g.forwarded, "\n")
				require.NoError(t, json.Unmarshal([]byte(first), &resp), "%.200s", g.forwarded)
				assert.JSONEq(t, tc.forwarded, string(resp.ID))
				assert.Equal(t, rpcline.CodeInternalError, resp.Error.Code)
				assert.Contains(t, resp.Error.Message, "10485760-byte line limit")
				g.forwarded = rest
			}
			assert.Equal(t, want, g.forwarded, "the next line reaches the SDK")
			assert.Equal(t, 1, g.open) // the next line's request
			assert.Contains(t, g.log, "limit=10485760")
			assert.Contains(t, g.log, "bytes="+itoa(len(tc.line)))
			if tc.reply == "" {
				assert.Empty(t, g.replies)
				return
			}
			require.Len(t, g.replies, 1)
			var resp answer
			require.NoError(t, json.Unmarshal([]byte(g.replies[0]), &resp))
			assert.JSONEq(t, tc.reply, string(resp.ID))
			assert.Equal(t, rpcline.CodeInvalidRequest, resp.Error.Code)
			assert.Equal(t, "Invalid request: the line is "+itoa(len(tc.line))+" bytes; askcore-acp reads lines of at most 10485760 bytes, newline included", resp.Error.Message)
			assert.Equal(t, len(tc.line), resp.Error.Data.Bytes)
			assert.Equal(t, maxLineBytes, resp.Error.Data.MaxLineBytes)
		})
	}
}

// The guard never holds an oversized line: reading 64 MiB in one line
// allocates the limit once (the head it kept before it knew), not the
// line, and never copies it to grow.
func TestLineGuardDoesNotHoldOversizedLines(t *testing.T) {
	skipBytesUnderRace(t)
	const size = 64 << 20
	src := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m","params":"`), &repeatReader{n: size}, strings.NewReader("\"}\n"))
	var client syncBuffer
	out := newOutput(&client)
	g := newLineGuard(src, out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var before, after runtimeMem
	before.read()
	n, err := io.Copy(io.Discard, g)
	after.read()
	require.NoError(t, err)
	assert.Zero(t, n)
	<-out.done
	assert.Contains(t, client.String(), `"id":1`)
	grew := after.totalAlloc - before.totalAlloc
	t.Logf("reading a %d MiB line allocated %.1f MiB", size>>20, float64(grew)/(1<<20))
	assert.Less(t, grew, uint64(maxLineBytes+maxLineBytes/4), "the guard allocated %d bytes for a %d-byte line", grew, size)
}

type runtimeMem struct{ totalAlloc uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.totalAlloc = ms.TotalAlloc
}

func itoa(n int) string { return strconv.Itoa(n) }

// repeatReader gives n bytes of 'x'.
type repeatReader struct{ n int }

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(len(p), r.n)]
	for i := range p {
		p[i] = 'x'
	}
	r.n -= len(p)
	return len(p), nil
}

// output counts the client's requests until the SDK's response to each is
// written, whatever the id's spelling.
func TestOutputCountsRequestsUntilAnswered(t *testing.T) {
	var client syncBuffer
	out := newOutput(&client)
	for _, id := range []string{`1`, `"a"`, `1`, ` 2 `} {
		out.track(parseID(t, id))
	}
	assert.Equal(t, 4, out.unanswered())
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"id":1}}`, // not a response
		`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
	} {
		_, err := out.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	assert.Equal(t, 1, out.unanswered(), "one of the two requests with id 1 is still waiting")
	_, err := out.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	require.NoError(t, err)
	assert.Zero(t, out.unanswered())
	out.closeReplies()
	<-out.done
}

// Flow control: after two windows of notifications the guard reads no
// further notification until the SDK has handled a barrier; a barrier a
// client writes is not ours: dropped, or answered -32601 when a request.
func TestLineGuardFlowControl(t *testing.T) {
	var in bytes.Buffer
	for range 3 * flowWindow {
		in.WriteString(`{"jsonrpc":"2.0","method":"_x","params":{}}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","method":"` + flowMethod + `","params":{"seq":1}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":4,"method":"` + flowMethod + `","params":{"seq":1}}` + "\n")
	var client syncBuffer
	out := newOutput(&client)
	g := newLineGuard(&in, out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r := bufio.NewReader(g)
	readLines := func(n int) []string {
		var lines []string
		for range n {
			l, err := r.ReadString('\n')
			require.NoError(t, err)
			lines = append(lines, l)
		}
		return lines
	}
	// Two windows, each followed by its barrier.
	lines := readLines(2*flowWindow + 2)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"_askcore-acp/flow","params":{"seq":1}}`+"\n", lines[flowWindow])
	assert.Equal(t, `{"jsonrpc":"2.0","method":"_askcore-acp/flow","params":{"seq":2}}`+"\n", lines[2*flowWindow+1])
	// The third window waits for the first barrier.
	got := make(chan []string, 1)
	go func() { got <- readLines(flowWindow + 1) }()
	select {
	case <-got:
		t.Fatal("a third window was read with two barriers queued")
	case <-time.After(50 * time.Millisecond): // (a failure shows here; a pass waits this long)
	}
	g.flowPassed(json.RawMessage(`{"seq":7}`)) // not one of ours: still waiting
	g.flowPassed(json.RawMessage(`{"seq":1}`))
	select {
	case lines = <-got:
	case <-time.After(patience):
		t.Fatal("the barrier did not release the guard")
	}
	assert.Contains(t, lines[flowWindow], `"seq":3`)
	// The client's own barriers never reach the SDK.
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Empty(t, string(rest))
	<-out.done
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: _askcore-acp/flow"}}`, strings.TrimSpace(client.String()))
}

// parseID is a valid id, as the guard hands it to output.track.
func parseID(t *testing.T, raw string) rpcline.ID {
	t.Helper()
	id, err := rpcline.ParseID(json.RawMessage(strings.TrimSpace(raw)))
	require.Nil(t, err, raw)
	return id
}
