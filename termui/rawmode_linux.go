package termui

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS // not TCSETSF: typed-ahead input is kept
	ioctlInQueue    = unix.TIOCINQ
)
