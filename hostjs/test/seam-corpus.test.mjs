// The seam corpus (testdata/seam) through the JS seam, byte for byte: the
// same files Go's internal/testing/seamtest runs through askcore.Service, so the
// Go and JS seams give a model the same bytes in every situation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import * as api from '@askcore/askcore';
import { ReadlineProvider } from '@askcore/askcore/readline';
import { repoDir } from './helpers.mjs';
import { runSeamCase } from './seam-runner.mjs';

const seamDir = join(repoDir, 'testdata', 'seam');
const core = await api.load();

/** The terminal provider of a "terminal" case: ReadlineProvider reading `stdin`. */
function terminal(k, stdin) {
  const output = new PassThrough();
  output.resume();
  return new ReadlineProvider(k, { input: Readable.from(stdin === '' ? [] : [stdin]), output });
}

/** @returns {{name: string, c: any, want: Buffer}[]} */
function seamCorpus() {
  if (!existsSync(seamDir)) return [];
  return readdirSync(seamDir)
    .filter((f) => f.endsWith('.case.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.case.json'.length);
      return { name, c: JSON.parse(readFileSync(join(seamDir, f), 'utf8')), want: readFileSync(join(seamDir, name + '.out')) };
    });
}

const cases = seamCorpus();

test(`seam corpus is present (${seamDir})`, () => {
  assert.ok(cases.length > 0, `no *.case.json in ${seamDir}`);
});

/** @param {string} got @param {Buffer} want */
function sameBytes(got, want) {
  if (Buffer.compare(Buffer.from(got, 'utf8'), want) !== 0) assert.equal(got, want.toString('utf8'), 'tool result bytes differ');
}

for (const { name, c, want } of cases) {
  test(`seam ${name}`, { timeout: 20_000 }, async () => {
    sameBytes(await runSeamCase(api, core, c, { terminal }), want);
  });
}

// Every case answered by typed lines, answered again by the real terminal
// provider reading those lines: the same bytes (a line the core refuses is
// re-asked at a terminal, and the reply-* cases are about what a provider
// hands back, not what a person types, so those are left out).
for (const { name, c, want } of cases) {
  if (c.provider !== 'lines' || name.startsWith('reply-') || want.toString('utf8').includes('"INVALID_ANSWER"')) continue;
  test(`seam ${name}, typed at the readline provider`, { timeout: 20_000 }, async () => {
    const t = { ...c, provider: 'terminal', stdin: c.lines.map((l) => l + '\n').join('') };
    sameBytes(await runSeamCase(api, core, t, { terminal }), want);
  });
}
