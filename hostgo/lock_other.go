//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package hostgo

import (
	"errors"
	"os"
)

// Platforms without a file lock hostgo knows: every process compiles on
// its own, as without the lock.
func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }

func unlockFile(*os.File) error { return nil }
