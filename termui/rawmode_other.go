//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package termui

import (
	"fmt"
	"runtime"
)

func makeRaw(int) (func() error, error) {
	return nil, fmt.Errorf("termui: the keyboard picker is not supported on %s", runtime.GOOS)
}

func watchResize() (<-chan struct{}, func()) { return nil, func() {} }

func pendingInput(int) int { return 0 }
