// hostjs ships the very module the Go binaries embed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostjsDir, repoDir } from './helpers.mjs';

const sha = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');

test('hostjs/askcore.wasm is byte-identical to wasm/askcore.wasm (run `make wasm`)', () => {
  assert.equal(sha(join(hostjsDir, 'askcore.wasm')), sha(join(repoDir, 'wasm', 'askcore.wasm')));
});

test('hostjs/askcore.wasm matches wasm/askcore.wasm.sha256', () => {
  const recorded = readFileSync(join(repoDir, 'wasm', 'askcore.wasm.sha256'), 'utf8').trim().split(/\s+/)[0];
  assert.equal(sha(join(hostjsDir, 'askcore.wasm')), recorded);
});
