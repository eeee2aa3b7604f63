// A missing tool (here Chromium) skips a developer's browser tests, saying
// how to install it, and fails CI's (CI=true): the rule of
// internal/testing/missing, in skipWithout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const probe = `import { skipWithout } from './test/helpers.mjs'; console.log(JSON.stringify(skipWithout('chromium')));`;

/** skipWithout('chromium') with no Chromium, in a process whose CI is ci. */
function withoutChromium(ci) {
  const env = { ...process.env, ASKCORE_CHROMIUM: '/nonexistent/chromium', CI: ci };
  return spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: new URL('..', import.meta.url), env, encoding: 'utf8' });
}

test('missing tool: a developer\'s run skips, saying how to install it', () => {
  const r = withoutChromium('');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /"SKIP: no Chromium at \/nonexistent\/chromium; install it with: apt-get install -y chromium"/);
});

test('missing tool: CI=true fails, with the same words', () => {
  const r = withoutChromium('true');
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /no Chromium at \/nonexistent\/chromium; install it with: apt-get install -y chromium \(CI=true/);
});
