package hostgo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/askcore/askcore/internal/wasmruntime"
	"github.com/askcore/askcore/wasm"
)

// instance is one instantiated module. It serves one call at a time.
type instance struct {
	tier      *tier
	mod       api.Module
	mem       api.Memory
	input     api.Function
	handle    api.Function
	oversized api.Function
	output    api.Function
	stack     [1]uint64
	stderr    *headWriter

	// The guest's input buffer only grows and never moves while it is big
	// enough (ABI.md), so its address is asked for again only when an input
	// is longer than any before.
	inPtr uint32
	inCap int

	closed bool
}

var moduleConfig = sync.OnceValue(wasmruntime.ModuleConfig)

func (t *tier) instantiate(ctx context.Context) (*instance, error) {
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	// The caller holds a reference on t (an Engine's current tier), so t
	// is not released under the new instance, which holds its own.
	t.ref()
	stderr := &headWriter{max: 4 << 10}
	mctx := experimental.WithMemoryAllocator(ctx, reservedMemory)
	mod, err := t.rt.InstantiateModule(mctx, t.mod, moduleConfig().WithStderr(stderr))
	if err != nil {
		t.unref()
		return nil, fmt.Errorf("hostgo: instantiate askcore.wasm: %w%s", err, stderr.suffix())
	}
	in := &instance{
		tier:      t,
		mod:       mod,
		mem:       mod.Memory(),
		input:     mod.ExportedFunction("askcore_input"),
		handle:    mod.ExportedFunction("askcore_handle"),
		oversized: mod.ExportedFunction("askcore_oversized"),
		output:    mod.ExportedFunction("askcore_output"),
		stderr:    stderr,
	}
	version := mod.ExportedFunction("askcore_abi_version")
	if in.mem == nil || in.input == nil || in.handle == nil || in.oversized == nil || in.output == nil || version == nil {
		in.close()
		return nil, errors.New("hostgo: askcore.wasm lacks the askcore ABI exports")
	}
	if err := version.CallWithStack(ctx, in.stack[:]); err != nil {
		in.close()
		return nil, fmt.Errorf("hostgo: askcore_abi_version: %w", err)
	}
	if v := api.DecodeI32(in.stack[0]); v != wasm.ABIVersion {
		in.close()
		return nil, fmt.Errorf("hostgo: askcore.wasm speaks ABI %d, this host speaks %d", v, wasm.ABIVersion)
	}
	return in, nil
}

// call runs one envelope through the guest. Only askcore_handle gets the
// caller's ctx: it is the one call that can run long, and a ctx that can end
// costs wazero a watcher goroutine per call.
func (in *instance) call(ctx context.Context, input []byte) ([]byte, error) {
	n := len(input)
	if n > in.inCap {
		in.stack[0] = api.EncodeI32(int32(n))
		if err := in.input.CallWithStack(context.Background(), in.stack[:]); err != nil {
			return nil, in.fault("askcore_input", err)
		}
		p := api.DecodeU32(in.stack[0])
		if p == 0 {
			return nil, fmt.Errorf("hostgo: the guest refused an input of %d bytes", n)
		}
		in.inPtr, in.inCap = p, n
	}
	if !in.mem.Write(in.inPtr, input) {
		return nil, errors.New("hostgo: input buffer outside guest memory")
	}
	in.stack[0] = api.EncodeI32(int32(n))
	if err := in.handle.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, in.fault("askcore_handle", err)
	}
	return in.readOutput(api.DecodeU32(in.stack[0]))
}

// callOversized has the guest write its answer to an input of n bytes,
// over the input cap, that is not copied in (askcore_oversized): the
// envelope depends on the length alone. It is short and bounded, so it
// takes no ctx.
func (in *instance) callOversized(n int) ([]byte, error) {
	in.stack[0] = api.EncodeI64(int64(n))
	if err := in.oversized.CallWithStack(context.Background(), in.stack[:]); err != nil {
		return nil, in.fault("askcore_oversized", err)
	}
	return in.readOutput(api.DecodeU32(in.stack[0]))
}

// readOutput copies out the m-byte output of the last call.
func (in *instance) readOutput(m uint32) ([]byte, error) {
	if err := in.output.CallWithStack(context.Background(), in.stack[:]); err != nil {
		return nil, in.fault("askcore_output", err)
	}
	// Read the memory view only now: it may have grown during the call.
	view, ok := in.mem.Read(api.DecodeU32(in.stack[0]), m)
	if !ok {
		return nil, errors.New("hostgo: output buffer outside guest memory")
	}
	return append([]byte(nil), view...), nil
}

func (in *instance) fault(fn string, err error) error {
	return fmt.Errorf("hostgo: %s: %w%s", fn, err, in.stderr.suffix())
}

// pages is the instance's linear memory size in 64 KiB pages.
func (in *instance) pages() uint32 { return in.mem.Size() / 65536 }

// close closes the instance and gives back its reference on its tier. Its
// linear memory is garbage from then on.
func (in *instance) close() {
	if in.closed {
		return
	}
	in.closed = true
	_ = in.mod.Close(context.Background())
	in.tier.unref()
}

// headWriter keeps the first bytes the guest writes to stderr (the Go
// runtime's report of a fatal error), to explain a trap.
type headWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (w *headWriter) suffix() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return ""
	}
	return " (guest stderr: " + string(w.buf) + ")"
}
