//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package termui

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// makeRaw puts the terminal fd in the mode the picker reads keys in: like
// golang.org/x/term's MakeRaw (no line editing, no echo, Ctrl-C and Esc
// arrive as bytes, one byte at a time), except that output processing
// stays on, so "\n" still starts a new line for everything else written to
// the terminal meanwhile (model text, stderr). It returns the function that
// restores the previous mode. Pending input is never flushed.
func makeRaw(fd int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &t); err != nil {
		return nil, err
	}
	return func() error { return unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}

// pendingInput is how many bytes the terminal holds that nobody read yet
// (in raw mode: every byte typed, whole lines or not).
func pendingInput(fd int) int {
	n, err := unix.IoctlGetInt(fd, ioctlInQueue)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// watchResize reports terminal resizes (SIGWINCH) until stop is called.
func watchResize() (changes <-chan struct{}, stop func()) {
	sig := make(chan os.Signal, 1)
	out := make(chan struct{}, 1)
	quit := make(chan struct{})
	exited := make(chan struct{})
	signal.Notify(sig, syscall.SIGWINCH)
	go func() {
		defer close(exited)
		for {
			select {
			case <-sig:
				select {
				case out <- struct{}{}:
				default:
				}
			case <-quit:
				return
			}
		}
	}()
	return out, func() {
		signal.Stop(sig)
		close(quit)
		<-exited
	}
}

// SameTerminal reports whether a and b are the same terminal device (stdout
// and stderr of a program run in a terminal): output to one shows among
// the output to the other, so both go through one SyncWriter (Also).
func SameTerminal(a, b *os.File) bool {
	if !IsTerminal(a) || !IsTerminal(b) {
		return false
	}
	var sa, sb unix.Stat_t
	if unix.Fstat(fdOf(a), &sa) != nil || unix.Fstat(fdOf(b), &sb) != nil {
		return false
	}
	return sa.Rdev == sb.Rdev
}
