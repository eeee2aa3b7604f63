// The package as a new user gets it: `npm pack`, installed from the tarball
// into a fresh TypeScript project (strict, lib es2023 without the DOM lib,
// module nodenext, skipLibCheck false) whose files are test/tsproject/*.ts
// and one readme-N.ts per ```js block of README.md (the names a block leaves
// to the reader imported, typed, from stubs.ts). tsc must pass (types.ts
// holds the calls the declarations must refuse, as @ts-expect-error), and
// each compiled example must run and give the core's answer. The same
// install also checks packaging: require() of the ESM package, the clear
// error of a bundle without askcore.wasm, the ./readline stand-in outside
// Node, and a README that cites nothing outside the tarball.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { load, answerText } from '@askcore/askcore';
import { hostjsDir } from './helpers.mjs';

const core = await load();
const tmp = mkdtempSync(join(tmpdir(), 'askcore-tsproject-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [packed] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', tmp], { cwd: hostjsDir, encoding: 'utf8' }));
const tarball = join(tmp, packed.filename);
const files = new Set(packed.files.map((f) => f.path));

const proj = join(tmp, 'proj');
mkdirSync(proj);
writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'tsproject', private: true, type: 'module' }));
// The tarball has no dependencies: installing it needs no registry.
execFileSync(npm, ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: proj, stdio: 'pipe' });
// tsc and Node's types come from hostjs's own devDependencies.
mkdirSync(join(proj, 'node_modules', '@types'), { recursive: true });
symlinkSync(join(hostjsDir, 'node_modules', '@types', 'node'), join(proj, 'node_modules', '@types', 'node'), 'dir');
const src = join(hostjsDir, 'test', 'tsproject');
for (const f of readdirSync(src)) cpSync(join(src, f), join(proj, f));
const pkgDir = join(proj, 'node_modules', '@askcore', 'askcore');
cpSync(join(pkgDir, 'askcore.wasm'), join(proj, 'askcore.wasm')); // types.ts reads it by a relative path

const readme = readFileSync(join(hostjsDir, 'README.md'), 'utf8');
// The DOM provider's example is a page's code: it needs the DOM lib, and
// test/dom.test.mjs runs it in Chromium. Every other block is for a project
// without it.
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => !/from '@askcore\/askcore\/dom'/.test(b));
const STUBS = ['toolCall', 'signal', 'sendToModel', 'show', 'readLine', 'showForm', 'drawPicker', 'showCard', 'core', 'ui', 'isUserInteractionError'];

/** A README block as a TypeScript module of the project: its imports, the stubs it uses, its code, then an ask through its ui. */
function moduleOf(code) {
  const imports = code.match(/^import [^;]*;$/gm) ?? [];
  let body = code.replace(/^import [^;]*;$/gm, '');
  const declared = (name) => new RegExp(`\\b(const|let|function) \\{?[^=;(]*\\b${name}\\b`).test(body) || imports.some((l) => new RegExp(`\\b${name}\\b`).test(l));
  const used = STUBS.filter((n) => new RegExp(`\\b${n}\\b`).test(body) && !declared(n));
  let head = imports.join('\n') + '\n';
  if (used.length) head += `import { ${used.join(', ')} } from './stubs.js';\n`;
  head += "import { answerText as readmeAnswerText } from '@askcore/askcore';\nimport { MODEL_TEXT as readmeModelText } from './stubs.js';\n";
  if (/\bui\.register\(/.test(body) && !/\btool\.execute\(/.test(body)) {
    body += "\nconsole.log('ANSWER ' + readmeAnswerText(await ui.ask(readmeModelText)));\n";
  }
  return head + body + '\nexport {};\n';
}

blocks.forEach((code, i) => writeFileSync(join(proj, `readme-${i}.ts`), moduleOf(code)));

test('the README examples and the type checks compile in a strict project without the DOM lib', () => {
  const r = spawnSync(process.execPath, [join(hostjsDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', proj], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr + '\n' + blocks.map((b, i) => `--- readme-${i}.ts\n` + moduleOf(b)).join('\n'));
  assert.ok(blocks.length >= 4);
});

const MODEL_TEXT = JSON.stringify({
  header: 'Database',
  question: 'Which database should the service use?',
  options: [{ label: 'PostgreSQL', value: 'postgres', recommended: true }, { label: 'SQLite' }, { label: 'MySQL' }],
});

/** What each example prints for the stubbed person, by a marker of its block. */
const expected = [
  ['createReadlineProvider(core)', '3\n', () => 'MODEL ' + answerText(core.resolveAll(MODEL_TEXT, ['3']))],
  ['showForm(', '', () => 'ANSWER ' + answerText(core.elicitationResult(MODEL_TEXT, { action: 'accept', content: { [Object.keys(core.elicitation(MODEL_TEXT).requestedSchema.properties)[0]]: 'sqlite' } }))],
  ['q.checkLine(', '', () => 'ANSWER ' + answerText(core.resolveAll(MODEL_TEXT, ['3']))],
  ['drawPicker(', '', () => 'ANSWER ' + answerText(core.resolveAll(MODEL_TEXT, [{ options: [2] }]))],
];

for (const [marker, input, want] of expected) {
  test(`README example with ${marker} runs compiled and gives the core's answer`, () => {
    const i = blocks.findIndex((b) => b.includes(marker));
    assert.ok(i >= 0, marker);
    const r = spawnSync(process.execPath, [join(proj, 'dist', `readme-${i}.js`)], { cwd: proj, input, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(r.stdout.split('\n').includes(want()), r.stdout);
  });
}

test('errorText takes what a catch hands over, and never throws', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', "import { errors } from './dist/types.js'; import { load } from '@askcore/askcore'; console.log(JSON.stringify(errors(await load())));"], { cwd: proj, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const toolFailed = (detail) => core.fail({ situation: 'tool_failed', detail }).raw;
  assert.deepEqual(out, [toolFailed('x'), toolFailed('x'), toolFailed('ASK_FAILED: y'), toolFailed('undefined'), toolFailed('z'), 'ask_user_question', 'ask_user_question']);
});

test('CommonJS can require() the package (Node 20.19+, 22.12+: require of ESM); engines says so', () => {
  writeFileSync(join(proj, 'require.cjs'), "const a = require('@askcore/askcore'); a.load().then((c) => console.log(c.schema({ strict: true }).name));\n");
  const r = spawnSync(process.execPath, ['require.cjs'], { cwd: proj, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'ask_user_question\n');
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  assert.equal(pkg.engines.node, '^20.19.0 || >=22.12.0');
});

test('a bundle without askcore.wasm says which file is missing', async () => {
  const bundle = join(tmp, 'bundle');
  cpSync(pkgDir, bundle, { recursive: true });
  rmSync(join(bundle, 'askcore.wasm'));
  const { load: bundledLoad, HostFaultError } = await import(pathToFileURL(join(bundle, 'node.js')).href);
  const err = await bundledLoad().catch((e) => e);
  assert.ok(err instanceof HostFaultError, String(err));
  assert.ok(err.message.startsWith(`askcore.wasm is missing: ${join(bundle, 'askcore.wasm')} could not be read (ENOENT)`), err.message);
  assert.equal(err.cause.code, 'ENOENT');
});

test('./readline has a default condition outside Node, whose provider says it needs Node', async () => {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const target = pkg.exports['./readline'].default;
  assert.ok(files.has(target.replace(/^\.\//, '')), target);
  const stand = await import(pathToFileURL(join(pkgDir, target)).href);
  assert.throws(() => stand.createReadlineProvider(core), /needs Node/);
  assert.throws(() => new stand.ReadlineProvider(core), /needs Node/);
});

test('the tarball: LICENSE, repository, and a README that cites nothing outside it', () => {
  for (const f of ['LICENSE', 'README.md', 'askcore.wasm', 'index.d.ts', 'readline.d.ts', 'package.json']) assert.ok(files.has(f), f);
  assert.match(readFileSync(join(pkgDir, 'LICENSE'), 'utf8'), /^MIT License/);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  assert.match(pkg.repository.url, /github\.com\/askcore\/askcore/);
  assert.ok(pkg.homepage);
  const text = readFileSync(join(pkgDir, 'README.md'), 'utf8');
  assert.ok(!text.includes('../'), 'no ../ path');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^https:\/\//.test(target) || target.startsWith('#')) continue;
    assert.ok(files.has(target.replace(/^\.\//, '').split('#')[0]), `README links ${target}, which is not in the tarball`);
  }
  assert.ok(existsSync(join(pkgDir, 'readline.browser.js')));
});
