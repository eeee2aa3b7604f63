package pagetest

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/askcore/askcore/internal/testing/missing"
)

// ChromiumPath is Debian's Chromium, or $ASKCORE_CHROMIUM.
func ChromiumPath() string {
	if p := os.Getenv("ASKCORE_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Chromium starts a headless Chromium (Debian's, never a downloaded one)
// for the test, driven through github.com/chromedp/chromedp, and returns
// the context of a tab; it ends with the test. Without Chromium the test
// skips, saying how to install it (fails in CI: package missing).
func Chromium(t testing.TB) context.Context {
	t.Helper()
	path := ChromiumPath()
	if _, err := os.Stat(path); err != nil {
		missing.Tool(t, "no Chromium at "+path+"; install it with: apt-get install -y chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// Start the browser now, on this context: chromedp starts it on the
	// first run's, and a run's own timeout would then end it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}
