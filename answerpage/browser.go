package answerpage

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// BrowserOpens reports whether the page would open itself in a browser
// here (with WithBrowser(true)), reading the environment through getenv:
// ASKCORE_BROWSER names a command, or it is not "none" and a desktop
// session is detected (DISPLAY or WAYLAND_DISPLAY on Linux and the BSDs;
// always on macOS and Windows).
func BrowserOpens(getenv func(string) string) bool {
	return opener(runtime.GOOS, getenv, "") != nil
}

// opensBrowser reports whether a page configured by cfg opens itself in
// a browser: WithBrowser(true), and a browser opens here.
func (cfg config) opensBrowser() bool {
	return cfg.browser && opener(runtime.GOOS, cfg.getenv, "") != nil
}

// opener returns the command that opens url in a browser here, or nil
// when none should be started: ASKCORE_BROWSER=none, or no desktop
// session (on Linux and the BSDs, neither DISPLAY nor WAYLAND_DISPLAY is
// set: a remote shell, a container, a CI job).
func opener(goos string, getenv func(string) string, url string) []string {
	switch b := strings.TrimSpace(getenv(EnvBrowser)); {
	case strings.EqualFold(b, "none"):
		return nil
	case b != "":
		return append(strings.Fields(b), url)
	}
	switch goos {
	case "darwin":
		return []string{"open", url}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", url}
	case "android", "ios", "js", "wasip1", "plan9":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	return []string{"xdg-open", url}
}

// openBrowser opens url, in the background, where opener says a browser
// should be opened; a failure is a line in the log (the URL is there
// already).
func (s *Server) openBrowser(url string) {
	argv := opener(runtime.GOOS, s.cfg.getenv, url)
	if argv == nil {
		return
	}
	if s.cfg.open != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.cfg.open(ctx, url); err != nil {
				fmt.Fprintf(s.cfg.log, "askcore: could not open a browser: %v\n", err)
			}
		}()
		return
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(s.cfg.log, "askcore: could not open a browser (%s): %v\n", argv[0], err)
		return
	}
	go cmd.Wait()
}
