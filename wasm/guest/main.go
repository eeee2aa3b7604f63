// Command guest is the askcore core compiled to WebAssembly: a WASI preview1
// reactor (built with -buildmode=c-shared) whose exports are the ABI
// described in ../ABI.md. Build it with `make wasm`; the result is committed
// as wasm/askcore.wasm and shipped unchanged to every host (Go through wazero,
// Node, browsers).
//
// The guest does no I/O of its own: the host writes the input envelope into a
// guest buffer, calls askcore_handle, and reads the output envelope back.
// Both buffers live in package-level variables so the garbage collector keeps
// them (and the pointers the host holds) alive between calls.
package main

//lint:file-ignore U1000 the go:wasmexport functions are called by the host, which staticcheck cannot see

import (
	"unsafe"

	"github.com/askcore/askcore/core"
)

// abiVersion is bumped on any incompatible change to the exports below.
const abiVersion = 1

var (
	// input is the buffer askcore_input hands out. It only ever grows, so a
	// pointer returned for n bytes stays valid for any later n' <= n.
	input []byte
	// output is what the last askcore_handle call returned.
	output []byte
)

func main() {}

//go:wasmexport askcore_abi_version
func exportABIVersion() int32 { return abiVersion }

//go:wasmexport askcore_max_input
func exportMaxInput() int32 { return maxInput }

//go:wasmexport askcore_input
func exportInput(n int32) int32 {
	if n < 0 || n > maxInput {
		return 0
	}
	if cap(input) < int(n) || cap(input) == 0 {
		c := max(int(n), 4096)
		input = make([]byte, c)
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(input[:cap(input)]))))
}

//go:wasmexport askcore_handle
func exportHandle(n int32) (m int32) {
	defer func() {
		if r := recover(); r != nil {
			output = internalError(r)
			m = int32(len(output))
		}
	}()
	if n < 0 || int(n) > cap(input) {
		// The host skipped askcore_input or asked for more than it was given.
		output = core.FaultEnvelope("internal error: input length out of range")
		return int32(len(output))
	}
	output = core.Handle(input[:n])
	return int32(len(output))
}

// exportOversized writes the core's answer to an input of n bytes that the
// host did not copy in because n is over askcore_max_input: the envelope
// depends on the length alone (core.OversizedEnvelope), so every host
// answers with the core's bytes. It returns the output's length.
//
//go:wasmexport askcore_oversized
func exportOversized(n int64) int32 {
	output = core.OversizedEnvelope(int(n))
	return int32(len(output))
}

//go:wasmexport askcore_output
func exportOutput() int32 {
	if len(output) == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(output))))
}

// internalError turns a recovered panic into an ASK_FAILED envelope whose text
// depends only on the panic value (never on addresses or timing).
func internalError(r any) []byte {
	msg := "panic"
	switch v := r.(type) {
	case error:
		msg = v.Error()
	case string:
		msg = v
	}
	return core.FaultEnvelope("internal error: " + msg)
}
