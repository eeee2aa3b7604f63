// The answer page in real headless Chromium, for the interop suites of
// askcore-acp and askcore-mcp (cmd/*/interop/web.test.mjs): Debian's
// chromium driven by playwright-core, never a downloaded browser.
//
// playwright-core is each suite's own dependency: a suite passes the
// import of it (from its node_modules; this folder has none) to
// pagesInChromium.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before } from "node:test";

// CHROMIUM is the browser (ASKCORE_CHROMIUM overrides /usr/bin/chromium).
export const CHROMIUM = process.env.ASKCORE_CHROMIUM ?? "/usr/bin/chromium";

// skip is the reason the page tests skip (no Chromium), else false; a
// suite prints it once.
export const skip = !existsSync(CHROMIUM) && `SKIP: no Chromium at ${CHROMIUM}; install it with: apt-get install -y chromium`;

// ANSWER_AT matches the line a front door writes for each start of the
// page, "askcore: answer at URL"; group 1 is the URL.
export const ANSWER_AT = /askcore: answer at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/)\n/;

// pagesInChromium starts headless Chromium before the test file's tests
// (not when they skip) and closes it after them; it returns openPage(t,
// url) on that browser. importPlaywright imports playwright-core.
export function pagesInChromium(importPlaywright, timeout) {
  let browser;
  before(async () => {
    if (skip) return;
    const { chromium } = await importPlaywright();
    browser = await launch(chromium, timeout);
  });
  after(() => browser?.close());
  return (t, url) => openPage(browser, t, url, timeout);
}

// launch starts headless Chromium with chromium, playwright-core's (the
// suite's, found from the working directory the suite runs in).
function launch(chromium, timeout) {
  const { version } = createRequire(join(process.cwd(), "/"))("playwright-core/package.json");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, timeout, args: chromiumArgs(version) });
}

// PLAYWRIGHT_DISABLED is the --disable-features list that playwright-core
// passes itself (its chromiumSwitches.ts), as of the version named:
// Chromium keeps only the last --disable-features of its command line, so
// chromiumArgs repeats them.
const PLAYWRIGHT_DISABLED = {
  version: "1.65.1",
  features: [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades", "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
  ],
};

// chromiumArgs are the arguments of every Node suite's headless Chromium
// (these suites' and hostjs's browser tests), given the version of the
// playwright-core that launches it. Each browser context is a window of
// its own, and each window of Chromium 156 starts the omnibox's two WebUI
// popups (chrome://omnibox-popup.top-chrome/, each a renderer running the
// popup's scripts): about 2 CPU s a context, nearly half of what
// hostjs's browser test files cost (counted with the renderers, which
// outlive the browser's own rusage), for an address bar no test uses. The
// features that make them are off, with playwright-core's own (above);
// with another playwright-core, whose list may differ, its list is left
// alone and the popups run.
export function chromiumArgs(playwrightVersion) {
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
  if (playwrightVersion === PLAYWRIGHT_DISABLED.version) {
    args.push("--disable-features=" + [...PLAYWRIGHT_DISABLED.features, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"].join(","));
  } else {
    console.log(`# chromium: playwright-core ${playwrightVersion}, not ${PLAYWRIGHT_DISABLED.version}: the omnibox popups stay on (about 2 CPU s a browser context); update PLAYWRIGHT_DISABLED in testdata/interop/chromium.mjs`);
  }
  return args;
}

// openPage opens url in a fresh context of browser; test t fails on any
// page error or console error (a Content-Security-Policy violation is one).
async function openPage(browser, t, url, timeout) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  t.after(async () => {
    await context.close();
    assert.deepEqual(errors, [], "page errors");
  });
  await page.goto(url, { timeout });
  return page;
}
