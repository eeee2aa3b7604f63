package pagehttp

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "deflate, gzip;q=0.5": true, "br": false, "*": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "identity": false, "x-gzip": false,
	} {
		assert.Equal(t, want, AcceptsGzip(h), "%q", h)
	}
}

// TestServe: a file compressed here and a file embedded gzipped, each
// asked for with and without gzip, by GET and HEAD. The embedded gzip goes
// out as it is, and its plain bytes are made only for a client that does
// not take gzip.
func TestServe(t *testing.T) {
	script := []byte(strings.Repeat("console.log('askcore');\n", 200))
	module := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00"), 500)
	var moduleGz bytes.Buffer
	zw := gzip.NewWriter(&moduleGz)
	_, _ = zw.Write(module)
	require.NoError(t, zw.Close())
	inflations := 0
	fs := NewFiles(map[string][]byte{"page.js": script}, map[string]Gzipped{
		"askcore.wasm": {Gzip: moduleGz.Bytes(), Plain: func() []byte { inflations++; return module }},
	})

	for _, c := range []struct {
		name, file, method, accept string
		ctype                      string
		want                       []byte
		gzipped                    bool
		wantGzip                   []byte // the exact bytes sent, when known
		inflations                 int    // Plain calls so far, after this request
	}{
		{"script, gzip", "page.js", http.MethodGet, "gzip, deflate, br", "text/javascript; charset=utf-8", script, true, nil, 0},
		{"script, no Accept-Encoding", "page.js", http.MethodGet, "", "text/javascript; charset=utf-8", script, false, nil, 0},
		{"module, gzip: the embedded gzip", "askcore.wasm", http.MethodGet, "gzip", "application/wasm", module, true, moduleGz.Bytes(), 0},
		{"module, HEAD, gzip", "askcore.wasm", http.MethodHead, "gzip", "application/wasm", module, true, moduleGz.Bytes(), 0},
		{"module, gzip refused", "askcore.wasm", http.MethodGet, "gzip;q=0", "application/wasm", module, false, nil, 1},
		{"module, no Accept-Encoding", "askcore.wasm", http.MethodGet, "", "application/wasm", module, false, nil, 2},
		{"module, HEAD, no Accept-Encoding", "askcore.wasm", http.MethodHead, "", "application/wasm", module, false, nil, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, "/"+c.file, nil)
			if c.accept != "" {
				req.Header.Set("Accept-Encoding", c.accept)
			}
			w := httptest.NewRecorder()
			fs.Serve(w, req, c.file)
			res := w.Result()
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, c.ctype, res.Header.Get("Content-Type"))
			assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
			assert.Equal(t, c.inflations, inflations, "the plain bytes are made only for a client that does not take gzip")
			body := w.Body.Bytes()
			sent := c.want // the bytes the response carries, HEAD aside
			switch {
			case !c.gzipped:
				assert.Empty(t, res.Header.Get("Content-Encoding"))
			case c.wantGzip != nil:
				assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
				sent = c.wantGzip
			default: // compressed here: any gzip of the file
				assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
				sent = body
			}
			assert.Equal(t, strconv.Itoa(len(sent)), res.Header.Get("Content-Length"))
			if c.method == http.MethodHead {
				assert.Empty(t, body)
				return
			}
			assert.Equal(t, sent, body)
			if c.gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				inflated, err := io.ReadAll(zr)
				require.NoError(t, err)
				assert.Equal(t, c.want, inflated)
			}
		})
	}
	w := httptest.NewRecorder()
	fs.Serve(w, httptest.NewRequest(http.MethodGet, "/nothing.wasm", nil), "nothing.wasm")
	assert.Equal(t, http.StatusNotFound, w.Code)
}
