//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package termui

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

func makeRaw(int) (func() error, error) {
	return nil, fmt.Errorf("termui: the keyboard picker is not supported on %s", runtime.GOOS)
}

func watchResize() (<-chan struct{}, func()) { return nil, func() {} }

func pendingInput(int) int { return 0 }

// SameTerminal reports whether a and b are the same terminal device; here
// it cannot tell, so it says no (each gets its own SyncWriter).
func SameTerminal(a, b *os.File) bool { return false }

func reopenTerminal(*os.File) (*os.File, error) { return nil, errors.ErrUnsupported }
