#!/usr/bin/env node
// The answer page's figures for `make bench` (scripts/bench.sh), in
// headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
//
//   1. warm time to a question: the browser is already open on the page,
//      which stays open across questions; a new question is asked and the
//      time is taken from the ask to its first paint on the page (the
//      question's text in the DOM, then one animation frame and a task, as
//      page.js times its first question). The server is internal/bench/page:
//      one answerpage.Server asking the questions in turn, on one URL (a
//      second `askcore-stdio ask --web` is a new process with a new URL).
//      Browser start and the page's first load are excluded.
//   2. the page's transfer: the response bodies as transferred (gzip
//      accepted, as the browser asks), the event stream left out; and the
//      wasm's Content-Type and Content-Encoding.
//   3. the idle server's RSS (VmRSS of /proc/PID/status) once every
//      question was answered, nothing pending, the page still open, after
//      the figure settled (no change over 1% for 2 s, at most 20 s).
//
//   node bench/page.mjs [--runs N] [--bin PAGEBENCH] [--engine wasm|native] [-v]
//
// Without --bin it builds ./internal/bench/page with go (GO) into a
// temporary directory. Prints a markdown table. Exits 0 when Chromium is
// missing (saying so), 1 on a failure; a missed target is not a failure.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
// The browser tests' Chromium, go build, reading of the page's URL and
// measure of its transfer.
import { CHROMIUM, PATIENCE, answerURL, goBuild, launchChromium, pageTransfer } from '../test/helpers.mjs';

const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    bin: { type: 'string' },
    engine: { type: 'string', default: 'wasm' },
    v: { type: 'boolean', default: false },
  },
});
const runs = Number(opt.runs);

// Targets.
const TARGET_WARM_MS = 300;
const TARGET_TRANSFER = 1_000_000; // bytes, gzipped, the whole page
const TARGET_RSS_MB = 64;

if (!existsSync(CHROMIUM)) {
  console.log(`page bench: skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set ASKCORE_CHROMIUM)`);
  process.exit(0);
}

const log = (...a) => opt.v && console.error('page bench:', ...a);
const tmp = mkdtempSync(join(tmpdir(), 'askcore-pagebench-'));
let child;
let browser;
try {
  const bin = opt.bin ?? goBuild('./internal/bench/page', tmp);

  // The server, and its URL from stderr.
  child = spawn(bin, ['-engine', opt.engine], { stdio: ['pipe', 'pipe', 'pipe'] });
  const url = await answerURL(child).url;
  log('serving', url);
  const answered = new Map();
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    let i;
    while ((i = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      const m = /^(answered|failed) (\d+) (.*)$/.exec(line);
      if (m) answered.get(Number(m[2]))?.(m);
    }
  });
  const answerOf = (n) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`question ${n} was not answered`)), PATIENCE);
    answered.set(n, (m) => {
      clearTimeout(timer);
      if (m[1] === 'failed') reject(new Error(`question ${n}: ${m[3]}`));
      else resolve(m[3]);
    });
  });

  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const responses = [];
  page.on('response', (r) => responses.push(r));

  // The page's first load, with nothing pending.
  const loadStart = Date.now();
  await page.goto(url, { timeout: PATIENCE });
  await page.waitForFunction(() => window.__askcorePage?.ready, null, { timeout: PATIENCE });
  const loadMs = Date.now() - loadStart;

  // 2. What it loaded, as transferred.
  const { bytes: transfer, files, wasm } = await pageTransfer(responses);
  for (const f of files) log(`${f.size} B ${f.encoding ?? ''} ${f.url.replace(url, '/')}`);
  if (!wasm) throw new Error('the page loaded no askcore.wasm');

  // 1. Questions in turn on the open page.
  const times = [];
  for (let n = 1; n <= runs; n++) {
    const question = `Bench question ${n}?`;
    await page.evaluate((q) => {
      window.__bench = new Promise((resolve) => {
        const seen = () => [...document.querySelectorAll('.askcore-text')].some((e) => e.textContent === q);
        const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.timeOrigin + performance.now())));
        if (seen()) return done();
        const mo = new MutationObserver(() => {
          if (seen()) {
            mo.disconnect();
            done();
          }
        });
        mo.observe(document.body, { childList: true, subtree: true, characterData: true });
      });
    }, question);
    const answer = answerOf(n);
    const asked = performance.timeOrigin + performance.now();
    child.stdin.write(JSON.stringify({ question, options: [{ label: 'Yes', recommended: true }, 'No'] }) + '\n');
    const painted = await page.evaluate(() => window.__bench);
    times.push(painted - asked);
    log(`question ${n}: ${(painted - asked).toFixed(1)} ms`);
    const form = page.locator('form.askcore-call').filter({ hasText: question });
    await form.getByRole('radio', { name: 'No' }).check();
    await form.getByRole('button', { name: 'Submit' }).click();
    const got = JSON.parse(await answer);
    if (got.answer !== 'No') throw new Error(`question ${n}: answered ${JSON.stringify(got)}`);
  }
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);

  // 3. The idle server's RSS, settled.
  const rss = () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  let last = rss();
  let stableSince = Date.now();
  const settleStart = Date.now();
  while (Date.now() - stableSince < 2000 && Date.now() - settleStart < 20_000) {
    await new Promise((r) => setTimeout(r, 100));
    const now = rss();
    if (Math.abs(now - last) > last * 0.01) {
      last = now;
      stableSince = Date.now();
    }
  }
  const idleMB = rss();

  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const max = sorted[sorted.length - 1];
  const mark = (ok) => (ok ? 'met' : 'missed');
  const ct = wasm.headers['content-type'];
  const ce = wasm.headers['content-encoding'] ?? 'none';
  console.log(`The answer page (${opt.engine} engine, ${runs} questions in turn on one open page; first load ${loadMs} ms, excluded)`);
  console.log();
  console.log('| measure | result | target | |');
  console.log('|---|---|---|---|');
  console.log(`| ask to the question's first paint, warm: median | ${median.toFixed(0)} ms | < ${TARGET_WARM_MS} ms | ${mark(median < TARGET_WARM_MS)} |`);
  console.log(`| ask to the question's first paint, warm: max | ${max.toFixed(0)} ms | < ${TARGET_WARM_MS} ms | ${mark(max < TARGET_WARM_MS)} |`);
  console.log(`| the page's transfer (${files.length} files, gzip) | ${(transfer / 1000).toFixed(1)} kB (wasm ${(wasm.size / 1000).toFixed(1)} kB) | < ${TARGET_TRANSFER / 1000} kB | ${mark(transfer < TARGET_TRANSFER)} |`);
  console.log(`| the wasm's Content-Type, Content-Encoding | ${ct}, ${ce} | application/wasm, gzip | ${mark(ct === 'application/wasm' && ce === 'gzip')} |`);
  console.log(`| idle server RSS, nothing pending | ${idleMB.toFixed(1)} MB | ≤ ${TARGET_RSS_MB} MB | ${mark(idleMB <= TARGET_RSS_MB)} |`);
} catch (e) {
  console.error('page bench:', e?.stack ?? e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  if (child && child.exitCode === null) {
    child.stdin.end();
    const exited = new Promise((r) => child.on('exit', r));
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
  rmSync(tmp, { recursive: true, force: true });
}
