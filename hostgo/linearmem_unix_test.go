//go:build unix

package hostgo

import (
	"bytes"
	"context"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/core"
)

// TestLinearMemoryGrowsInPlace: an instance's linear memory is the
// reserved mapping, and a call that grows it by megabytes leaves it where
// it was (nothing copied) with its contents.
func TestLinearMemoryGrowsInPlace(t *testing.T) {
	ctx := context.Background()
	// An Engine of its own: its instance is fresh (about 40 pages), so the
	// call below must grow it, whatever other tests did before.
	e, err := New(ctx, append(engineOpts["compiler"], WithPoolSize(1))...)
	require.NoError(t, err)
	defer e.Close(ctx)
	in, err := e.acquire(ctx)
	require.NoError(t, err)
	before, ok := in.mem.Read(0, in.mem.Size())
	require.True(t, ok)
	old := bytes.Clone(before)
	pages := in.pages()

	large := append([]byte(`{"op":"normalize","arguments":"`), bytes.Repeat([]byte("x"), 3<<20)...)
	large = append(large, `"}`...)
	out, err := in.call(ctx, large)
	same(t, "large call", large, core.Handle(large), out, err)
	require.Greater(t, in.pages(), pages+16, "the call did not grow the memory")

	after, ok := in.mem.Read(0, in.mem.Size())
	require.True(t, ok)
	assert.Equal(t, unsafe.SliceData(before), unsafe.SliceData(after), "the memory moved when it grew")
	assert.False(t, bytes.Equal(old, after[:len(old)]), "the guest's memory did not change (the test reads the wrong memory)")
	e.release(in, nil) // grown past the recycle threshold or not, it goes back or is closed
}

// TestMappedMemory: the reservation opens pages as asked, keeps what was
// written when it grows, refuses to pass its maximum or to grow once
// freed, and hides the pages it has not opened.
func TestMappedMemory(t *testing.T) {
	const page = 64 << 10
	lm := reservedMemory.Allocate(0, 4*page)
	m, ok := lm.(*mappedMemory)
	require.True(t, ok, "not a reserved mapping: %T", lm)

	b := m.Reallocate(page)
	require.Len(t, b, page)
	assert.Equal(t, page, cap(b), "pages not opened are visible")
	b[page-1] = 7

	b2 := m.Reallocate(3 * page)
	require.Len(t, b2, 3*page)
	assert.Equal(t, unsafe.SliceData(b), unsafe.SliceData(b2), "growing moved the memory")
	assert.Equal(t, byte(7), b2[page-1])
	b2[3*page-1] = 9 // the new pages are writable

	assert.Nil(t, m.Reallocate(5*page), "grew past its maximum")
	m.Free()
	assert.Nil(t, m.Reallocate(page), "grew after Free")
	m.Free() // twice is harmless
}

// TestSliceMemoryFallback: the allocator's fallback (no address space to
// reserve) grows by copying and keeps the contents.
func TestSliceMemoryFallback(t *testing.T) {
	s := &sliceMemory{}
	b := s.Reallocate(10)
	require.Len(t, b, 10)
	b[9] = 5
	b = s.Reallocate(100)
	require.Len(t, b, 100)
	assert.Equal(t, byte(5), b[9])
	s.Free()
	assert.Nil(t, s.buf)
}
