package answerpage

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/askcore/askcore/hostjs"
	"github.com/askcore/askcore/wasm"
)

// The page (index.html, page.js, page.css). The JS host it runs is served
// under host/ from package hostjs, the npm package's own files.
//
//go:embed static
var staticFS embed.FS

// wasmName is where the page's JS host finds the module: beside browser.js.
const wasmName = "host/askcore.wasm"

// Files returns the page's files by the name they are served under (below
// the token), askcore.wasm included: wasm.Binary, the very bytes every Go
// host runs.
func Files() map[string][]byte {
	files := map[string][]byte{}
	_ = fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, "static/")] = b
		return nil
	})
	_ = fs.WalkDir(hostjs.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := hostjs.Files.ReadFile(p)
		if err != nil {
			return err
		}
		files["host/"+p] = b
		return nil
	})
	files[wasmName] = wasm.Binary
	return files
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".wasm": "application/wasm",
}

// statics serves the embedded files, gzipped for browsers that accept it
// (compressed once, on first use).
type statics struct {
	files map[string]*staticFile
}

type staticFile struct {
	ctype string
	body  []byte
	once  sync.Once
	gz    []byte
}

// sharedStatics are the files every server serves: compressed once per
// process.
var sharedStatics = sync.OnceValue(newStatics)

func newStatics() *statics {
	st := &statics{files: map[string]*staticFile{}}
	for name, b := range Files() {
		st.files[name] = &staticFile{ctype: contentTypes[path.Ext(name)], body: b}
	}
	return st
}

// Warmup compresses the page's files (the module takes the most, about
// 80 ms) and returns when they are. A server's first start runs it in the
// background, so that the first page load finds them compressed; a caller
// may run it earlier, and a test binary runs it before checking that no
// goroutine is left.
func Warmup() { sharedStatics().warm() }

// warm compresses every file ahead of the first page load, the small ones
// first (the page's scripts are fetched before the module).
func (st *statics) warm() {
	for name, f := range st.files {
		if name != wasmName {
			f.gzipped()
		}
	}
	st.files[wasmName].gzipped()
}

func (f *staticFile) gzipped() []byte {
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

func (st *statics) serve(w http.ResponseWriter, req *http.Request, name string) {
	f := st.files[name]
	if f == nil || f.ctype == "" {
		refuse(w, http.StatusNotFound, "not found")
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Vary", "Accept-Encoding")
	body := f.body
	if acceptsGzip(req.Header.Get("Accept-Encoding")) {
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

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed and not
// given q=0.
func acceptsGzip(header string) bool {
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
