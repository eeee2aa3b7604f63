// The shared conformance corpus, byte for byte, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '@askcore/askcore';
import { corpus, corpusDir, isUTF8 } from './helpers.mjs';

const cases = corpus();
const core = await load();
const utf8 = new TextDecoder();

test(`conformance corpus is present (${corpusDir})`, () => {
  assert.ok(cases.length > 0, `no *.in files in ${corpusDir}`);
});

for (const c of cases) {
  test(`conformance ${c.name}`, () => {
    const got = core.handleBytes(new Uint8Array(c.input));
    if (Buffer.compare(Buffer.from(got), c.output) !== 0) {
      assert.equal(Buffer.from(got).toString('latin1'), c.output.toString('latin1'), 'output bytes differ');
    }
    // handle() returns the same bytes decoded, from bytes and from a string.
    const want = utf8.decode(c.output);
    assert.equal(core.handle(new Uint8Array(c.input)), want);
    if (isUTF8(c.input)) assert.equal(core.handle(c.input.toString('utf8')), want);
  });
}

test('conformance corpus: one instance, reverse order, same bytes', () => {
  const again = [...cases].reverse();
  for (const c of again) {
    assert.equal(Buffer.compare(Buffer.from(core.handleBytes(c.input)), c.output), 0, c.name);
  }
});
