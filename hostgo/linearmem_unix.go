//go:build unix

package hostgo

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// reservedMemory gives each instance a linear memory that grows in place:
// the whole page limit is reserved as address space when the instance is
// made (a private anonymous mapping with no access, which the kernel
// backs with nothing), and growing only opens more of it to reads and
// writes. wazero's default grows by allocating a larger Go slice and
// copying (the Go guest grows its memory several times while its runtime
// starts), and every copy is Go heap the collector marks and the process
// keeps resident until a collection; here nothing is copied, nothing of it
// is Go heap, and Free (when wazero closes the instance) hands the pages
// back to the kernel at once. See RATIONALE.md, "Linear memory".
var reservedMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(reserveLinearMemory)

// reserveLinearMemory falls back to a Go slice that grows by copying, as
// wazero's own allocator does, when the address space cannot be reserved
// (a tight RLIMIT_AS): slower to grow, never a failed instance.
func reserveLinearMemory(capacity, max uint64) experimental.LinearMemory {
	size := roundToPage(max)
	if size > 0 && size <= 1<<40 {
		b, err := unix.Mmap(-1, 0, int(size), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err == nil {
			return &mappedMemory{buf: b[:0], max: max}
		}
	}
	return &sliceMemory{buf: make([]byte, 0, capacity)}
}

// sliceMemory is wazero's way: a Go slice, copied to a larger one to grow.
type sliceMemory struct{ buf []byte }

func (s *sliceMemory) Reallocate(size uint64) []byte {
	if n := uint64(cap(s.buf)); size > n {
		s.buf = append(s.buf[:n], make([]byte, size-n)...)
	}
	s.buf = s.buf[:size]
	return s.buf
}

func (s *sliceMemory) Free() { s.buf = nil }

func roundToPage(n uint64) uint64 {
	p := uint64(unix.Getpagesize()) - 1
	return (n + p) &^ p
}

// mappedMemory is one reserved mapping: len(buf) bytes are readable and
// writable, cap(buf) is the whole reservation.
type mappedMemory struct {
	// wazero grows a memory from the goroutine running the guest, which
	// holds the instance; the lock makes that visible to the race detector
	// and guards Free against a late Reallocate.
	mu  sync.Mutex
	buf []byte
	max uint64
}

// Reallocate implements experimental.LinearMemory: it returns the first
// size bytes of the reservation, opening pages as needed. nil tells wazero
// the memory cannot grow (the guest's memory.grow returns -1).
func (m *mappedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil || size > m.max {
		return nil
	}
	if open := uint64(len(m.buf)); size > open {
		end := roundToPage(size)
		if err := unix.Mprotect(m.buf[open:end], unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return nil
		}
		m.buf = m.buf[:end]
	}
	// The capacity stops at the open pages: wazero must not see the rest.
	return m.buf[:size:len(m.buf)]
}

// Free implements experimental.LinearMemory: the mapping goes back to the
// kernel, and the pages with it.
func (m *mappedMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf != nil {
		_ = unix.Munmap(m.buf[:cap(m.buf)])
		m.buf = nil
	}
}
