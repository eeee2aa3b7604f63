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

import (
	"unicode/utf8"
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
		output = errorEnvelope("ASK_FAILED", "internal error: input length out of range")
		return int32(len(output))
	}
	output = core.Handle(input[:n])
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
	return errorEnvelope("ASK_FAILED", "internal error: "+msg)
}

func errorEnvelope(code, message string) []byte {
	b := make([]byte, 0, 96+len(message))
	b = append(b, `{"ok":false,"error":{"name":"UserInteractionError","code":"`...)
	b = append(b, code...)
	b = append(b, `","message":`...)
	b = appendString(b, message)
	return append(b, `}}`...)
}

// appendString writes s as a JSON string the way encoding/json does
// (HTML-safe escapes, invalid UTF-8 replaced by U+FFFD).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
