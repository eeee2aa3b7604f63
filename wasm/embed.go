// Package wasm holds the askcore core compiled to WebAssembly: the module
// every host runs (hostgo through wazero, hostjs in Node and browsers).
//
// The module is built from ./guest by `make wasm` (reproducible: the same Go
// toolchain gives the same bytes from any directory) and committed beside its
// sha256; `make check-wasm` fails when it is stale. The ABI is in ABI.md.
package wasm

import (
	_ "embed"
	"strings"
)

// Binary is the committed module, wasm/askcore.wasm.
//
//go:embed askcore.wasm
var Binary []byte

//go:embed askcore.wasm.sha256
var sumFile string

// SHA256 is the lowercase hex sha256 of Binary, as recorded in
// askcore.wasm.sha256 when the module was built (TestSHA256 keeps them equal).
var SHA256 = strings.TrimSpace(strings.SplitN(sumFile, " ", 2)[0])

// ABIVersion is the askcore_abi_version the module exports.
const ABIVersion = 1
