// The hub's inbox of the real binary (`askcore-hub serve` on a SQLite file)
// in headless Chromium (Debian's chromium driven by playwright-core): a
// person signs in with the one-time link `askcore-hub login` prints, an
// agent asks through the real agent API (POST /v1/asks with its token), the
// question appears on the open inbox by itself, the person answers it with
// the keyboard picker's keys, the agent's long poll gets the reply, and a
// second signed-in browser sees it answered (by whom, when, where). Also:
// the page on a phone-sized screen (large targets, a screenshot), its
// accessibility tree, hostile agent and model text, and no CSP violation;
// and `askcore-stdio ask --hub` (built too), its question on the terminal
// and in the inbox at once: answered in the inbox, the terminal question is
// withdrawn; answered on the terminal, the open inbox says so.
// The binary is built with go into a temporary directory; the test skips
// when Chromium or go is missing. ASKCORE_INBOX_SCREENSHOT=path keeps the
// phone screenshot (docs/inbox-phone.png is made so).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATIENCE, DB_REQUEST, freePort, goBuild, launchChromium, skipWithout } from './helpers.mjs';
import { load, answerText } from '../node.js';

const skip = skipWithout('chromium', './cmd/askcore-hub');

let browser;
let dir;
let bin;
/** askcore-stdio, for the tests of `ask --hub`. */
let stdioBin;
/** The hub every test uses (each with agents of its own). */
let hub;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'askcore-inbox-'));
  bin = goBuild('./cmd/askcore-hub', dir);
  stdioBin = goBuild('./cmd/askcore-stdio', dir);
  browser = await launchChromium();
  hub = await startHub();
});

after(async () => {
  if (hub?.child.exitCode === null) {
    hub.child.kill('SIGTERM');
    await new Promise((resolve) => hub.child.on('exit', resolve));
  }
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI with args on the hub's database; resolves to its stdout. */
function cli(hub, ...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: hub.env, timeout: PATIENCE });
  assert.equal(r.status, 0, `askcore-hub ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * Starts `askcore-hub serve` on a fresh SQLite file and a free port (or
 * those of `again`, a hub stopped before: a restart), and waits until it
 * answers. args are more flags of serve.
 */
async function startHub({ again, args = [] } = {}) {
  const home = again?.home ?? mkdtempSync(join(dir, 'hub-'));
  const port = again?.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, XDG_DATA_HOME: home, ASKCORE_HUB_DB: join(home, 'hub.db') };
  const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  child.stdout.resume();
  const deadline = Date.now() + PATIENCE;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`askcore-hub serve exited: ${stderr}`);
    try {
      const res = await fetch(`${base}/signin`);
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`askcore-hub serve did not answer: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { base, env, child, home, port, get stderr() { return stderr; } };
}

/** Stops a hub as a signal stops `askcore-hub serve`, and waits until it exited. */
async function stopHub(h) {
  if (h.child.exitCode !== null) return;
  const exited = new Promise((resolve) => h.child.on('exit', resolve));
  h.child.kill('SIGTERM');
  await exited;
}

/**
 * A reverse proxy in front of the hub at its `port` (set once the hub
 * listens), as a person's TLS proxy is: while `down`, the inbox's event
 * stream gets a 502 (what a proxy answers while the hub it fronts
 * restarts), and so does any request the hub does not take.
 */
async function startProxy() {
  const proxy = { down: false, base: '', port: 0, close: () => Promise.resolve() };
  const server = createHttpServer((req, res) => {
    const fail = () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    };
    if (proxy.down && req.url?.startsWith('/inbox/events')) return fail();
    const up = httpRequest({ host: '127.0.0.1', port: proxy.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', fail);
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  proxy.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  });
  return proxy;
}

/** A sign-in link for the hub's person, as `askcore-hub login` prints it. */
function loginLink(hub) {
  const out = cli(hub, 'login', '--url', hub.base);
  const m = /(http:\/\/\S+\/signin\?token=[A-Za-z0-9_-]{43})/.exec(out);
  assert.ok(m, `no sign-in link in: ${out}`);
  return m[1].replace(/^http:\/\/[^/]+/, hub.base);
}

/** An agent's token, as `askcore-hub agent add NAME` prints it. */
function agentToken(hub, name) {
  const out = cli(hub, 'agent', 'add', name);
  const m = /\b([A-Za-z0-9_-]{43,})\b/.exec(out);
  assert.ok(m, `no agent token in: ${out}`);
  return m[1];
}

/** The agent API with one agent's token. */
function agentAPI(hub, token) {
  const call = async (method, path, body) => {
    const res = await fetch(hub.base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    ask: async (args, toolCallId, sessionId) => {
      const r = await call('POST', '/v1/asks', { arguments: JSON.stringify(args), toolCallId, sessionId });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r));
      return r.body.id;
    },
    poll: async (id, wait) => (await call('GET', `/v1/asks/${id}?wait=${wait}`)).body,
  };
}

/**
 * A fresh browser context signed in with a fresh link: the link's page,
 * its button, the inbox. Fails the test on page errors and CSP violations.
 * @param {import('node:test').TestContext} t
 */
async function signIn(t, hub, contextOptions = {}, expected = /net::ERR_|Failed to load resource|status of 409/) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.test(m.text())) errors.push(m.text());
  });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(loginLink(hub), { timeout: PATIENCE });
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${hub.base}/`);
  await page.waitForFunction(() => window.__askcoreInbox?.ready, null, { timeout: PATIENCE });
  t.after(async () => {
    const violations = await page.evaluate(() => window.__violations).catch(() => []);
    await context.close();
    assert.deepEqual(errors, [], 'page errors');
    assert.deepEqual(violations, [], 'CSP violations');
  });
  return page;
}

const opts = { skip, timeout: 4 * PATIENCE };

test('sign in with the link, an ask appears live, answered with the keys; the agent gets it; a second browser sees it answered', opts, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'builder'));
  const first = await signIn(t, hub);
  const second = await signIn(t, hub);
  await first.getByText('No question is waiting for an answer').waitFor();

  // The link was used: a second try with it signs nobody in.
  const id = await agent.ask(DB_REQUEST, 'call-1', 'session-a');
  await first.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  await second.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  assert.equal(await first.getByRole('heading', { level: 2 }).first().textContent(), 'builder');
  assert.equal(await first.getByRole('heading', { level: 3 }).first().textContent(), 'Session session-a');
  assert.match(await first.locator('.ask-meta time').first().textContent(), /^asked just now$/);
  assert.equal(await first.locator('#status').textContent(), '1 question is waiting for your answer.');
  assert.equal(await first.locator('#announce').textContent(), 'New question from builder.');
  // The title badge: the count shows in a tab or window list while the page is open.
  assert.equal(await first.title(), '(1) askcore inbox');

  // The keys: the form has the focus (it arrived with nothing focused),
  // ArrowDown moves to SQLite, Enter confirms and sends.
  await first.getByRole('radio', { name: 'PostgreSQL' }).focus();
  await first.keyboard.press('ArrowDown');
  await first.keyboard.press('Enter');
  await first.locator('form[data-askcore-state="answered"]').waitFor({ timeout: PATIENCE });

  const got = await agent.poll(id, 30);
  assert.equal(got.state, 'replied');
  assert.deepEqual(got.reply.picks.map((p) => p.options), [[1]]);

  // The other browser is told: answered, by whom, when, where.
  const ended = second.locator('form.askcore-call:not([data-askcore-state="open"])');
  await ended.waitFor({ timeout: PATIENCE });
  const text = await ended.locator('.askcore-status').textContent();
  assert.match(text, /SQLite/);
  assert.match(text, /Answered by .+ at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC from the inbox \(Chrome on Linux\)/);
  assert.ok(await second.getByRole('radio', { name: 'PostgreSQL' }).isDisabled());
});

test('on a phone: grouped by agent and session, newest first, large targets, hostile text shown as text; screenshot', opts, async (t) => {
  const builder = agentAPI(hub, agentToken(hub, 'release-bot'));
  const reviewer = agentAPI(hub, agentToken(hub, 'reviewer'));
  const page = await signIn(t, hub, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await builder.ask(DB_REQUEST, 'call-1', 'schema');
  await builder.ask({ question: 'Run the migrations on staging now?', options: [{ label: 'Yes', recommended: true }, 'No, wait for review'] }, 'call-2', 'deploy');
  await reviewer.ask({ header: '<b>Style</b>', question: 'Keep the <script>alert(1)</script> helper?', options: ['Keep', 'Inline it'] }, 'call-3', 'review-42');
  await page.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  await page.getByRole('radio', { name: 'Keep', exact: true }).waitFor({ timeout: PATIENCE });

  // Newest first: the reviewer's ask, then release-bot's newest session.
  const agents = await page.locator('section.agent > h2').allTextContents();
  assert.deepEqual(agents, ['reviewer', 'release-bot']);
  const sessions = await page.locator('section.agent').nth(1).locator('h3').allTextContents();
  assert.deepEqual(sessions, ['Session deploy', 'Session schema']);
  assert.equal(await page.locator('img').count(), 0, 'no element made of agent or model text');
  assert.equal(await page.locator('script:not([src])').count(), 0);
  await page.getByText('Keep the <script>alert(1)</script> helper?').waitFor();

  // Every control at least 44 px high on a phone.
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('button, .askcore-entry, input[type="text"]')]
      .filter((e) => e.getClientRects().length > 0)
      .map((e) => ({ what: e.textContent?.trim() || e.getAttribute('aria-labelledby') || e.tagName, h: e.getBoundingClientRect().height }))
      .filter((x) => x.h < 44));
  assert.deepEqual(small, [], 'targets under 44 px');
  // Nothing wider than the screen.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scrolling');

  // Landmarks and labels for a screen reader.
  const tree = await page.locator('body').ariaSnapshot();
  assert.match(tree, /- banner:/);
  assert.match(tree, /- main/);
  assert.match(tree, /- heading "release-bot" \[level=2\]/);
  assert.match(tree, /- radio "PostgreSQL/);
  assert.match(tree, /- button "Sign out"/);
  assert.equal(await page.locator('#announce').getAttribute('aria-live'), 'assertive');

  const png = await page.screenshot({ fullPage: false });
  if (process.env.ASKCORE_INBOX_SCREENSHOT) writeFileSync(process.env.ASKCORE_INBOX_SCREENSHOT, png);
  assert.ok(png.length > 10_000);

  // An agent's name and session id are text too.
  const hostile = agentAPI(hub, agentToken(hub, '<img src=x onerror=alert(1)>'));
  await hostile.ask({ question: 'Proceed?', options: ['Yes', 'No'] }, 'call-4', '<svg onload=alert(2)>');
  await page.getByRole('heading', { name: '<img src=x onerror=alert(1)>', level: 2 }).waitFor({ timeout: PATIENCE });
  await page.getByRole('heading', { name: 'Session <svg onload=alert(2)>', level: 3 }).waitFor();
  assert.equal(await page.locator('img, svg').count(), 0, 'no element made of agent text');
});

test('the sign-in link: a GET (a link scanner) uses nothing up, the button signs in once', opts, async (t) => {
  const link = loginLink(hub);
  // A scanner fetches the link twice.
  for (let i = 0; i < 2; i++) {
    const res = await fetch(link);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('set-cookie'), null);
    await res.text();
  }
  const context = await browser.newContext();
  t.after(() => context.close());
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${hub.base}/`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  const cookies = await context.cookies();
  assert.equal(cookies.length, 1);
  assert.equal(cookies[0].httpOnly, true);
  assert.equal(cookies[0].sameSite, 'Strict');
  // The same link again, in another browser: used.
  const other = await browser.newContext();
  t.after(() => other.close());
  const again = await other.newPage();
  await again.goto(link);
  await again.getByRole('button', { name: 'Sign in' }).click();
  await again.getByText('was used already or has expired').waitFor();
  assert.deepEqual(await other.cookies(), []);
  // A link to the inbox in another site: the SameSite=Strict cookie stays
  // home on that navigation; the hub's own link brings it.
  const elsewhere = createHttpServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<a id="go" href="${hub.base}/">the inbox</a>`);
  });
  await new Promise((resolve) => elsewhere.listen(0, 'localhost', resolve));
  t.after(() => elsewhere.close());
  const site = await context.newPage();
  await site.goto(`http://localhost:${/** @type {import('node:net').AddressInfo} */ (elsewhere.address()).port}/`);
  await site.click('#go');
  await site.getByText('You are not signed in.').waitFor();
  await site.getByRole('link', { name: 'open the inbox' }).click();
  await site.getByRole('button', { name: 'Sign out' }).waitFor();
  await site.close();

  // Sign out: back to the signed-out page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are not signed in.').waitFor();
});

test('the page\'s own notifications: asked for from a click, shown for a live ask while the person looks elsewhere', opts, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'notifier'));
  const page = await signIn(t, hub);
  const button = page.getByRole('button', { name: 'Notify me of new questions' });
  await button.waitFor({ timeout: PATIENCE });
  await page.context().grantPermissions(['notifications'], { origin: hub.base });
  await button.click();
  await button.waitFor({ state: 'hidden', timeout: PATIENCE });
  assert.equal(await page.evaluate(() => Notification.permission), 'granted');
  // Record the notifications the page makes, and look elsewhere.
  await page.evaluate(() => {
    window.__notes = [];
    const Real = window.Notification;
    window.Notification = class extends Real {
      constructor(title, options) {
        super(title, options);
        window.__notes.push({ title, body: options.body, tag: options.tag });
      }
    };
    document.hasFocus = () => false;
  });
  const id = await agent.ask(DB_REQUEST, 'call-n', 'session-n');
  await page.waitForFunction(() => window.__notes.length > 0, null, { timeout: PATIENCE });
  const notes = await page.evaluate(() => window.__notes);
  assert.equal(notes.length, 1);
  assert.equal(notes[0].title, 'notifier asks');
  assert.equal(notes[0].tag, id);
  assert.equal(notes[0].body, 'Database: Which database should the service use?');
});

/**
 * `askcore-stdio ask --hub` with its question on the terminal (line mode,
 * stdin a pipe) and in the inbox at once. Resolves to the process and its
 * collected output.
 */
function askThroughHub(hub, token) {
  const child = spawn(stdioBin, ['ask', '--engine', 'native', '--hub', hub.base, '--request', JSON.stringify(DB_REQUEST)], {
    env: { ...process.env, ASKCORE_HUB_TOKEN: token, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (out.stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, exited };
}

/** The exit code of exited, or a failure after PATIENCE. */
async function exitWithin(exited, out) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`askcore-stdio did not exit; stderr:\n${out.stderr}`)), PATIENCE);
  });
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('askcore-stdio ask --hub: answered in the inbox, the terminal question is withdrawn in the core\'s words and the answer is the person\'s', opts, async (t) => {
  const core = await load();
  const token = agentToken(hub, 'terminal-inbox');
  const page = await signIn(t, hub);
  const run = askThroughHub(hub, token);
  t.after(() => run.child.kill());
  // This agent's form: the hub holds other tests' asks too.
  const form = page.getByRole('form', { name: 'Question from terminal-inbox', exact: true });
  await form.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  assert.match(run.out.stderr, /Which database should the service use\?/, 'the question is on the terminal too');
  await form.getByRole('radio', { name: 'PostgreSQL' }).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.equal(await exitWithin(run.exited, run.out), 0, run.out.stderr);
  const want = answerText(core.resolveAll(DB_REQUEST, [{ options: [1], text: '' }]));
  assert.equal(run.out.stdout, want + '\n', "the person's answer, byte for byte");
  const withdrawn = core.fail({ situation: 'answered_elsewhere', detail: "the hub's inbox" });
  assert.ok(run.out.stderr.includes(withdrawn.message), `the terminal does not say where it was answered:\n${run.out.stderr}`);
});

test('askcore-stdio ask --hub: answered in the terminal, the open inbox shows it answered there', opts, async (t) => {
  const core = await load();
  const token = agentToken(hub, 'terminal-local');
  const page = await signIn(t, hub);
  const run = askThroughHub(hub, token);
  t.after(() => run.child.kill());
  const form = page.getByRole('form', { name: 'Question from terminal-local', exact: true });
  await form.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  run.child.stdin.end('3\n');
  assert.equal(await exitWithin(run.exited, run.out), 0, run.out.stderr);
  const want = answerText(core.resolveAll(DB_REQUEST, [{ options: [2], text: '' }]));
  assert.equal(run.out.stdout, want + '\n');
  const ended = form.and(page.locator(':not([data-askcore-state="open"])'));
  await ended.waitFor({ timeout: PATIENCE });
  // The inbox says, in the core's words, where it was answered.
  const elsewhere = core.fail({ situation: 'answered_elsewhere', detail: 'the terminal' });
  assert.equal(await ended.locator('.askcore-status').textContent(), elsewhere.message);
  assert.ok(await form.getByRole('radio', { name: 'PostgreSQL' }).isDisabled(), 'the inbox form is closed');
});

test('answered on another device: the open inbox marks what was chosen (not the recommended option), with notes, as an outcome not an error; times age', opts, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'answered-elsewhere'));
  const desktop = await signIn(t, hub);
  const phone = await signIn(t, hub);
  // The desktop's clock, to fast-forward: installed, then the page loaded
  // again so that its script's timers are the clock's.
  await desktop.context().clock.install();
  await desktop.reload();
  await desktop.waitForFunction(() => window.__askcoreInbox?.ready, null, { timeout: PATIENCE });
  const id = await agent.ask(DB_REQUEST, 'call-elsewhere', 'session-e');
  const card = desktop.locator(`article[data-ask-id="${id}"]`);
  await card.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  // The phone picks MySQL and adds a note (as its form posts it).
  const posted = await phone.evaluate(async ([askId, csrf]) => {
    const res = await fetch('/inbox/reply', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-askcore-csrf': csrf },
      body: JSON.stringify({ id: askId, reply: { picks: [{ options: [2], text: '', notes: 'hosted already' }] } }),
    });
    return res.status;
  }, [id, await phone.locator('meta[name="askcore-csrf"]').getAttribute('content')]);
  assert.equal(posted, 200);
  await card.locator('form[data-askcore-state="answered"]').waitFor({ timeout: PATIENCE });
  assert.ok(await card.getByRole('radio', { name: 'MySQL' }).isChecked(), 'the chosen option is marked');
  assert.ok(!(await card.getByRole('radio', { name: 'PostgreSQL' }).isChecked()), 'the unchosen recommended option is not');
  assert.equal(await card.locator('.askcore-notes-text').inputValue(), 'hosted already');
  const status = card.locator('.askcore-status');
  assert.match(await status.textContent(), /MySQL[\s\S]*Answered by .+ from the inbox/);
  assert.equal(await status.evaluate((e) => e.classList.contains('askcore-status-error')), false, 'not styled as an error');
  assert.equal(await status.getAttribute('role'), 'status');
  // Answered, its time still ages.
  assert.equal(await card.locator('.ask-meta time').textContent(), 'asked just now');
  await desktop.context().clock.fastForward('03:00');
  await card.locator('.ask-meta time').filter({ hasText: /^asked 3 min ago$/ }).waitFor({ timeout: PATIENCE });
});

test('times age, and the inbox says when the asking program is not waiting now', opts, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'stopped'));
  const context = await browser.newContext();
  t.after(() => context.close());
  await context.clock.install();
  const page = await context.newPage();
  await page.goto(loginLink(hub), { timeout: PATIENCE });
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${hub.base}/`);
  await page.waitForFunction(() => window.__askcoreInbox?.ready, null, { timeout: PATIENCE });
  const id = await agent.ask(DB_REQUEST, 'call-stopped', '');
  const card = page.locator(`article[data-ask-id="${id}"]`);
  await card.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  assert.equal(await card.locator('.ask-meta time').textContent(), 'asked just now');
  assert.ok(await card.locator('.ask-not-waiting').isHidden(), 'the program has just asked: it waits');
  const session = page.locator('section.session', { has: card });
  assert.equal(await session.locator('h3').count(), 0, 'an ask without a session gets no "No session" heading');
  await context.clock.fastForward('03:00');
  await card.getByText('asked 3 min ago').waitFor({ timeout: PATIENCE });
  await card.getByText('The asking program is not waiting now').waitFor({ timeout: PATIENCE });
});

test('a touch device without hover gets no keyboard hint line; a desktop does', opts, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'touch'));
  const desktop = await signIn(t, hub);
  const phone = await signIn(t, hub, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const id = await agent.ask(DB_REQUEST, 'call-touch', 's');
  for (const page of [desktop, phone]) await page.locator(`article[data-ask-id="${id}"]`).getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  const help = (page) => page.locator(`article[data-ask-id="${id}"] .askcore-help`).first();
  assert.ok(await help(desktop).isVisible(), 'the desktop shows the keys');
  assert.ok(await help(phone).isHidden(), 'the phone does not');
});

test('the hub restarts behind a proxy that answers 502 meanwhile: the page says the connection was lost, comes back by itself, shows the same asks and the one answered meanwhile as answered; a page opened meanwhile comes too', opts, async (t) => {
  const proxied = await startProxy();
  t.after(() => proxied.close());
  let h = await startHub({ args: ['--url', proxied.base] });
  t.after(() => stopHub(h));
  proxied.port = h.port;
  const agent = agentAPI(h, agentToken(h, 'restarting'));
  // The page through the proxy (the browser's one origin); a phone on the hub itself.
  const throughProxy = () => signIn(t, { ...h, base: proxied.base }, {}, /net::ERR_|Failed to load resource|status of 409|EventSource's response has a (status|MIME type)/);
  const page = await throughProxy();
  const phone = await signIn(t, h);
  const kept = await agent.ask({ question: 'Deploy now?', options: ['Yes', 'No'] }, 'call-kept', 's');
  const answered = await agent.ask(DB_REQUEST, 'call-answered', 's');
  const card = (id) => page.locator(`article[data-ask-id="${id}"]`);
  await card(kept).getByRole('radio', { name: 'Yes' }).waitFor({ timeout: PATIENCE });
  await card(answered).getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
  await page.evaluate(() => (window.__samePage = true));
  // What the person had chosen and typed on the ask still waiting.
  await card(kept).getByRole('radio', { name: 'No', exact: true }).check();
  await card(kept).locator('.askcore-notes-text').fill('after the backup');

  // The hub stops; the proxy answers the page's stream with 502 (a browser
  // gives up on such a stream for good) until the hub is back and answered.
  proxied.down = true;
  await stopHub(h);
  await page.locator('#status').filter({ hasText: 'The connection to the hub was lost' }).waitFor({ timeout: PATIENCE });
  h = await startHub({ again: h, args: ['--url', proxied.base] });
  // Another device answers while the page is still cut off.
  const csrf = await phone.locator('meta[name="askcore-csrf"]').getAttribute('content');
  const posted = await phone.evaluate(async ([id, token]) => {
    const res = await fetch('/inbox/reply', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-askcore-csrf': token },
      body: JSON.stringify({ id, reply: { picks: [{ options: [2], text: '' }] } }),
    });
    return res.status;
  }, [answered, csrf]);
  assert.equal(posted, 200);
  assert.match(await page.locator('#status').textContent(), /The connection to the hub was lost/, 'still cut off');
  // A page opened now: its very first stream gets the 502, after which a
  // browser does not try again by itself.
  const late = await throughProxy();
  await late.locator('#status').filter({ hasText: 'The connection to the hub was lost' }).waitFor({ timeout: PATIENCE });
  proxied.down = false;
  await late.locator('#status').filter({ hasText: '1 question is waiting for your answer.' }).waitFor({ timeout: PATIENCE });
  await late.locator(`article[data-ask-id="${kept}"]`).getByRole('radio', { name: 'Yes' }).waitFor({ timeout: PATIENCE });

  // The page comes back by itself: the same page, the same open ask, and
  // the one answered meanwhile shown as answered, with what was chosen.
  await page.locator('#status').filter({ hasText: '1 question is waiting for your answer.' }).waitFor({ timeout: PATIENCE });
  assert.equal(await page.evaluate(() => window.__samePage), true, 'not reloaded');
  assert.equal(await card(kept).locator('form').getAttribute('data-askcore-state'), 'open');
  assert.ok(await card(kept).getByRole('radio', { name: 'No', exact: true }).isChecked(), 'the choice is kept');
  assert.equal(await card(kept).locator('.askcore-notes-text').inputValue(), 'after the backup', 'the note is kept');
  const done = card(answered).locator('form[data-askcore-state="answered"]');
  await done.waitFor({ timeout: PATIENCE });
  assert.ok(await done.getByRole('radio', { name: 'MySQL' }).isChecked());
  assert.ok(!(await done.getByRole('radio', { name: 'PostgreSQL' }).isChecked()));
  assert.match(await done.locator('.askcore-status').textContent(), /MySQL[\s\S]*Answered by .+ from the inbox/);
  // And it stays live: a new ask arrives.
  await agent.ask({ question: 'Tag the release?', options: ['Yes', 'No'] }, 'call-after', 's');
  await page.getByText('Tag the release?').waitFor({ timeout: PATIENCE });
});

// The inbox held open as a person leaves it open, past every server timeout
// (the hub's write timeout is 90 s; a stream that fell to it showed "lost"
// every 90 s). Long by nature, so run on demand:
// ASKCORE_INBOX_SOAK_SECONDS=600 node --test --test-name-pattern 'held open' test/inbox.test.mjs
const SOAK_SECONDS = Number(process.env.ASKCORE_INBOX_SOAK_SECONDS || 0);
test('held open (ASKCORE_INBOX_SOAK_SECONDS): never "lost", and each answer from a second device shows live', {
  skip: skip || (!SOAK_SECONDS && 'SKIP: set ASKCORE_INBOX_SOAK_SECONDS (e.g. 600) to hold the inbox open that long'),
  timeout: SOAK_SECONDS * 1000 + 4 * PATIENCE,
}, async (t) => {
  const agent = agentAPI(hub, agentToken(hub, 'soak'));
  const desktop = await signIn(t, hub);
  const phone = await signIn(t, hub);
  // Every change of the status line, seen in the page: a "lost" that came
  // and went between two looks from here is caught too.
  await desktop.evaluate(() => {
    window.__statuses = [];
    const status = document.getElementById('status');
    new MutationObserver(() => window.__statuses.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
  });
  const csrf = await phone.locator('meta[name="askcore-csrf"]').getAttribute('content');
  const started = Date.now();
  let answered = 0;
  for (let n = 0; Date.now() - started < SOAK_SECONDS * 1000; n++) {
    const id = await agent.ask(DB_REQUEST, `call-soak-${n}`, 'soak');
    const card = desktop.locator(`article[data-ask-id="${id}"]`);
    await card.getByRole('radio', { name: 'PostgreSQL' }).waitFor({ timeout: PATIENCE });
    // Left open a minute, then answered on the other device.
    await new Promise((resolve) => setTimeout(resolve, Math.min(60_000, Math.max(0, SOAK_SECONDS * 1000 - (Date.now() - started))))); // the soak's own length, not a synchronisation
    const status = await phone.evaluate(async ([askId, token]) => {
      const res = await fetch('/inbox/reply', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-askcore-csrf': token },
        body: JSON.stringify({ id: askId, reply: { picks: [{ options: [1], text: '', notes: '' }] } }),
      });
      return res.status;
    }, [id, csrf]);
    assert.equal(status, 200);
    await card.locator('form[data-askcore-state="answered"]').waitFor({ timeout: PATIENCE });
    answered++;
  }
  const statuses = await desktop.evaluate(() => window.__statuses);
  const lost = statuses.filter((s) => /lost/.test(s));
  console.log(`inbox soak: ${Math.round((Date.now() - started) / 1000)} s open, ${answered} asks answered on a second device and shown live, ${statuses.length} status changes, ${lost.length} "lost"`);
  assert.deepEqual(lost, [], 'the page lost its stream');
  assert.ok(answered >= 1);
});
