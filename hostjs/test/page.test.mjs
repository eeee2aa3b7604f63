// The answer page of the real binary, `askcore-stdio ask --web
// --no-browser`, in headless Chromium (Debian's chromium driven by
// playwright-core): the URL read from its stderr, the question answered on
// the page with the keyboard or the mouse, the core's answer on its stdout.
// The page runs the same askcore.wasm as the Go binary; what it posts is
// judged again by the binary's core. Also: the locks seen from a browser
// (a page on another local port that knows the URL), a second window, a
// question withdrawn (SIGTERM) or timed out while open, hostile model
// text, the accessibility tree, and the page's transfer size and time to
// the first question. The binary is built with go into a temporary
// directory; the test skips when Chromium or go is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, answerText, errorText } from '@askcore/askcore';
import { PATIENCE, DB_REQUEST, answerURL, goBuild, launchChromium, pageTransfer, skipWithout } from './helpers.mjs';

const skip = skipWithout('chromium', './cmd/askcore-stdio');

let core;
let browser;
let dir;
let bin;

before(async () => {
  core = await load();
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'askcore-page-'));
  bin = goBuild('./cmd/askcore-stdio', dir);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `askcore-stdio ask --web --no-browser --request args ...extra` and
 * resolves once it printed the URL.
 * @param {import('node:test').TestContext} t
 */
function startAsk(t, args, extra = []) {
  return startPage(t, ['ask', '--web', '--no-browser', '--request', args, ...extra]);
}

/**
 * Runs askcore-stdio with argv (its stdin a pipe with `input` written,
 * else none) and resolves once it printed the page's URL.
 * @param {import('node:test').TestContext} t
 * @param {string[]} argv
 * @param {string} [input]
 */
async function startPage(t, argv, input) {
  const started = Date.now();
  const child = spawn(bin, argv, {
    env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', ASKCORE_BROWSER: '' },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin.write(input);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  const served = answerURL(child);
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, get stdout() { return stdout; }, get stderr() { return served.stderr(); } })));
  t.after(() => child.exitCode === null && child.kill('SIGKILL'));
  const url = await served.url;
  return { child, url, done, started };
}

/**
 * A fresh window on url (a browser context of contextOptions: a phone's);
 * fails the test on page errors, console errors and CSP violations
 * (collected in the page) unless watch is false or a function that returns
 * false by the test's end.
 * @param {import('node:test').TestContext} t
 */
async function openPage(t, url, { watch = true, contextOptions = {} } = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    // The event stream's reconnect after the binary exits is expected.
    if (m.type() === 'error' && !/ERR_CONNECTION_REFUSED|net::ERR_|Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url, { timeout: PATIENCE });
  t.after(async () => {
    const violations = await page.evaluate(() => window.__violations).catch(() => []);
    await context.close();
    if (typeof watch === 'function' ? watch() : watch) {
      assert.deepEqual(errors, [], 'page errors');
      assert.deepEqual(violations, [], 'CSP violations');
    }
  });
  return page;
}

/** The process's end: exit code and stdout. */
async function finished(run) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the binary did not exit')), PATIENCE)));
  // The timer is cleared: a pending one kept the file's process alive for
  // PATIENCE after its last test (two minutes of every test-js run).
  return Promise.race([run.done, late]).finally(() => clearTimeout(timer));
}

const MODEL = JSON.stringify(DB_REQUEST);
const expected = (args, picks) => answerText(core.resolveAll(args, picks)) + '\n';
const failed = (f) => errorText(core.fail(f)) + '\n';
const opts = { skip, timeout: 4 * PATIENCE };

test('single question with the keyboard: the core\'s answer on stdout; the page\'s size and time to the question', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const context = await browser.newContext();
  t.after(() => context.close());
  const page = await context.newPage();
  const responses = [];
  page.on('response', (r) => responses.push(r));
  const t0 = Date.now();
  await page.goto(run.url, { timeout: PATIENCE });
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.waitForFunction(() => window.__askcorePage?.firstQuestionMs > 0, null, { timeout: PATIENCE });
  const { firstQuestionMs, origin } = await page.evaluate(() => ({ firstQuestionMs: window.__askcorePage.firstQuestionMs, origin: performance.timeOrigin }));
  // What the page loaded, compressed as it came.
  const { bytes: transfer, wasm } = await pageTransfer(responses);
  assert.ok(wasm, 'askcore.wasm was loaded');
  assert.equal(wasm.headers['content-type'], 'application/wasm');
  assert.equal(wasm.headers['content-encoding'], 'gzip');
  assert.ok(wasm.size < 1_000_000, `askcore.wasm came gzipped: ${wasm.size} bytes`);
  t.diagnostic(`page: ${responses.length - 1} files, ${transfer} bytes transferred (askcore.wasm ${wasm.size} gzipped); ` +
    `first question painted ${firstQuestionMs.toFixed(0)} ms after navigation (${Date.now() - t0} ms for the test's goto and waits), ` +
    `${(origin + firstQuestionMs - run.started).toFixed(0)} ms after the binary was started`);

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.locator('form[data-askcore-state="answered"]').waitFor();
  assert.equal(await page.locator('.askcore-status').textContent(), '→ SQLite');
  const r = await finished(run);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, expected(MODEL, [{ options: [1] }]));
  // The binary is gone: the page says so.
  await page.getByText('The asking program stopped serving this page').waitFor();
});

test('multi-select with the mouse', opts, async (t) => {
  const args = JSON.stringify({ question: 'Which checks?', multiSelect: true, options: [{ label: 'lint', recommended: true }, 'unit', 'e2e'] });
  const run = await startAsk(t, args);
  const page = await openPage(t, run.url);
  await page.getByRole('checkbox', { name: 'unit' }).click();
  await page.getByText('e2e').click();
  await page.getByRole('button', { name: 'Submit' }).click();
  const r = await finished(run);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, expected(args, [{ options: [0, 1, 2] }]));
});

test('after a submit the page says "Your answer was sent", also once the program stopped', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'SQLite' }).check();
  await page.getByRole('button', { name: 'Submit' }).click();
  await page.locator('#status').filter({ hasText: 'Your answer was sent.' }).waitFor({ timeout: PATIENCE });
  const r = await finished(run);
  assert.equal(r.code, 0);
  await page.locator('#status').filter({ hasText: /^Your answer was sent\. The asking program stopped serving this page/ }).waitFor({ timeout: PATIENCE });
});

test('a touch device without hover gets no keyboard hint line; a desktop does; the phone answers by touch', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const desktop = await openPage(t, run.url);
  const phone = await openPage(t, run.url, { contextOptions: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } });
  for (const page of [desktop, phone]) await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  const help = (page) => page.locator('.askcore-help').first();
  assert.ok(await help(desktop).isVisible(), 'the desktop shows the keys');
  assert.ok(await help(phone).isHidden(), 'the phone does not');
  await phone.getByRole('radio', { name: 'SQLite' }).tap();
  await phone.getByRole('button', { name: 'Submit' }).tap();
  await phone.locator('#status').filter({ hasText: 'Your answer was sent.' }).waitFor({ timeout: PATIENCE });
  const r = await finished(run);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, expected(MODEL, [{ options: [1] }]));
});

test('"Your answer was sent" stays after a reload in the same tab while the program serves the page (a chat), and once it exited', opts, async (t) => {
  const script = join(dir, 'chat.jsonl');
  writeFileSync(script, [
    { content: 'asking', tool_calls: [{ id: 'q1', name: 'ask_user_question', arguments: DB_REQUEST }] },
    { content: 'A1={{answer}}' },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const run = await startPage(t, ['--web', '--no-browser', '--engine', 'native', '--script', script], 'go\n');
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'SQLite' }).check();
  await page.getByRole('button', { name: 'Submit' }).click();
  const status = page.locator('#status');
  await status.filter({ hasText: 'Your answer was sent.' }).waitFor({ timeout: PATIENCE });
  await page.reload();
  await page.waitForFunction(() => window.__askcorePage?.ready, null, { timeout: PATIENCE });
  assert.equal(await status.textContent(), 'Your answer was sent.', 'the program still serves the page: nothing waits, and the tab remembers');
  run.child.stdin.end();
  const r = await finished(run);
  assert.equal(r.code, 0, r.stderr);
  await status.filter({ hasText: /^Your answer was sent\. The asking program stopped serving this page/ }).waitFor({ timeout: PATIENCE });
  assert.match(r.stdout, /A1=SQLite/, "the model got the answer");
});

test('optionless, and own text on a question with options', opts, async (t) => {
  const open = JSON.stringify({ question: 'Release name?' });
  let run = await startAsk(t, open);
  let page = await openPage(t, run.url);
  await page.getByRole('textbox', { name: 'Type your answer' }).waitFor();
  await page.keyboard.type('Bluebird');
  await page.keyboard.press('Enter');
  let r = await finished(run);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, expected(open, [{ options: [], text: 'Bluebird' }]));

  run = await startAsk(t, MODEL);
  page = await openPage(t, run.url);
  await page.getByRole('textbox', { name: 'Type your own answer' }).fill('CockroachDB');
  await page.keyboard.press('Enter');
  r = await finished(run);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, expected(MODEL, [{ options: [], text: 'CockroachDB' }]));
});

const BATCH = JSON.stringify({
  questions: [
    { header: 'Layout', question: 'Which layout?', options: [{ label: 'Flat', preview: 'src/\n  main.go', recommended: true }, { label: 'Nested', preview: 'src/\n  api/\n    h.go' }] },
    { question: 'Which checks?', multiSelect: true, options: ['lint', 'unit'] },
    { question: 'Release name?' },
  ],
});

test('a batch with previews and notes, keyboard only: the notes reach the answer (the binary\'s core)', opts, async (t) => {
  const run = await startAsk(t, BATCH);
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'Flat' }).waitFor();
  assert.deepEqual(await page.locator('pre.askcore-preview:visible').allTextContents(), ['src/\n  main.go']);
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await page.locator('pre.askcore-preview:visible').allTextContents(), ['src/\n  api/\n    h.go']);
  await page.keyboard.press('Tab'); // the notes of question 1
  await page.keyboard.type('but keep the tests flat');
  await page.keyboard.press('Enter'); // question 1 confirmed: on to 2
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Bluebird');
  await page.keyboard.press('Enter');
  const r = await finished(run);
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout);
  assert.deepEqual(answer.answers.map((a) => a.notes), ['but keep the tests flat', undefined, undefined]);
  assert.equal(answer.answers[0].answer, 'Nested');
  assert.deepEqual(answer.answers[1].answers, ['lint']);
  assert.equal(answer.answers[2].answer, 'Bluebird');
});

test('decline: Esc is ASK_DECLINED, exit 5', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.keyboard.press('Escape');
  const r = await finished(run);
  assert.equal(r.code, 5);
  assert.equal(r.stdout, failed({ situation: 'declined' }));
  await page.locator('form[data-askcore-state="declined"]').waitFor();
  assert.equal(await page.locator('.askcore-status').textContent(), core.picker(MODEL).declined);
});

test('timed out while the page is open: the page says so, exit 4', opts, async (t) => {
  // The question must be on the page before it times out. On a loaded
  // machine Chromium can take longer than the timeout to paint it (CI saw
  // a page that first loaded after an 8 s question had ended), so a try
  // whose program ended before the page showed the question proves
  // nothing and is repeated with a longer timeout.
  for (const seconds of [8, 20, 60]) {
    const run = await startAsk(t, MODEL, ['--timeout', `${seconds}s`]);
    let late = false;
    const page = await openPage(t, run.url, { watch: () => !late }).catch(() => null);
    const shown = page !== null && await Promise.race([
      page.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE }).then(() => run.child.exitCode === null),
      run.done.then(() => false),
    ]);
    if (!shown) {
      late = true; // a page that loaded as the program ended may log failed loads
      t.diagnostic(`the page did not show the question within ${seconds} s; trying again with a longer timeout`);
      await finished(run);
      continue;
    }
    const ms = seconds * 1000;
    const msg = core.fail({ situation: 'timeout', ms }).message;
    await page.getByRole('alert').filter({ hasText: msg }).waitFor({ timeout: PATIENCE });
    assert.equal(await page.locator('form.askcore-call').getAttribute('data-askcore-state'), 'ended');
    assert.ok(await page.getByRole('radio', { name: 'SQLite' }).isDisabled());
    const r = await finished(run);
    assert.equal(r.code, 4);
    assert.equal(r.stdout, failed({ situation: 'timeout', ms }));
    return;
  }
  assert.fail('the page never showed the question before it timed out');
});

test('withdrawn while the page is open (SIGTERM): the page says why, exit 3', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  run.child.kill('SIGTERM');
  const msg = core.fail({ situation: 'aborted', detail: 'terminated (SIGTERM)' }).message;
  await page.getByRole('alert').filter({ hasText: msg }).waitFor({ timeout: PATIENCE });
  const r = await finished(run);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, failed({ situation: 'aborted', detail: 'terminated (SIGTERM)' }));
});

test('two windows: one answers, the other says it was answered elsewhere', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const a = await openPage(t, run.url);
  const b = await openPage(t, run.url);
  await a.getByRole('radio', { name: 'MySQL' }).waitFor();
  await b.getByRole('radio', { name: 'MySQL' }).waitFor();
  await a.getByRole('radio', { name: 'MySQL' }).check();
  await a.getByRole('button', { name: 'Submit' }).click();
  await b.getByRole('alert').filter({ hasText: '(answered in another window)' }).waitFor();
  assert.equal(await b.locator('.askcore-status').textContent(), '→ MySQL\n(answered in another window)');
  assert.equal(await a.locator('.askcore-status').textContent(), '→ MySQL');
  const r = await finished(run);
  assert.equal(r.stdout, expected(MODEL, [{ options: [2] }]));
});

const HOSTILE = JSON.stringify({
  header: '<b>bold</b>',
  question: 'Run <script>window.pwned=1</script> or <img src=x onerror="window.pwned=2">? \u202Eevil\u202C',
  options: [
    { label: '<img src=y onerror="window.pwned=3">', description: '<a href="javascript:window.pwned=4">x</a>', preview: '<svg onload="window.pwned=5"></svg>' },
    { label: 'ok\u2066\u202Ereversed\u2069' },
  ],
});

test('hostile model text: shown as text, nothing run, nothing blocked (nothing was tried)', opts, async (t) => {
  const run = await startAsk(t, HOSTILE);
  const page = await openPage(t, run.url);
  const layout = core.picker(HOSTILE).questions[0];
  await page.locator('.askcore-text').waitFor();
  assert.equal(await page.locator('.askcore-text').textContent(), layout.question);
  assert.equal(await page.locator('.askcore-header').textContent(), '<b>bold</b>');
  assert.equal(await page.locator('pre.askcore-preview').textContent(), layout.entries[0].preview);
  assert.equal(await page.locator('main img, main script, main svg, main a, main b').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  await page.getByRole('radio', { name: layout.entries[1].label }).check();
  await page.keyboard.press('Enter');
  const r = await finished(run);
  assert.equal(r.stdout, expected(HOSTILE, [{ options: [1] }]));
  assert.equal(await page.evaluate(() => window.pwned), undefined);
});

test('accessibility: every option reachable by role and name in the accessibility tree', opts, async (t) => {
  const run = await startAsk(t, BATCH);
  const page = await openPage(t, run.url);
  await page.getByRole('radio', { name: 'Flat' }).waitFor();
  for (const q of core.picker(BATCH).questions) {
    const group = page.getByRole('group', { name: q.position });
    for (const e of q.entries) {
      assert.equal(await group.getByRole(q.multiSelect ? 'checkbox' : 'radio', { name: e.label }).count(), 1, `${q.position} ${e.label}`);
    }
    if (q.custom) assert.equal(await group.getByRole('textbox', { name: q.custom }).count(), 1);
    assert.equal(await group.getByRole('textbox', { name: 'Notes (optional)' }).count(), 1);
  }
  const tree = await page.locator('main').ariaSnapshot();
  for (const want of ['heading "askcore"', 'status', 'radio "Flat recommended" [checked]', 'checkbox "unit"', 'button "Submit"']) {
    assert.ok(tree.includes(want), `${want} in\n${tree}`);
  }
  await page.keyboard.press('Escape');
  assert.equal((await finished(run)).code, 5);
});

/** The id of the first question pending at url, read from its event stream. */
async function questionId(url) {
  const controller = new AbortController();
  const res = await fetch(new URL('events', url), { signal: controller.signal });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      text += value;
      const m = /"id":"([0-9a-f]{16})"/.exec(text);
      if (m) return m[1];
    }
  } finally {
    controller.abort();
  }
}

// A page on another local port that knows the whole URL, token and all:
// the browser sends its requests with credentials and tells the server
// where they come from; the server refuses them, and the page can read
// nothing back. The question stays, and is answered afterwards.
test('a page on another local port cannot answer, read or listen', opts, async (t) => {
  const run = await startAsk(t, MODEL);
  const evil = createServer((req, res) => {
    res.writeHead(200, { 'content-type': req.url.startsWith('/evil.js') ? 'text/javascript' : 'text/html' });
    if (req.url.startsWith('/evil.js')) {
      res.end(`
        const [id, url] = decodeURIComponent(location.hash.slice(1)).split(' ');
        const target = new URL(url);
        const out = {};
        const body = JSON.stringify({ id, reply: { decline: true } });
        const tryIt = async (name, f) => { try { const r = await f(); out[name] = r === undefined ? 'done' : String(r); } catch (e) { out[name] = 'error ' + e.name; } };
        await tryIt('pending', async () => { const r = await fetch(new URL('events', target), { credentials: 'include' }); return r.status; });
        await tryIt('nocors', async () => { const r = await fetch(new URL('answer', target), { method: 'POST', mode: 'no-cors', credentials: 'include', body }); return r.type + ' ' + r.status; });
        await tryIt('cors', async () => { const r = await fetch(new URL('answer', target), { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body }); return r.status; });
        await tryIt('page', async () => { const r = await fetch(target, { credentials: 'include' }); return (await r.text()).length; });
        await tryIt('wasm', async () => { const r = await fetch(new URL('host/askcore.wasm', target)); return r.status; });
        await new Promise((resolve) => { const es = new EventSource(new URL('events', target), { withCredentials: true }); es.onmessage = () => { out.es = 'message'; resolve(); }; es.addEventListener('pending', () => { out.es = 'pending event'; resolve(); }); es.onerror = () => { out.es = 'error'; es.close(); resolve(); }; });
        await tryIt('frame', () => new Promise((resolve) => { const f = document.createElement('iframe'); f.src = target; f.onload = () => { try { resolve('read ' + f.contentDocument.body.textContent.length); } catch (e) { resolve('unreadable'); } }; document.body.append(f); }));
        window.result = out;
      `);
    } else {
      res.end('<!doctype html><title>evil</title><body><script type="module" src="/evil.js"></script></body>');
    }
  });
  await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve));
  t.after(() => evil.close());
  const context = await browser.newContext();
  t.after(() => context.close());
  const page = await context.newPage();
  // It knows the question's id too (read here, as the page would).
  const id = await questionId(run.url);
  await page.goto(`http://127.0.0.1:${evil.address().port}/#${id} ${run.url}`, { timeout: PATIENCE });
  await page.waitForFunction(() => window.result, null, { timeout: PATIENCE });
  const result = await page.evaluate(() => window.result);
  // CORS hides every response; the no-cors post (no preflight) is refused
  // by the server, and its response withheld from the page
  // (Cross-Origin-Resource-Policy) or opaque.
  assert.equal(result.pending, 'error TypeError');
  assert.ok(['error TypeError', 'opaque 0'].includes(result.nocors), `no-cors: ${result.nocors}`);
  assert.equal(result.cors, 'error TypeError');
  assert.equal(result.page, 'error TypeError');
  assert.equal(result.wasm, 'error TypeError');
  assert.equal(result.es, 'error');
  assert.ok(result.frame === 'unreadable' || result.frame.startsWith('error'), `frame: ${result.frame}`);
  // Nothing was taken: the question is still there, answered by the page.
  assert.equal(run.child.exitCode, null, 'the binary is still asking');
  const own = await openPage(t, run.url);
  await own.getByRole('radio', { name: 'SQLite' }).check();
  await own.getByRole('button', { name: 'Submit' }).click();
  const r = await finished(run);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, expected(MODEL, [{ options: [1] }]));
});
