// Command wasmgzip writes the gzip of the module that package wasm embeds:
// scripts/check-wasm.sh runs it (`make wasm` to write wasm/askcore.wasm.gz,
// `make check-wasm` to compare).
//
//	go run ./internal/wasmgzip < askcore.wasm > askcore.wasm.gz
//
// Go's compress/gzip rather than the gzip command: the script pins the Go
// toolchain (GOTOOLCHAIN), so the same bytes come out on every machine,
// while `gzip -9n` is GNU gzip, BSD's or busybox's depending on the machine,
// each free to emit other (valid) bytes. BestCompression: the file is
// compressed once per build and inflated once per process, at about the
// same cost at any level (BENCHMARKS.md, "Weight"). The header carries no
// name and no time (zero mtime), so nothing of the build's place or moment
// reaches the bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmgzip:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	bw := bufio.NewWriter(out)
	zw, err := gzip.NewWriterLevel(bw, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, in); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
