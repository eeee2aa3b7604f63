package termui

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS // not TCSETSF: typed-ahead input is kept
	ioctlInQueue    = unix.TIOCINQ
)

// reopenTerminal opens the terminal f is once more, as an open file of
// its own (through /proc: opening /dev/fd/N would share f's).
func reopenTerminal(f *os.File) (*os.File, error) {
	return os.OpenFile("/proc/self/fd/"+strconv.Itoa(fdOf(f)), os.O_RDONLY|syscall.O_NOCTTY, 0)
}
