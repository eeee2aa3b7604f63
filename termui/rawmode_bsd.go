//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package termui

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA // not TIOCSETAF: typed-ahead input is kept
	ioctlInQueue    = 0x4004667f    // FIONREAD: _IOR('f', 127, int) on every BSD
)
