package hostjs_test

import (
	"fmt"
	"io/fs"
	"net/http"

	"github.com/askcore/askcore/hostjs"
)

// Files serve as they are: the browser entry point, the DOM provider and its
// stylesheet, and the library they import.
func Example() {
	for _, name := range []string{"browser.js", "dom.js", "dom.css", "lib/core.js"} {
		_, err := fs.Stat(hostjs.Files, name)
		fmt.Println(name, err == nil)
	}
	_ = http.FileServerFS(hostjs.Files) // what a page server mounts
	// Output:
	// browser.js true
	// dom.js true
	// dom.css true
	// lib/core.js true
}
