//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkAskFirstPaint measures what a person waits for: the time from
// starting "askcore-stdio ask --request" on a terminal (a pseudo-terminal
// of 80x24: stdin, stdout and stderr on it) to the whole question on it:
// the keyboard picker's first frame (one write, whose last line is the key
// help), and, in runs interleaved with those, the line mode's prompt
// (--plain: the "? " after the question). On both engines, wasm with a
// warm compilation cache. Each run answers with Enter and waits for the
// exit. Medians, in milliseconds (picker-ms, line-ms):
//
//	go test -run '^$' -bench BenchmarkAskFirstPaint -benchtime 20x ./cmd/askcore-stdio
func BenchmarkAskFirstPaint(b *testing.B) {
	cache := b.TempDir()
	picker := func(out []byte) bool { return bytes.Contains(out, []byte("↑/↓ move")) }
	// The rule "? ───", the question, then the prompt "? ".
	line := func(out []byte) bool { return bytes.Count(out, []byte("? ")) >= 2 }
	for _, eng := range []string{"native", "wasm"} {
		b.Run(eng, func(b *testing.B) {
			args := []string{"ask", "--engine", eng, "--request", askRequest}
			plain := append(slices.Clone(args), "--plain")
			env := baseEnv("TERM=xterm-256color", "LANG=C.UTF-8", "XDG_CACHE_HOME="+cache)
			if _, err := paintOnce(env, args, picker); err != nil { // warms the cache
				b.Fatal(err)
			}
			var p, l []time.Duration
			for b.Loop() {
				dp, err := paintOnce(env, args, picker)
				if err != nil {
					b.Fatal(err)
				}
				dl, err := paintOnce(env, plain, line)
				if err != nil {
					b.Fatal(err)
				}
				p, l = append(p, dp), append(l, dl)
			}
			b.ReportMetric(median(p), "picker-ms")
			b.ReportMetric(median(l), "line-ms")
			b.ReportMetric(0, "ns/op") // two runs an op: the medians above are the figures
		})
	}
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// paintOnce runs the binary on a new pseudo-terminal and returns the time
// from its start until what it wrote there is done; then it answers with
// Enter and waits for the exit.
func paintOnce(env, args []string, done func([]byte) bool) (time.Duration, error) {
	master, slave, err := openPty(80, 24)
	if err != nil {
		return 0, err
	}
	defer master.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		slave.Close()
		return 0, err
	}
	slave.Close()
	var out []byte
	buf := make([]byte, 4096)
	for !done(out) {
		n, rerr := master.Read(buf)
		out = append(out, buf[:n]...)
		if rerr != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return 0, fmt.Errorf("reading the terminal: %w; got %q", rerr, out)
		}
	}
	took := time.Since(start)
	if _, err := master.Write([]byte("\r")); err != nil {
		return 0, err
	}
	go func() { // drain until the slave side is gone
		for {
			if _, err := master.Read(buf); err != nil {
				return
			}
		}
	}()
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("askcore-stdio ask: %w; screen %q", err, out)
	}
	return took, nil
}

// openPty opens a pseudo-terminal pair of cols x rows.
func openPty(cols, rows int) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, err
	}
	rc, err := master.SyscallConn()
	if err != nil {
		return fail(err)
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr != nil {
			return
		}
		n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
	}); err != nil || ierr != nil {
		return fail(errors.Join(err, ierr))
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return fail(err)
	}
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	if rc, err := slave.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
	}
	if ierr != nil {
		slave.Close()
		return fail(ierr)
	}
	return master, slave, nil
}
