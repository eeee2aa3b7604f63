// Package leaktest is the TestMain of askcore's test binaries: it gives the
// run a compilation cache of its own and checks for leaked goroutines the
// way goleak.VerifyTestMain does, after waiting for the one goroutine
// askcore starts on purpose to outlive its caller: hostgo's shared
// background compile of the module.
//
// The cache: tests that run the default engine (the wasm engine with its
// cache under os.UserCacheDir) must write nothing to the user's
// ~/.cache/askcore/wazero. XDG_CACHE_HOME, where os.UserCacheDir looks on
// Linux and the BSDs, is set to a temporary directory of the run (also for
// the programs a test starts, which inherit it) and removed afterwards.
//
// The wait: a front door (askcore-acp, askcore-mcp) closes its engine at
// exit with a deadline (5 s): on a cold machine under -race the optimizing
// compile can take longer, and the process exits with the compile
// unfinished, which is right for a program. A test binary that ran such a
// program in-process goes on; without waiting here, goleak would report the
// compile (and wazero's workers under it) as a leak whenever it is slow.
package leaktest

import (
	"context"
	"fmt"
	"os"

	"go.uber.org/goleak"

	"github.com/askcore/askcore/hostgo"
)

// VerifyTestMain runs the tests with a private compilation cache, waits
// for the shared compile of the default engine configuration to end, then
// fails the run if a goroutine is left. Call it as the whole of TestMain,
// with the *testing.M or what wraps its Run (pgtest.Run, for a package
// whose tests use PostgreSQL).
func VerifyTestMain(m goleak.TestingM, opts ...goleak.Option) {
	goleak.VerifyTestMain(run{m}, opts...)
}

type run struct{ m goleak.TestingM }

func (r run) Run() int {
	dir, err := os.MkdirTemp("", "askcore-test-cache-")
	if err == nil {
		err = os.Setenv("XDG_CACHE_HOME", dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaktest: the compilation cache of this run:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	code := r.m.Run()
	// Only a run that left goroutines can have left the compile: when none
	// is left (Find without options reports every goroutine the check
	// below could), there is nothing to wait for, and Warmup would start a
	// cold compile of its own (the cache is this run's, empty if no test
	// compiled): 1.5-2 s of CPU per test binary under -race, for nothing.
	// Otherwise Warmup waits for the compile that is running, or loads the
	// module from the cache when none ran: either way nothing of it is left
	// running. A failed compile has ended too: that is all this waits for.
	if goleak.Find() != nil {
		_ = hostgo.Warmup(context.Background())
	}
	return code
}
