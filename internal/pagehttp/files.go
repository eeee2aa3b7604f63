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
// it (each compressed once, on first use or by Warm).
type Files struct {
	files map[string]*file
}

type file struct {
	ctype string
	body  []byte
	once  sync.Once
	gz    []byte
}

// NewFiles serves files (by the name each is served under); a name whose
// extension has no content type here is not served.
func NewFiles(files map[string][]byte) *Files {
	fs := &Files{files: map[string]*file{}}
	for name, b := range files {
		fs.files[name] = &file{ctype: contentTypes[path.Ext(name)], body: b}
	}
	return fs
}

// Warm compresses every file ahead of the first page load, last the one
// named last (the largest: the page's scripts are fetched before it).
func (fs *Files) Warm(last string) {
	for name, f := range fs.files {
		if name != last {
			f.gzipped()
		}
	}
	if f := fs.files[last]; f != nil {
		f.gzipped()
	}
}

func (f *file) gzipped() []byte {
	f.once.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		zw.Write(f.body)
		zw.Close()
		if buf.Len() < len(f.body) {
			f.gz = buf.Bytes()
		}
	})
	return f.gz
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
	body := f.body
	if AcceptsGzip(req.Header.Get("Accept-Encoding")) {
		if gz := f.gzipped(); gz != nil {
			body = gz
			h.Set("Content-Encoding", "gzip")
		}
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
