// The DOM provider (@askcore/askcore/dom) in real headless Chromium
// (Debian's chromium driven by playwright-core; never a downloaded browser),
// on a page served with the answer page's Content-Security-Policy (only
// its own scripts, the wasm compile, Trusted Types): every key of the
// keyboard picker and the mouse, single, multi-select, optionless, own
// text, batches, decline, withdrawal, timeout, previews, notes, hostile
// model text, the accessibility tree. Answers are compared with what the
// core in Node gives for the same picks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { load, answerText, errorText } from '@askcore/askcore';
import { PATIENCE, DB_REQUEST, hostjsDir, launchChromium, skipWithout } from './helpers.mjs';

const skip = skipWithout('chromium');

/** The answer page's policy (answerpage/http.go). */
export const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

const TYPES = { '.js': 'text/javascript', '.html': 'text/html', '.css': 'text/css', '.wasm': 'application/wasm' };

/** Serves / (test/dom/index.html), /dom/* and /pkg/* (browser.js, dom.js, dom.css, lib/, askcore.wasm). */
function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-security-policy': CSP });
      res.end(body);
    };
    if (path === '/') return send(200, TYPES['.html'], readFileSync(join(hostjsDir, 'test', 'dom', 'index.html')));
    if (path === '/favicon.ico') return send(204, 'image/x-icon', '');
    if (path === '/readme') return send(200, TYPES['.html'], '<!doctype html><title>readme</title><link rel="stylesheet" href="/pkg/dom.css"><div id="questions"></div><script type="module" src="/dom/readme.js"></script>');
    if (path === '/dom/readme.js') return send(200, TYPES['.js'], readmeModule());
    let file = null;
    if (path === '/dom/harness.js') file = join(hostjsDir, 'test', 'dom', 'harness.js');
    if (path.startsWith('/pkg/')) {
      const f = normalize(join(hostjsDir, path.slice(5)));
      const ok = ['browser.js', 'dom.js', 'dom.css', 'askcore.wasm'].some((n) => f === join(hostjsDir, n)) ||
        f.startsWith(join(hostjsDir, 'lib') + sep) || f.startsWith(join(hostjsDir, 'demo') + sep);
      if (ok) file = f;
    }
    if (file && existsSync(file) && statSync(file).isFile()) return send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
    send(404, 'text/plain', 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const MODEL = JSON.stringify(DB_REQUEST);

/**
 * README.md's DOM provider example as a module: its imports pointed at
 * the package's files, the names it leaves to the reader given (the
 * model's tool call, sendToModel).
 */
function readmeModule() {
  const readme = readFileSync(join(hostjsDir, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.includes('createDomProvider('));
  assert.equal(blocks.length, 1, 'one README block with createDomProvider(');
  const code = blocks[0].replace(/from '@askcore\/askcore\/dom'/, "from '/pkg/dom.js'").replace(/from '@askcore\/askcore'/, "from '/pkg/browser.js'");
  const given = `const toolCall = { id: 'call_1', arguments: ${JSON.stringify(MODEL)} };\nconst signal = undefined;\nconst sendToModel = (text) => { window.readmeSent = text; };\n`;
  // Imports first (a module's), then the names, then the rest.
  const lines = code.split('\n');
  const imports = lines.filter((l) => l.startsWith('import '));
  return imports.join('\n') + '\n' + given + lines.filter((l) => !l.startsWith('import ')).join('\n');
}
/** @type {import('@askcore/askcore').Core} */
let core;
let browser;
let server;
let origin;

before(async () => {
  core = await load();
  if (skip) return;
  server = await serve();
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/**
 * A fresh page with the harness loaded; fails the test on any page error,
 * console error or CSP violation.
 * @param {import('node:test').TestContext} t
 * @param {{colorScheme?: 'light' | 'dark'}} [options]
 */
async function openPage(t, options = {}) {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(origin + '/', { timeout: PATIENCE });
  await page.waitForFunction(() => window.harnessReady === true, null, { timeout: PATIENCE });
  t.after(async () => {
    const violations = await page.evaluate(() => window.harness.violations).catch(() => []);
    await context.close();
    assert.deepEqual(errors, [], 'page errors');
    assert.deepEqual(violations, [], 'CSP violations');
  });
  return page;
}

/** Asks args through the seam on page; returns the call's id. */
function ask(page, args, options = {}) {
  return page.evaluate(([a, o]) => window.harness.ask(a, o), [args, options]);
}

/** Asks the provider itself (its reply is the outcome). */
function askDirect(page, args, from) {
  return page.evaluate(([a, f]) => window.harness.askDirect(a, f), [args, from]);
}

/** The outcome of call id, once there is one. */
async function outcome(page, id) {
  await page.waitForFunction((i) => window.harness.outcome(i) !== null, id, { timeout: PATIENCE });
  return page.evaluate((i) => window.harness.outcome(i), id);
}

/** What the core in Node answers for args and picks. */
const expected = (args, picks) => answerText(core.resolveAll(args, picks));
const failed = (f) => errorText(core.fail(f));

const opts = { skip, timeout: 4 * PATIENCE };

test('single-select with the keyboard only: the cursor starts on the recommended option, Down moves, Enter chooses', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  const pg = page.getByRole('radio', { name: 'PostgreSQL' });
  await pg.waitFor();
  assert.ok(await pg.isChecked(), 'the recommended option starts chosen');
  assert.ok(await pg.evaluate((e) => e === document.activeElement), 'the focus is on it');
  await page.keyboard.press('ArrowDown');
  assert.ok(await page.getByRole('radio', { name: 'SQLite' }).isChecked());
  await page.keyboard.press('j'); // MySQL
  await page.keyboard.press('k'); // back to SQLite
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [1] }]));
  const form = page.locator('form.askcore-call');
  assert.equal(await form.getAttribute('data-askcore-state'), 'answered');
  assert.equal(await form.locator('.askcore-status').textContent(), '→ SQLite');
});

test('single-select: 1-9 jump to an option', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.keyboard.press('4');
  assert.ok(await page.getByRole('radio', { name: 'MongoDB' }).isChecked());
  await page.keyboard.press('9'); // no 9th option: nothing moves
  assert.ok(await page.getByRole('radio', { name: 'MongoDB' }).isChecked());
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [3] }]));
});

test('single-select with the mouse: a click on the option, then Submit', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByText('MySQL').click();
  await page.getByRole('button', { name: 'Submit' }).click();
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [2] }]));
});

test('own answer: Down past the options reaches the text field, typing chooses it', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
  const text = page.getByRole('textbox', { name: 'Type your own answer' });
  assert.ok(await text.evaluate((e) => e === document.activeElement), 'the own-answer field has the focus');
  await page.keyboard.type('CockroachDB, j and k are letters here');
  assert.ok(await page.getByRole('radio', { name: 'Type your own answer' }).isChecked());
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [], text: 'CockroachDB, j and k are letters here' }]));
});

test('own answer with the mouse: typing in the field, then Submit', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByRole('textbox', { name: 'Type your own answer' }).fill('DuckDB');
  await page.getByRole('button', { name: 'Submit' }).click();
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [], text: 'DuckDB' }]));
});

const MULTI = JSON.stringify({
  header: 'Checks',
  question: 'Which checks should CI run?',
  multiSelect: true,
  options: [{ label: 'lint', recommended: true }, { label: 'unit' }, { label: 'e2e', description: 'slow' }, { label: 'fuzz' }],
  allowCustom: true,
});

test('multi-select with the keyboard: recommended start toggled, Space toggles, Enter confirms', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MULTI);
  const lint = page.getByRole('checkbox', { name: 'lint' });
  await lint.waitFor();
  assert.ok(await lint.isChecked());
  await page.keyboard.press('ArrowDown'); // unit
  await page.keyboard.press('Space');
  await page.keyboard.press('3'); // e2e
  await page.keyboard.press('Space');
  await page.keyboard.press('k'); // unit
  await page.keyboard.press('Space'); // unit off again
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(MULTI, [{ options: [0, 2] }]));
});

test('multi-select: one tab stop per question (roving), Tab reaches the text fields and the buttons', opts, async (t) => {
  const page = await openPage(t);
  await ask(page, MULTI);
  await page.getByRole('checkbox', { name: 'lint' }).waitFor();
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-labelledby') ? document.getElementById(document.activeElement.getAttribute('aria-labelledby').split(' ')[0])?.textContent : document.activeElement?.textContent || document.activeElement?.className);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'Type your own answer');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'askcore-notes-text');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'Submit');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(), 'unit', 'back on the entry the cursor was on');
});

test('multi-select with the mouse and own text', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MULTI);
  await page.getByRole('checkbox', { name: 'lint' }).click(); // off
  await page.getByText('fuzz').click();
  await page.getByRole('textbox', { name: 'Type your own answer' }).fill('mutation testing');
  await page.getByRole('button', { name: 'Submit' }).click();
  assert.equal(await outcome(page, id), expected(MULTI, [{ options: [3], text: 'mutation testing' }]));
});

test('the core judges each pick: its message for the person under the question, the form stays open', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MULTI);
  await page.getByRole('checkbox', { name: 'lint' }).click(); // nothing toggled now
  await page.keyboard.press('Enter');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  let want;
  try {
    core.resolve(MULTI, { options: [] }, 0);
  } catch (err) {
    want = err.message;
  }
  assert.equal(await alert.textContent(), want);
  assert.equal(await page.locator('form.askcore-call').getAttribute('data-askcore-state'), 'open');
  assert.equal(await page.getByRole('group').getAttribute('aria-invalid'), 'true');
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(MULTI, [{ options: [0] }]));
});

const OPEN = JSON.stringify({ question: 'What should the release be called?' });

test('optionless: the text field has the focus; an empty Enter asks again with the core\'s words', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, OPEN);
  const text = page.getByRole('textbox', { name: 'Type your answer' });
  await text.waitFor();
  assert.ok(await text.evaluate((e) => e === document.activeElement));
  await page.keyboard.press('Enter');
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), 'Please type an answer.');
  await page.keyboard.type('Bluebird');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(OPEN, [{ options: [], text: 'Bluebird' }]));
});

const BATCH = JSON.stringify({
  questions: [
    { header: 'Database', question: 'Which database?', options: [{ label: 'PostgreSQL', recommended: true }, { label: 'SQLite' }] },
    { question: 'Which checks?', multiSelect: true, options: ['lint', 'unit', 'e2e'] },
    { question: 'Release name?' },
  ],
});

test('a batch with the keyboard: Enter confirms and moves on, the last Enter submits the whole', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, BATCH);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  assert.equal(await page.getByRole('group').count(), 3);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter'); // Q1: SQLite, on to Q2
  const q1 = page.getByRole('group', { name: /Question 1 of 3/ });
  assert.equal(await q1.locator('.askcore-summary').textContent(), '→ SQLite');
  assert.ok(await page.getByRole('checkbox', { name: 'lint' }).evaluate((e) => e === document.activeElement));
  await page.keyboard.press('Enter'); // nothing toggled: the core says so, the focus stays
  await page.getByRole('alert').waitFor();
  await page.keyboard.press('Space');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter'); // Q2: lint, e2e, on to Q3
  assert.ok(await page.getByRole('textbox', { name: 'Type your answer' }).evaluate((e) => e === document.activeElement));
  await page.keyboard.type('Bluebird');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(BATCH, [{ options: [1] }, { options: [0, 2] }, { options: [], text: 'Bluebird' }]));
});

test('a batch: Submit checks every question and sends the focus to the first that does not answer', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, BATCH);
  await page.getByRole('textbox', { name: 'Type your answer' }).fill('Bluebird');
  await page.getByRole('button', { name: 'Submit' }).click();
  const q2 = page.getByRole('group', { name: /Question 2 of 3/ });
  await q2.getByRole('alert').waitFor();
  assert.ok(await q2.getByRole('checkbox', { name: 'lint' }).evaluate((e) => e === document.activeElement));
  await q2.getByRole('checkbox', { name: 'unit' }).check();
  await page.keyboard.press('Control+Enter'); // submits from anywhere
  assert.equal(await outcome(page, id), expected(BATCH, [{ options: [0] }, { options: [1] }, { options: [], text: 'Bluebird' }]));
});

test('decline: Esc, or the Decline button, is ASK_DECLINED', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await outcome(page, id), failed({ situation: 'declined' }));
  assert.equal(await page.locator('.askcore-status').textContent(), core.picker(MODEL).declined);
  const id2 = await ask(page, BATCH);
  await page.getByRole('button', { name: 'Decline' }).click();
  assert.equal(await outcome(page, id2), failed({ situation: 'declined' }));
});

test('an input method composing: its Enter and Esc are its own', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, OPEN);
  await page.getByRole('textbox', { name: 'Type your answer' }).fill('かな');
  await page.evaluate(() => {
    for (const key of ['Enter', 'Escape']) {
      document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key, isComposing: true, bubbles: true, cancelable: true }));
    }
  });
  assert.equal(await page.evaluate((i) => window.harness.outcome(i), id), null);
  assert.equal(await page.locator('form.askcore-call').getAttribute('data-askcore-state'), 'open');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(OPEN, [{ options: [], text: 'かな' }]));
});

test('withdrawn while open: the form says why and takes nothing more', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.evaluate((i) => window.harness.abort(i, 'the session was cancelled'), id);
  assert.equal(await outcome(page, id), failed({ situation: 'aborted', detail: 'the session was cancelled' }));
  const form = page.locator('form.askcore-call');
  assert.equal(await form.getAttribute('data-askcore-state'), 'ended');
  // Through the seam the provider's signal carries the core's error.
  assert.equal(await form.getByRole('alert').textContent(), core.fail({ situation: 'aborted', detail: 'the session was cancelled' }).message);
  assert.ok(await page.getByRole('radio', { name: 'SQLite' }).isDisabled());
  assert.ok(!(await page.getByRole('button', { name: 'Submit' }).isVisible()));
});

test('answered elsewhere: the form shows that answer (the chosen option, never the recommended start; text; notes) as its outcome, not an error', opts, async (t) => {
  const page = await openPage(t);
  const forms = page.locator('form.askcore-call');
  const a = await askDirect(page, MODEL);
  const b = await askDirect(page, MODEL);
  const c = await askDirect(page, MODEL);
  await page.getByRole('radio', { name: 'MySQL' }).nth(2).waitFor();
  await page.evaluate((i) => window.harness.answeredElsewhere(i, '→ MySQL\nAnswered by ana', { picks: [{ options: [2], notes: 'hosted already' }] }), a);
  await page.evaluate((i) => window.harness.answeredElsewhere(i, '→ CockroachDB', { picks: [{ options: [], text: 'CockroachDB' }] }), b);
  await page.evaluate((i) => window.harness.answeredElsewhere(i, '✗ declined', { decline: true }), c);
  // The provider got no reply itself: its ask ends as aborted, in the reason's words.
  assert.equal(await outcome(page, a), failed({ situation: 'aborted', detail: '→ MySQL\nAnswered by ana' }));
  assert.equal(await outcome(page, c), failed({ situation: 'aborted', detail: '✗ declined' }));

  const first = forms.nth(0);
  assert.equal(await first.getAttribute('data-askcore-state'), 'answered');
  assert.ok(await first.getByRole('radio', { name: 'MySQL' }).isChecked(), 'the chosen option is marked');
  assert.ok(!(await first.getByRole('radio', { name: 'PostgreSQL' }).isChecked()), 'the recommended start is not');
  assert.equal(await first.locator('.askcore-notes-text').inputValue(), 'hosted already');
  const status = first.locator('.askcore-status');
  assert.equal(await status.textContent(), '→ MySQL\nAnswered by ana');
  assert.equal(await status.getAttribute('role'), 'status');
  assert.equal(await status.evaluate((e) => e.classList.contains('askcore-status-error')), false);
  assert.notEqual(await status.evaluate((e) => getComputedStyle(e).color), await page.evaluate(() => {
    const probe = document.createElement('p');
    probe.className = 'askcore-status askcore-status-error';
    document.body.appendChild(probe);
    return getComputedStyle(probe).color;
  }), 'not the error colour');

  const second = forms.nth(1);
  assert.equal(await second.getAttribute('data-askcore-state'), 'answered');
  assert.equal(await second.getByRole('textbox', { name: 'Type your own answer' }).inputValue(), 'CockroachDB');
  assert.equal(await second.locator('input[type="radio"]:checked').count(), 1, 'only the own-answer entry');
  assert.ok(!(await second.getByRole('radio', { name: 'PostgreSQL' }).isChecked()));

  const third = forms.nth(2);
  assert.equal(await third.getAttribute('data-askcore-state'), 'declined');
  assert.equal(await third.locator('input:checked').count(), 0, 'a decline marks nothing');
  assert.equal(await third.getByRole('status').textContent(), '✗ declined');
});

test('timed out while open: the core\'s message', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, MODEL, { timeoutMs: 300 });
  assert.equal(await outcome(page, id), failed({ situation: 'timeout', ms: 300 }));
  assert.equal(await page.locator('form.askcore-call').getByRole('alert').textContent(), core.fail({ situation: 'timeout', ms: 300 }).message);
});

test('close(): every form on the page ends with the core\'s input_closed', opts, async (t) => {
  const page = await openPage(t);
  const a = await ask(page, MODEL);
  const b = await ask(page, OPEN);
  await page.getByRole('textbox', { name: 'Type your answer' }).waitFor();
  await page.evaluate(() => window.harness.close());
  assert.equal(await outcome(page, a), failed({ situation: 'input_closed' }));
  assert.equal(await outcome(page, b), failed({ situation: 'input_closed' }));
  assert.equal(await page.locator('form[data-askcore-state="ended"]').count(), 2);
  assert.equal(await outcome(page, await ask(page, OPEN)), failed({ situation: 'input_closed' }));
});

test('the core cannot judge a pick (an engine fault): the ask fails with that error, the form says so', opts, async (t) => {
  const page = await openPage(t);
  const id = await page.evaluate((a) => window.harness.askBroken(a), MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), 'Error: the engine is gone');
  const form = page.locator('form.askcore-call');
  assert.equal(await form.getAttribute('data-askcore-state'), 'ended');
  assert.equal(await form.getByRole('alert').textContent(), 'the engine is gone');
});

test('two calls at once: two forms; the one being answered keeps the focus', opts, async (t) => {
  const page = await openPage(t);
  const a = await ask(page, MODEL);
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor();
  await page.keyboard.press('ArrowDown');
  const b = await ask(page, OPEN);
  await page.getByRole('textbox', { name: 'Type your answer' }).waitFor();
  assert.ok(await page.getByRole('radio', { name: 'SQLite' }).evaluate((e) => e === document.activeElement), 'the new form did not take the focus');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, a), expected(MODEL, [{ options: [1] }]));
  // The focus goes on to the form still open.
  assert.ok(await page.getByRole('textbox', { name: 'Type your answer' }).evaluate((e) => e === document.activeElement));
  await page.keyboard.type('second');
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, b), expected(OPEN, [{ options: [], text: 'second' }]));
});

const PREVIEWS = JSON.stringify({
  question: 'Which layout?',
  options: [
    { label: 'Flat', preview: 'src/\n  main.go\n  util.go', recommended: true },
    { label: 'Nested', description: 'by feature', preview: 'src/\n  api/\n    handler.go\n\tdb/' },
    { label: 'Either' },
  ],
});

test('previews: the focused option\'s preview in a <pre>, monospace, its shape kept; described by it', opts, async (t) => {
  const page = await openPage(t);
  await ask(page, PREVIEWS);
  const flat = page.getByRole('radio', { name: 'Flat' });
  await flat.waitFor();
  const shown = () => page.locator('pre.askcore-preview:visible').allTextContents();
  const layout = core.picker(PREVIEWS).questions[0];
  assert.deepEqual(await shown(), [layout.entries[0].preview]);
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await shown(), [layout.entries[1].preview]);
  assert.match(layout.entries[1].preview, /^src\/\n {2}api\/\n {4}handler\.go\n {4}db\/$/, 'tabs expanded by the core');
  const font = await page.locator('pre.askcore-preview:visible').evaluate((e) => getComputedStyle(e).fontFamily);
  assert.match(font, /mono/i);
  // The preview is part of the option's description for a screen reader.
  const described = await page.getByRole('radio', { name: 'Nested' }).evaluate((e) => e.getAttribute('aria-describedby').split(' ').map((id) => document.getElementById(id).textContent));
  assert.deepEqual(described, ['by feature', layout.entries[1].preview]);
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await shown(), [], 'no preview for an option without one');
  // Pointing at an option shows its preview too.
  await page.getByText('Flat').hover();
  assert.deepEqual(await shown(), [layout.entries[0].preview]);
});

test('previews: a Markdown fence is shown as the code block it is, not as a line of backticks; still text', opts, async (t) => {
  const page = await openPage(t);
  await ask(page, JSON.stringify({
    question: 'Which guard?',
    options: [
      { label: 'Early return', preview: '```go\nif err != nil {\n\treturn err\n}\n```', recommended: true },
      { label: 'Shell', preview: 'Run:\n~~~sh\necho "<b>hi</b>"\n~~~' },
    ],
  }));
  await page.getByRole('radio', { name: 'Early return' }).waitFor();
  const shown = () => page.locator('pre.askcore-preview:visible').allTextContents();
  assert.deepEqual(await shown(), ['if err != nil {\n    return err\n}']);
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await shown(), ['Run:\necho "<b>hi</b>"'], 'text, never HTML');
  assert.equal(await page.locator('pre.askcore-preview b').count(), 0);
});

test('notes: a text field per question; the reply carries them', opts, async (t) => {
  const page = await openPage(t);
  const id = await askDirect(page, BATCH);
  const notes = page.getByRole('textbox', { name: 'Notes (optional)' });
  await notes.first().waitFor();
  assert.equal(await notes.count(), 3);
  const form = core.elicitation(BATCH).requestedSchema.properties;
  assert.equal(await notes.first().getAttribute('maxlength'), String(form.notes_1.maxLength));
  await notes.first().fill('keep v15');
  await page.getByRole('group', { name: /Question 2/ }).getByRole('checkbox', { name: 'unit' }).check();
  await notes.nth(2).fill('   '); // blank: no notes
  await page.getByRole('textbox', { name: 'Type your answer' }).fill('Bluebird');
  await page.keyboard.press('Control+Enter');
  const reply = JSON.parse(await outcome(page, id));
  assert.deepEqual(reply, { picks: [{ options: [0], notes: 'keep v15' }, { options: [1] }, { options: [], text: 'Bluebird' }] });
  // The form shows the core's summary of each pick.
  const summaries = reply.picks.map((p, i) => '→ ' + core.summary(BATCH, core.resolve(BATCH, p, i), i));
  assert.equal(await page.locator('.askcore-status').textContent(), summaries.join('\n'));
});

const HOSTILE = JSON.stringify({
  header: '<b>bold</b>',
  question: 'Run <script>window.pwned=1</script> or <img src=x onerror="window.pwned=2">? \u202Eevil\u202C &amp; more',
  options: [
    { label: '<img src=y onerror="window.pwned=3">', description: '<a href="javascript:window.pwned=4">link</a>', preview: '<svg onload="window.pwned=5"></svg>' },
    { label: 'ok\u2066\u202Ereversed\u2069', value: 'v' },
  ],
  allowCustom: true,
});

test('hostile model text: shown as text, nothing run, no element made of it, bidi controls gone', opts, async (t) => {
  const page = await openPage(t);
  const id = await ask(page, HOSTILE);
  await page.locator('form.askcore-call').waitFor();
  const layout = core.picker(HOSTILE).questions[0];
  assert.equal(await page.locator('.askcore-text').textContent(), layout.question);
  assert.ok(layout.question.includes('<script>window.pwned=1</script>'), 'the core keeps the text as text');
  assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(layout.question + layout.entries[1].label), 'the core removed the bidi controls');
  assert.equal(await page.locator('.askcore-header').textContent(), '<b>bold</b>');
  assert.equal(await page.locator('.askcore-label').first().textContent(), layout.entries[0].label);
  assert.equal(await page.locator('.askcore-description').textContent(), layout.entries[0].description);
  assert.equal(await page.locator('pre.askcore-preview').textContent(), layout.entries[0].preview);
  assert.equal(await page.locator('#root img, #root script, #root svg, #root a, #root b, #root iframe').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  await page.getByRole('radio', { name: layout.entries[0].label }).check();
  await page.keyboard.press('Enter');
  assert.equal(await outcome(page, id), expected(HOSTILE, [{ options: [0] }]));
  assert.equal(await page.evaluate(() => window.pwned), undefined);
});

test('accessibility: every option reachable by role and name; groups named by their question', opts, async (t) => {
  const page = await openPage(t);
  await ask(page, BATCH);
  await ask(page, MODEL);
  await page.getByRole('radio', { name: 'MongoDB' }).waitFor();
  for (const q of core.picker(BATCH).questions) {
    const group = page.getByRole('group', { name: q.position });
    assert.equal(await group.count(), 1, q.position);
    for (const e of q.entries) {
      const role = q.multiSelect ? 'checkbox' : 'radio';
      assert.equal(await group.getByRole(role, { name: e.label, exact: !e.recommended }).count(), 1, `${q.position}: ${role} ${e.label}`);
    }
    if (q.custom) assert.equal(await group.getByRole('textbox', { name: q.custom }).count(), 1);
    assert.equal(await group.getByRole('textbox', { name: 'Notes (optional)' }).count(), 1);
  }
  const single = page.locator('form.askcore-call').nth(1);
  for (const o of core.picker(MODEL).questions[0].entries) {
    assert.equal(await single.getByRole('radio', { name: o.recommended ? `${o.label} recommended` : o.label, exact: true }).count(), 1, o.label);
  }
  // The browser's accessibility tree names them so.
  const tree = await page.locator('#root').ariaSnapshot();
  for (const want of ['group "Question 1 of 3 Database Which database?"', 'radio "PostgreSQL recommended" [checked]', 'checkbox "lint"', 'textbox "Type your answer"', 'button "Submit"', 'button "Decline"', 'radio "MongoDB"']) {
    assert.ok(tree.includes(want), `${want} in\n${tree}`);
  }
});

test('light and dark: the theme follows prefers-color-scheme', opts, async (t) => {
  const colors = {};
  for (const scheme of /** @type {const} */ (['light', 'dark'])) {
    const page = await openPage(t, { colorScheme: scheme });
    await ask(page, MODEL);
    const form = page.locator('form.askcore-call');
    await form.waitFor();
    colors[scheme] = await form.evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]);
  }
  assert.deepEqual(colors.light, ['rgb(255, 255, 255)', 'rgb(27, 31, 36)']);
  assert.deepEqual(colors.dark, ['rgb(13, 17, 23)', 'rgb(230, 237, 243)']);
});

test('a submit hook: its refusal is shown and the form stays open; its words replace the summary', opts, async (t) => {
  const page = await openPage(t);
  await page.evaluate(() => window.harness.resetSubmit(['the server said no'], 'sent to the server'));
  const id = await ask(page, MODEL);
  await page.getByRole('button', { name: 'Send' }).click();
  const form = page.locator('form.askcore-call');
  await form.getByRole('alert').filter({ hasText: 'the server said no' }).waitFor();
  assert.equal(await form.getAttribute('data-askcore-state'), 'open');
  await page.getByRole('button', { name: 'Send' }).click();
  assert.equal(await outcome(page, id), expected(MODEL, [{ options: [0] }]));
  assert.equal(await form.locator('.askcore-status').textContent(), 'sent to the server');
  assert.deepEqual(await page.evaluate(() => window.harness.submitted), [JSON.stringify({ picks: [{ options: [0] }] }), JSON.stringify({ picks: [{ options: [0] }] })]);
  const id2 = await ask(page, MODEL);
  await page.getByRole('button', { name: 'Skip' }).click();
  assert.equal(await outcome(page, id2), failed({ situation: 'declined' }));
});

test('who asks: the agent named above the form, as text', opts, async (t) => {
  const page = await openPage(t);
  await askDirect(page, OPEN, { agentId: 'reviewer <b>2</b>\u202E' });
  await page.locator('.askcore-from').waitFor();
  assert.equal(await page.locator('.askcore-from').textContent(), core.sanitizeTitle('reviewer <b>2</b>\u202E'));
  assert.equal(await page.locator('#root b').count(), 0);
});

test('time from an ask to its form painted, on an open page (the core loaded)', opts, async (t) => {
  const page = await openPage(t);
  const times = await page.evaluate(async (args) => {
    const out = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      window.harness.ask(args);
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      if (document.querySelectorAll('form.askcore-call').length !== i + 1) throw new Error('no form painted');
      out.push(performance.now() - t0);
    }
    return out;
  }, BATCH);
  times.sort((a, b) => a - b);
  t.diagnostic(`ask to form painted (3-question batch, warm page): median ${times[2].toFixed(1)} ms, max ${times[4].toFixed(1)} ms`);
  assert.equal(await page.locator('form.askcore-call').count(), 5);
});

test('README: the DOM provider example, answered with the keyboard, sends the model the core\'s answer', opts, async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(origin + '/readme', { timeout: PATIENCE });
    await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.readmeSent, null, { timeout: PATIENCE });
    assert.equal(await page.evaluate(() => window.readmeSent), answerText(core.resolveAll(MODEL, [{ options: [1] }])));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the demo page asks its three calls and logs what the model receives', opts, async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(origin + '/pkg/demo/dom.html', { timeout: PATIENCE });
    await page.getByRole('radio', { name: 'Flat' }).waitFor({ timeout: PATIENCE });
    await page.keyboard.press('Enter'); // Flat
    await page.getByRole('checkbox', { name: 'Fuzzing' }).waitFor();
    await page.keyboard.press('Enter'); // the recommended checks
    await page.getByRole('textbox', { name: 'Type your answer' }).waitFor();
    await page.getByRole('textbox', { name: 'Type your answer' }).fill('Bluebird');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('log').textContent.split('\n').length > 3, null, { timeout: PATIENCE });
    const lines = (await page.locator('#log').textContent()).trim().split('\n');
    assert.equal(lines.length, 3);
    assert.equal(JSON.parse(lines[0]).answer, 'Flat');
    assert.deepEqual(JSON.parse(lines[1]).answers, ['Lint', 'Unit tests']);
    assert.deepEqual(JSON.parse(lines[2]).answers.map((a) => a.answer), ['Production', 'Bluebird']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
