package hostgo

import (
	"os"
	"time"
)

// compileLockWait bounds how long a cold optimizing compile waits for
// another process's compile into the same cache directory (one compile
// takes 0.4-1.2 s alone, several seconds on a loaded machine). Past it the
// process compiles anyway: a lock costs memory and CPU saved, never
// correctness. A process that dies holding the lock releases it.
const compileLockWait = time.Minute

// lockCompile takes the cross-process compile lock of dir (a file next to
// wazero's entries, locked with the platform's advisory lock), so that of
// several processes starting together on a cold cache one compiles and the
// others load what it wrote. It polls, and gives up returning ok false as
// soon as wanted reports that nobody waits for the compile any more. A lock
// file that cannot be opened or locked (read-only directory, a file system
// without locks, a platform without them) does not stop the compile: unlock
// is then a no-op.
func lockCompile(dir string, interruptible bool, wanted func() bool) (unlock func(), ok bool) {
	ext := ".lock"
	if interruptible {
		ext = ".interruptible.lock"
	}
	f, err := os.OpenFile(cacheFile(dir, ext), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}, true
	}
	deadline := time.Now().Add(compileLockWait)
	for pause := 2 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		locked, err := tryLock(f)
		switch {
		case locked:
			return func() { _ = unlockFile(f); _ = f.Close() }, true
		case err != nil || time.Now().After(deadline):
			_ = f.Close()
			return func() {}, true
		case !wanted():
			_ = f.Close()
			return nil, false
		}
		time.Sleep(pause)
	}
}
