//go:build unix

package tmuxtest

import "golang.org/x/sys/unix"

// ttySize is the size the terminal device path has: what a program on it
// reads (TIOCGWINSZ). O_NOCTTY: the test must not take it as its own
// controlling terminal.
func ttySize(path string) (cols, rows int, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(fd)
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Col), int(ws.Row), nil
}
