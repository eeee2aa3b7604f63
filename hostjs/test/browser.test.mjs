// The conformance corpus in real headless Chromium (Debian's chromium driven
// by playwright-core; never a downloaded browser), the page served from a
// throwaway localhost server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { PATIENCE, corpus, hostjsDir, launchChromium, repoDir, skipWithout } from './helpers.mjs';

const skip = skipWithout('chromium');

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' };

/** The seam corpus but its terminal cases (Node's readline): [{name, c, want}]. */
function seamCases() {
  const dir = join(repoDir, 'testdata', 'seam');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.case.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.case.json'.length);
      return { name, c: JSON.parse(readFileSync(join(dir, f), 'utf8')), want: readFileSync(join(dir, name + '.out'), 'utf8') };
    })
    .filter(({ c }) => c.provider !== 'terminal');
}

/**
 * Serves / and /run.js from test/browser, /seam-runner.js, /pkg/* from
 * hostjs, /corpus/* from the conformance corpus, /seam/index.json.
 */
function serve(cases, seam) {
  const byName = new Map(cases.map((c) => [c.name, c]));
  const browserDir = join(hostjsDir, 'test', 'browser');
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/') return send(200, TYPES['.html'], readFileSync(join(browserDir, 'index.html')));
    if (path === '/favicon.ico') return send(204, 'image/x-icon', '');
    if (path === '/run.js') return send(200, TYPES['.js'], readFileSync(join(browserDir, 'run.js')));
    if (path === '/seam-runner.js') return send(200, TYPES['.js'], readFileSync(join(hostjsDir, 'test', 'seam-runner.mjs')));
    if (path === '/seam/index.json') return send(200, TYPES['.json'], JSON.stringify(seam));
    if (path === '/corpus/index.json') return send(200, TYPES['.json'], JSON.stringify(cases.map((c) => c.name)));
    let m;
    if ((m = /^\/corpus\/(.+)\.(in|out)$/.exec(path)) && byName.has(m[1])) {
      const c = byName.get(m[1]);
      return send(200, 'application/octet-stream', m[2] === 'in' ? c.input : c.output);
    }
    if (path.startsWith('/pkg/')) {
      const file = normalize(join(hostjsDir, path.slice(5)));
      const allowed = file === join(hostjsDir, 'browser.js') || file === join(hostjsDir, 'askcore.wasm') || file.startsWith(join(hostjsDir, 'lib') + sep);
      if (allowed && existsSync(file) && statSync(file).isFile()) {
        return send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
      }
    }
    send(404, 'text/plain', 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Budgets, not expectations (a quiet run takes seconds): starting Chromium,
// loading the page and running the corpora each get PATIENCE, the whole test
// all three.
test('Chromium: the conformance and seam corpora byte for byte, through the browser entry point', { skip, timeout: 3 * PATIENCE }, async (t) => {
  const cases = corpus();
  assert.ok(cases.length > 0, 'no conformance corpus');
  const seam = seamCases();
  assert.ok(seam.length > 0, 'no seam corpus');
  const server = await serve(cases, seam);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    await page.goto(`http://127.0.0.1:${port}/`, { timeout: PATIENCE });
    await page.waitForFunction(() => /** @type {any} */ (window).__askcore?.done, null, { timeout: PATIENCE });
    const r = await page.evaluate(() => /** @type {any} */ (window).__askcore);
    assert.equal(r.error, undefined, `page failed: ${r.error}\n${errors.join('\n')}`);
    t.diagnostic(`chromium ${browser.version()}: load ${r.loadMs.toFixed(1)} ms, ${r.results.length} conformance cases, ${r.seam.length} seam cases`);

    assert.equal(r.results.length, cases.length);
    for (const c of r.results) {
      await t.test(`chromium conformance ${c.name}`, () => {
        assert.ok(c.okBytes, `bytes differ\n got: ${c.got}\nwant: ${c.want}`);
        assert.ok(c.okString, 'handle() string differs from the expected bytes decoded');
      });
    }
    assert.equal(r.seam.length, seam.length);
    for (const c of r.seam) {
      await t.test(`chromium seam ${c.name}`, () => {
        assert.ok(c.ok, `tool result differs\n got: ${c.got}\nwant: ${c.want}`);
      });
    }
    await t.test('chromium: load from Response and bytes, module cache, errors, seam', () => {
      assert.deepEqual(r.checks, { fromResponse: true, fromBytes: true, cachedModule: true, helperThrows: true, noProvider: true, seam: true, handMadeRefused: true });
    });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
