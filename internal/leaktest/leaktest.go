// Package leaktest checks a test binary for leaked goroutines the way
// goleak.VerifyTestMain does, after waiting for the one goroutine askcore
// starts on purpose to outlive its caller: hostgo's shared background
// compile of the module.
//
// A front door (askcore-acp, askcore-mcp) closes its engine at exit with a
// deadline (5 s): on a cold machine under -race the optimizing compile can
// take longer, and the process exits with the compile unfinished, which is
// right for a program. A test binary that ran such a program in-process
// goes on; without waiting here, goleak would report the compile (and
// wazero's workers under it) as a leak whenever the compile is slow.
package leaktest

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/askcore/askcore/hostgo"
)

// VerifyTestMain runs the tests, waits for the shared compile of the
// default engine configuration (engine.Open's) to end, then fails the run
// if a goroutine is left. Call it as the whole of TestMain.
func VerifyTestMain(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(afterCompile{m}, opts...)
}

// afterCompile is m whose Run also waits for the background compile. Warmup
// waits for the compile that is running, or loads the module from the
// cache when none ran: either way nothing of it is left running.
type afterCompile struct{ m *testing.M }

func (a afterCompile) Run() int {
	code := a.m.Run()
	_ = hostgo.Warmup(context.Background()) // a failed compile has ended too: that is all this waits for
	return code
}
