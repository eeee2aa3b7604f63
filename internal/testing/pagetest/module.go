package pagetest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/wasm"
)

// ModuleRequest is one way a browser (or not) asks for the module,
// host/askcore.wasm, which the answer page and the hub's inbox serve from
// the embedded gzip (wasm.Gzip).
type ModuleRequest struct {
	Name, Method string
	// Accept is the request's Accept-Encoding ("" for none).
	Accept string
	// Gzipped says the embedded gzip goes out as it is; otherwise the
	// module inflated.
	Gzipped bool
}

// ModuleRequests are the Accept-Encoding cases every server of the module
// is tested with.
var ModuleRequests = []ModuleRequest{
	{"a browser", http.MethodGet, "gzip, deflate, br, zstd", true},
	{"gzip alone", http.MethodGet, "gzip", true},
	{"HEAD, gzip", http.MethodHead, "gzip, deflate, br", true},
	{"no Accept-Encoding", http.MethodGet, "", false},
	{"identity", http.MethodGet, "identity", false},
	{"gzip refused", http.MethodGet, "gzip;q=0, br", false},
	{"HEAD, no Accept-Encoding", http.MethodHead, "", false},
}

// AssertModuleSent checks res, the answer to req: the embedded gzip byte
// for byte when req takes gzip, the module otherwise, with its length and
// Vary: Accept-Encoding; a HEAD has no body; what a browser inflates is
// wasm.Binary(), byte for byte. The caller checks the locks (its own
// headers) and closes res.Body.
func AssertModuleSent(t *testing.T, req ModuleRequest, res *http.Response) {
	t.Helper()
	require.Equal(t, http.StatusOK, res.StatusCode)
	h := res.Header
	assert.Equal(t, "application/wasm", h.Get("Content-Type"))
	assert.Equal(t, "Accept-Encoding", h.Get("Vary"))
	sent := wasm.Binary()
	if req.Gzipped {
		assert.Equal(t, "gzip", h.Get("Content-Encoding"))
		sent = wasm.Gzip
	} else {
		assert.Empty(t, h.Get("Content-Encoding"))
	}
	assert.Equal(t, strconv.Itoa(len(sent)), h.Get("Content-Length"))
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if req.Method == http.MethodHead {
		assert.Empty(t, body)
		return
	}
	require.True(t, bytes.Equal(sent, body), "the body is the embedded gzip, or the module")
	if req.Gzipped {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err)
		body, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	assert.True(t, bytes.Equal(wasm.Binary(), body), "the module the browser gets is wasm.Binary(), byte for byte")
}
