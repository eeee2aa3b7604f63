//go:build !unix

package hostgo

import "github.com/tetratelabs/wazero/experimental"

// reservedMemory: elsewhere than on Unix, wazero's own allocator (a Go
// slice that grows by copying).
var reservedMemory experimental.MemoryAllocator
