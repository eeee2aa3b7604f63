package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/askcore/askcore/frontdoor"
)

func main() {
	// The ACP SDK's own diagnostics go through slog.Default: to stderr.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel(os.Getenv)})))
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is the whole program; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
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
	serve(a, stdin, stdout)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.close(ctx); err != nil {
		log.Warn("closing the engine", "err", err)
	}
	return 0
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
