// Shared by the test files: paths, the corpus, small stream helpers, and
// what the browser and binary tests start (Chromium, go builds, ports).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { chromiumArgs } from '../../testdata/interop/chromium.mjs';

export const hostjsDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoDir = dirname(hostjsDir);
export const corpusDir = join(repoDir, 'testdata', 'conformance');

/** The conformance cases: [{name, input: Buffer, output: Buffer}], sorted by name. */
export function corpus() {
  if (!existsSync(corpusDir)) return [];
  return readdirSync(corpusDir)
    .filter((f) => f.endsWith('.in'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -3);
      return { name, input: readFileSync(join(corpusDir, f)), output: readFileSync(join(corpusDir, name + '.out')) };
    });
}

const fatal = new TextDecoder('utf-8', { fatal: true });
/** @param {Uint8Array} b */
export function isUTF8(b) {
  try {
    fatal.decode(b);
    return true;
  } catch {
    return false;
  }
}

/** A typical 4-option request (the bench's too). */
export const DB_REQUEST = Object.freeze({
  header: 'Database',
  question: 'Which database should the service use?',
  options: [
    { label: 'PostgreSQL', value: 'postgres', description: 'Relational, robust', recommended: true },
    { label: 'SQLite', description: 'Embedded, zero setup' },
    { label: 'MySQL', description: 'Widely hosted' },
    { label: 'MongoDB', value: 'mongo', description: 'Document store' },
  ],
  allowCustom: true,
});

/** Collects what is written to a stream. */
export function capture(stream) {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => (text += d));
  return { get text() { return text; }, clear() { text = ''; } };
}

/**
 * How long a test waits for something that must happen. Only a failing test
 * waits that long: a loaded machine makes the tests slower, never red.
 */
export const PATIENCE = 120_000;

/** Resolves once `pred()` holds (polling on the event loop), or rejects after `ms`. */
export async function until(pred, ms = PATIENCE) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out waiting for ' + pred.toString());
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Asserts `promise` rejects with a UserInteractionError of `code`; returns the error. */
export async function rejectsWith(assert, promise, code) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected ${code}, got a value`);
  assert.equal(err.name, 'UserInteractionError', String(err?.stack ?? err));
  assert.equal(err.code, code, err.message);
  return err;
}

/** The Chromium the browser tests drive (Debian's, by playwright-core). */
export const CHROMIUM = process.env.ASKCORE_CHROMIUM ?? '/usr/bin/chromium';
/** The go that builds the binaries a test runs. */
export const GO = process.env.GO ?? 'go';

/**
 * Why a test file that needs what `needs` names ('chromium', or a binary
 * built with go: './cmd/askcore-hub') must skip, or false; printed as a
 * SKIP line once. In CI (CI=true, as .ci/run runs, which installs every
 * tool) a missing tool throws instead, failing the file: the Go tests'
 * rule (internal/testing/missing).
 * @param {...string} needs
 */
export function skipWithout(...needs) {
  let skip = false;
  for (const need of needs) {
    if (skip) break;
    if (need === 'chromium') skip = !existsSync(CHROMIUM) && `SKIP: no Chromium at ${CHROMIUM}; install it with: apt-get install -y chromium`;
    else skip = spawnSync(GO, ['version'], { encoding: 'utf8' }).status !== 0 && `SKIP: no go to build ${need.split('/').pop()} (set GO)`;
  }
  if (skip && process.env.CI === 'true') {
    throw new Error(`${skip.replace(/^SKIP: /, '')} (CI=true: .ci/run installs it, so a missing tool fails the run)`);
  }
  if (skip) console.log(`# ${skip}`);
  return skip;
}

/**
 * Builds the Go package pkg (as './cmd/askcore-hub') into dir; returns the
 * binary's path. Under make test-js, which builds the commands into bin/
 * first and says where (ASKCORE_BIN_DIR), it is that binary: each link of
 * the hub is seconds of CPU, and the files would link the same commands
 * four times.
 * @param {string} pkg
 * @param {string} dir
 */
export function goBuild(pkg, dir) {
  const name = pkg.split('/').pop() ?? pkg;
  const built = process.env.ASKCORE_BIN_DIR && join(process.env.ASKCORE_BIN_DIR, name);
  if (built && pkg === `./cmd/${name}` && existsSync(built)) return built;
  const bin = join(dir, name);
  const build = spawnSync(GO, ['build', '-o', bin, pkg], { cwd: repoDir, encoding: 'utf8', timeout: 10 * PATIENCE });
  if (build.status !== 0) throw new Error(`go build ${pkg}: ${build.stderr}`);
  return bin;
}

/**
 * Headless Chromium, as every browser test runs it: with the interop
 * suites' arguments (testdata/interop/chromium.mjs says why each) for this
 * package's playwright-core.
 */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const args = chromiumArgs(createRequire(import.meta.url)('playwright-core/package.json').version);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, timeout: PATIENCE, args });
}

/**
 * Reads child's stderr (askcore-stdio --web, or any server of the answer
 * page) for the page's URL, the line "askcore: answer at URL": url
 * resolves with it within PATIENCE and rejects if child exits first;
 * stderr() is all child wrote on stderr so far.
 * @param {import('node:child_process').ChildProcess} child
 */
export function answerURL(child) {
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${stderr}`)), PATIENCE);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /^askcore: answer at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/)$/m.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before printing the URL: ${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

/**
 * What the answer page loaded, as transferred (compressed as it came):
 * responses are playwright-core's, collected with page.on('response'); the
 * event stream is left out. bytes is the sum of files' sizes; wasm is
 * askcore.wasm's headers and size, if the page loaded it.
 * @param {import('playwright-core').Response[]} responses
 */
export async function pageTransfer(responses) {
  const files = [];
  let wasm;
  for (const r of responses) {
    if (r.url().endsWith('/events')) continue;
    const { responseBodySize: size } = await r.request().sizes();
    files.push({ url: r.url(), size, encoding: r.headers()['content-encoding'] });
    if (r.url().endsWith('/askcore.wasm')) wasm = { headers: await r.allHeaders(), size };
  }
  return { bytes: files.reduce((sum, f) => sum + f.size, 0), files, wasm };
}

/** A free port on 127.0.0.1. */
export async function freePort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
