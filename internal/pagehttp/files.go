package pagehttp

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".wasm": "application/wasm",
}

// Files serves embedded files by name, gzipped for browsers that accept
// it: each compressed once (on first use, or by Warm), except a file
// embedded gzipped (the module, 2.3 MB), which is served as embedded.
type Files struct {
	files map[string]*file
}

// file is one file: its bytes and its gzip, each made at most once.
type file struct {
	ctype string
	plain func() []byte
	gzip  func() []byte // nil when gzip would not make the file smaller
}

// Gzipped is a file embedded gzipped.
type Gzipped struct {
	// Gzip is served as it is to a client that accepts gzip.
	Gzip []byte
	// Plain returns the file's bytes, for a client that does not; it is
	// called only then, so that a process whose clients all take gzip
	// never inflates the file for its page.
	Plain func() []byte
}

// NewFiles serves files and gzipped (by the name each is served under);
// a name whose extension has no content type here is not served.
func NewFiles(files map[string][]byte, gzipped map[string]Gzipped) *Files {
	fs := &Files{files: map[string]*file{}}
	for name, b := range files {
		fs.files[name] = &file{
			ctype: contentTypes[path.Ext(name)],
			plain: func() []byte { return b },
			gzip:  sync.OnceValue(func() []byte { return gzipIfSmaller(b) }),
		}
	}
	for name, g := range gzipped {
		fs.files[name] = &file{
			ctype: contentTypes[path.Ext(name)],
			plain: g.Plain,
			gzip:  func() []byte { return g.Gzip },
		}
	}
	return fs
}

// Warm compresses every file ahead of the first page load.
func (fs *Files) Warm() {
	for _, f := range fs.files {
		f.gzip()
	}
}

// gzipIfSmaller is b gzipped, or nil when that is no smaller.
func gzipIfSmaller(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(b)
	zw.Close()
	if buf.Len() >= len(b) {
		return nil
	}
	return buf.Bytes()
}

// Serve serves the file named name, or refuses (404).
func (fs *Files) Serve(w http.ResponseWriter, req *http.Request, name string) {
	f := fs.files[name]
	if f == nil || f.ctype == "" {
		Refuse(w, http.StatusNotFound, "not found")
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Vary", "Accept-Encoding")
	var body []byte
	if AcceptsGzip(req.Header.Get("Accept-Encoding")) {
		if body = f.gzip(); body != nil {
			h.Set("Content-Encoding", "gzip")
		}
	}
	if body == nil {
		body = f.plain()
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if req.Method != http.MethodHead {
		w.Write(body)
	}
}

// AcceptsGzip reads an Accept-Encoding header: gzip (or *) listed and not
// given q=0.
func AcceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
