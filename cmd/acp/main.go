package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/askcore/askcore/frontdoor"
)

func main() {
	// From the first moment: a signal during start-up is handled too.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	// The ACP SDK's own diagnostics go through slog.Default: to stderr.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel(os.Getenv)})))
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, sigs))
}

// stopSignals end askcore-acp (serve: every pending question withdrawn,
// the final updates written) with status 128 + the signal's number.
var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// closeGrace bounds the engine's release after a signal (stopGrace +
// closeGrace < 2 s).
const closeGrace = 300 * time.Millisecond

// run is the whole program; it returns the exit status. A signal on sigs
// (nil: none) ends it as serve describes.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, sigs <-chan os.Signal) int {
	fs := flag.NewFlagSet("askcore-acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: askcore-acp [--script FILE] [--engine wasm|native]")
		fmt.Fprintln(stderr, "An ACP agent on stdio; configure your editor to launch it (see the README).")
		fs.PrintDefaults()
	}
	var settings frontdoor.Settings
	settings.AddFlags(fs)
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, "askcore-acp", frontdoor.Version())
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "askcore-acp: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}

	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel(getenv)}))
	// Check the model settings now (a bad --script fails here, not at the
	// first session); the engine opens in the background.
	if _, source, err := settings.Model(getenv); err != nil {
		fmt.Fprintf(stderr, "askcore-acp: %v\n", err)
		return 1
	} else {
		log.Info("askcore-acp ready", "model", string(source), "engine", settings.Engine)
	}
	a := newApp(func(ctx context.Context) (*frontdoor.Runtime, error) {
		return frontdoor.Build(ctx, settings, getenv)
	}, log)
	sig := serve(a, stdin, stdout, sigs)

	grace := 5 * time.Second
	if sig != nil {
		grace = closeGrace
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := a.close(ctx); err != nil {
		log.Warn("closing the engine", "err", err)
	}
	if sig != nil {
		return exitStatus(sig)
	}
	return 0
}

// exitStatus is the conventional status of a program a signal ended:
// 128 + its number (SIGHUP 129, SIGINT 130, SIGTERM 143).
func exitStatus(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// signalName is SIGTERM, SIGINT or SIGHUP (else Go's name for sig).
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// logLevel is warn unless ASKCORE_LOG=debug or info.
func logLevel(getenv func(string) string) slog.Level {
	switch getenv("ASKCORE_LOG") {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
