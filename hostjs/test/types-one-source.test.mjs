// One source for the JS types: the .d.ts files declare every public type;
// the JS sources import them in their JSDoc (@typedef {import(...).X} X)
// and never declare one again, so the two cannot drift apart. (tsc checks
// the JS against the imported types: tsconfig.js.json, tsconfig.dom.json,
// and tsconfig.impl.json, the entry points' exports against index.d.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostjsDir } from './helpers.mjs';

const declarations = ['index.d.ts', 'dom.d.ts', 'picker.d.ts', 'readline.d.ts', 'adapters/ai-sdk.d.ts', 'adapters/mcp.d.ts', 'adapters/openai.d.ts'];
const sources = [
  ...readdirSync(hostjsDir).filter((f) => f.endsWith('.js')),
  ...readdirSync(join(hostjsDir, 'lib')).filter((f) => f.endsWith('.js')).map((f) => `lib/${f}`),
  ...readdirSync(join(hostjsDir, 'adapters')).filter((f) => f.endsWith('.js')).map((f) => `adapters/${f}`),
];

/** The names a .d.ts exports: interfaces, types, classes, functions, constants. */
function declared() {
  const names = new Map();
  for (const file of declarations) {
    const text = readFileSync(join(hostjsDir, file), 'utf8');
    for (const m of text.matchAll(/^export (?:declare )?(?:interface|type|class|function|const) (\w+)/gm)) names.set(m[1], file);
  }
  return names;
}

/** Each JSDoc typedef in a source: its name and the type it is given. */
function typedefs(text) {
  const out = [];
  for (const m of text.matchAll(/@typedef\s+\{/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    const start = i;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    const type = text.slice(start, i - 1);
    const name = /^\s*(\w+)/.exec(text.slice(i))?.[1];
    out.push({ name, type });
  }
  return out;
}

test('the declarations and the sources were found', () => {
  assert.ok(declared().size > 80, `${declared().size} declared names`);
  assert.ok(sources.length > 15, sources.join(' '));
  const all = sources.flatMap((f) => typedefs(readFileSync(join(hostjsDir, f), 'utf8')));
  assert.ok(all.some((t) => t.name === 'LoadOptions' && /import\('\.\.\/index\.js'\)/.test(t.type)), 'lib/core.js imports LoadOptions');
});

test('no JSDoc typedef declares again a type a .d.ts declares: it imports it', () => {
  const names = declared();
  const again = [];
  for (const file of sources) {
    for (const { name, type } of typedefs(readFileSync(join(hostjsDir, file), 'utf8'))) {
      if (!names.has(name)) continue;
      if (!/^\s*(?:NonNullable<)?import\(/.test(type)) again.push(`${file}: @typedef ${name} (declared in ${names.get(name)})`);
    }
  }
  assert.deepEqual(again, []);
});
