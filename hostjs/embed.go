// Package hostjs embeds the browser half of the npm package in this
// directory (@askcore/askcore: its entry for browsers, the DOM provider and
// the library under lib/) for Go programs that serve it, so that the answer
// page (package answerpage) serves these very files rather than copies.
// The module itself is package wasm's (wasm.Binary(), and wasm.Gzip, what
// the page is sent), the bytes every Go host runs. This file
// is not part of the npm package (package.json lists its files).
package hostjs

import "embed"

// Files are browser.js, dom.js, dom.css and lib/*.js, by their paths here.
//
//go:embed browser.js dom.js dom.css lib/*.js
var Files embed.FS
