//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package termui

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA // not TIOCSETAF: typed-ahead input is kept
	ioctlInQueue    = 0x4004667f    // FIONREAD: _IOR('f', 127, int) on every BSD
)

// reopenTerminal: opening /dev/fd/N shares f's open file here, so f is
// read as it is (see TerminalInput).
func reopenTerminal(*os.File) (*os.File, error) {
	return nil, errors.ErrUnsupported
}
