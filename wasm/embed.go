// Package wasm holds the askcore core compiled to WebAssembly: the module
// every host runs (hostgo through wazero, hostjs in Node and browsers).
//
// The module is built from ./guest by `make wasm` (Go's output through
// binaryen's wasm-opt -Oz; reproducible: the same Go toolchain and binaryen
// give the same bytes from any directory) and committed beside its
// sha256 and its gzip; `make check-wasm` fails when any is stale. The ABI is
// in ABI.md.
//
// Go programs embed the gzip only (askcore.wasm.gz, 0.7 MB against the
// module's 2.27 MB, in every binary that links this package): Binary inflates
// it once, on first use, and the answer page serves Gzip as it is to a
// browser that accepts gzip.
package wasm

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Gzip is the committed module gzipped, wasm/askcore.wasm.gz, as `make wasm`
// writes it (compress/gzip at BestCompression, no name or time in the
// header). It must not be modified.
//
//go:embed askcore.wasm.gz
var Gzip []byte

//go:embed askcore.wasm.sha256
var sumFile string

// SHA256 is the lowercase hex sha256 of the module, as recorded in
// askcore.wasm.sha256 when the module was built (Binary checks it).
var SHA256 = strings.TrimSpace(strings.SplitN(sumFile, " ", 2)[0])

// ABIVersion is the askcore_abi_version the module exports.
const ABIVersion = 1

// Binary is the module, wasm/askcore.wasm: Gzip inflated on the first call
// (about 25 ms of CPU; BENCHMARKS.md, "Weight") and kept for the process.
// Every call returns the same slice, which must not be modified. It panics
// when the embedded gzip does not inflate to the module SHA256 names: a
// broken build, which no caller could work around.
func Binary() []byte { return inflated() }

var inflated = sync.OnceValue(func() []byte {
	b, err := inflate(Gzip, SHA256)
	if err != nil {
		panic("wasm: " + err.Error())
	}
	return b
})

// inflate ungzips gz and checks that the result hashes to sum.
func inflate(gz []byte, sum string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("askcore.wasm.gz: %w", err)
	}
	// The trailer's last four bytes are the inflated size: one allocation,
	// rather than io.ReadAll's growing copies of a 2.3 MB module.
	b := make([]byte, binary.LittleEndian.Uint32(gz[len(gz)-4:]))
	if _, err := io.ReadFull(zr, b); err != nil {
		return nil, fmt.Errorf("askcore.wasm.gz: %w", err)
	}
	// Reading on to the end checks the trailer's CRC-32.
	if n, err := zr.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("askcore.wasm.gz: does not end at the size its trailer records (%d more bytes, %v)", n, err)
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("askcore.wasm.gz inflates to sha256 %x, askcore.wasm.sha256 records %s: run make wasm", h, sum)
	}
	return b, nil
}
