package answerpage

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	"github.com/askcore/askcore/hostjs"
	"github.com/askcore/askcore/internal/pagehttp"
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
// the token), askcore.wasm included: wasm.Binary(), the very bytes every Go
// host runs (inflated by this call if no engine did yet; ServeFile sends
// the embedded gzip instead).
func Files() map[string][]byte {
	files := pageFiles()
	files[wasmName] = wasm.Binary()
	return files
}

// pageFiles are Files but the module.
func pageFiles() map[string][]byte {
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
	return files
}

// sharedStatics are the files every server serves: compressed once per
// process, the module as embedded (wasm.Gzip; inflated only for a client
// that does not take gzip).
var sharedStatics = sync.OnceValue(func() *pagehttp.Files {
	return pagehttp.NewFiles(pageFiles(), map[string]pagehttp.Gzipped{
		wasmName: {Gzip: wasm.Gzip, Plain: wasm.Binary},
	})
})

// Warmup compresses the page's scripts and styles (the module is embedded
// compressed) and returns when they are. A server's first start runs it in
// the background, so that the first page load finds them compressed; a
// caller may run it earlier, and a test binary runs it before checking that
// no goroutine is left.
func Warmup() { sharedStatics().Warm() }
