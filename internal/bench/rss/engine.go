//go:build linux

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
)

// The engine alone: a child process (this program with -engine-child) that
// runs only the engine, so that what it keeps after a huge input can be
// told from what the front doors' transports keep. The input is built in
// memory mapped outside the Go heap and unmapped after the call: whatever
// stays resident afterwards is the engine's.
var engineChild = flag.String("engine-child", "", "internal: run as the engine child (wasm or native)")

// runEngineChild serves the parent on stdin/stdout: it prints "ready" once
// the engine is up, then for each line "call N" runs one normalize envelope
// of N bytes and prints "done" and the start of the output.
func runEngineChild(kind string) {
	ctx := context.Background()
	handle := func(in []byte) ([]byte, error) { return core.Handle(in), nil }
	if kind == "wasm" {
		e, err := hostgo.New(ctx)
		if err != nil {
			fatal(err)
		}
		defer e.Close(ctx)
		handle = func(in []byte) ([]byte, error) { return e.Handle(ctx, in) }
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "call "))
		if err != nil {
			fatal(err)
		}
		in, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			fatal(err)
		}
		fillEnvelope(in)
		res, err := handle(in)
		if err != nil {
			fatal(err)
		}
		if err := syscall.Munmap(in); err != nil {
			fatal(err)
		}
		fmt.Fprintf(out, "done %.120s\n", res)
		out.Flush()
	}
}

// fillEnvelope writes a normalize envelope of exactly len(b) bytes whose
// arguments are a long text of x (longer than the core takes, hence
// refused: the point is what the engine does with the bytes).
func fillEnvelope(b []byte) {
	const head, tail = `{"op":"normalize","arguments":"`, `"}`
	copy(b, head)
	for i := len(head); i < len(b)-len(tail); i++ {
		b[i] = 'x'
	}
	copy(b[len(b)-len(tail):], tail)
}

// engineFigures measures the engine child of kind: idle, then after an
// input of each size (one process per size), as ratios to its idle figure.
func engineFigures(kind string, cacheHome string) {
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	for _, size := range []struct {
		what string
		n    int
	}{
		{fmt.Sprintf("a %s input (over the cap: never copied in)", mb(float64(*big))), *big},
		{fmt.Sprintf("a %s input (the largest the guest takes)", mb(float64(hostgo.MaxInputBytes))), hostgo.MaxInputBytes},
	} {
		what := fmt.Sprintf("engine alone (%s): after %s, against its idle", kind, size.what)
		after, idle, err := engineOnce(self, kind, cacheHome, size.n)
		if err != nil {
			row(what, "n/a ("+cell(err)+")", "", "", "n/a")
			continue
		}
		r := after / idle
		row(what, fmt.Sprintf("%s (idle %s)", mb(after), mb(idle)), ratio(r),
			fmt.Sprintf("≤ %.1fx", targetAfterBig), passMiss(r <= targetAfterBig))
	}
}

func engineOnce(self, kind, cacheHome string, n int) (after, idle float64, err error) {
	progress("engine child %s: %d bytes", kind, n)
	d := door{
		name: "engine-" + kind,
		bin:  &self,
		args: []string{"-engine-child", kind},
		hello: func(p *proc) error {
			line, err := p.out.ReadString('\n')
			if err != nil || line != "ready\n" {
				return fmt.Errorf("engine child: %q %v; stderr: %.300s", line, err, p.stderr.String())
			}
			return nil
		},
	}
	ps, idle, err := idleOne(d, cacheHome, nil)
	defer stopAll(ps)
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Fprintf(ps[0].in, "call %d\n", n); err != nil {
		return 0, 0, err
	}
	line, err := ps[0].out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "done ") {
		return 0, 0, fmt.Errorf("engine child: %q %v; stderr: %.300s", line, err, ps[0].stderr.String())
	}
	progress("engine child: %s", strings.TrimSpace(line))
	after, err = settledOne(ps)
	return after, idle, err
}
