// The Node picker's text measuring and wrapping (lib/picker-text.js), a
// port of termui/textwidth.go and of rivo/uniseg: checked against uniseg's
// own test cases (the Unicode 15.0 GraphemeBreakTest and LineBreakTest, and
// its width cases) read from the Go module cache, the generated tables
// against the uniseg sources, and termui's behaviour case by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusters, lineSegments, textWidth, truncate, tail, wrap, cleanText, dropLastGrapheme, dropLastWord } from '../lib/picker-text.js';
import { generate, unisegDir } from '../tools/gen-unicode.mjs';

/** @returns {string | null} the uniseg sources, or null (skip) without Go or the module */
function uniseg() {
  try {
    const { dir } = unisegDir();
    return existsSync(join(dir, 'linebreak_test.go')) ? dir : null;
  } catch {
    return null;
  }
}
const dir = uniseg();
const skip = dir ? false : 'the uniseg sources are not in the Go module cache (go mod download github.com/rivo/uniseg)';

/** A Go interpreted string literal's text (the escapes uniseg's tests use). @param {string} lit */
function goString(lit) {
  /** @type {number[]} */
  const bytes = [];
  const enc = new TextEncoder();
  for (let i = 0; i < lit.length; i++) {
    const c = lit[i];
    if (c !== '\\') {
      bytes.push(...enc.encode(c));
      continue;
    }
    const e = lit[++i];
    const simple = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34, "'": 39 };
    if (e in simple) bytes.push(/** @type {any} */ (simple)[e]);
    else if (e === 'x') {
      bytes.push(parseInt(lit.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      bytes.push(...enc.encode(String.fromCodePoint(parseInt(lit.slice(i + 1, i + 1 + n), 16))));
      i += n;
    } else throw new Error(`escape \\${e}`);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** uniseg's break test cases: [text, expected segments as code point lists]. @param {string} file */
function breakCases(file) {
  const src = readFileSync(join(/** @type {string} */ (dir), file), 'utf8');
  const out = [];
  for (const m of src.matchAll(/\{original: "((?:[^"\\]|\\.)*)", expected: \[\]\[\]rune\{(.*?)\}\},/g)) {
    const segs = [...m[2].matchAll(/\{([^}]*)\}/g)].map((s) => s[1].split(',').map((x) => parseInt(x.trim(), 16)));
    out.push(/** @type {[string, number[][]]} */ ([goString(m[1]), segs]));
  }
  return out;
}

/** @param {string[]} segs */
const asCodePoints = (segs) => segs.map((s) => [...s].map((c) => /** @type {number} */ (c.codePointAt(0))));

test('grapheme clusters: every case of uniseg\'s GraphemeBreakTest', { skip }, () => {
  const cases = breakCases('graphemebreak_test.go');
  assert.ok(cases.length > 500, `${cases.length} cases`);
  for (const [text, want] of cases) {
    assert.deepEqual(asCodePoints(clusters(text).map((c) => c.text)), want, JSON.stringify(text));
  }
});

test('line break opportunities: every case of uniseg\'s LineBreakTest', { skip }, () => {
  const cases = breakCases('linebreak_test.go');
  assert.ok(cases.length > 5000, `${cases.length} cases`);
  for (const [text, want] of cases) {
    assert.deepEqual(asCodePoints(lineSegments(text)), want, JSON.stringify(text));
  }
});

test('cluster widths: uniseg\'s StringWidth cases', { skip }, () => {
  const src = readFileSync(join(/** @type {string} */ (dir), 'width_test.go'), 'utf8');
  const block = src.slice(src.indexOf('var widthTestCases'), src.indexOf('\n}\n', src.indexOf('var widthTestCases')));
  let n = 0;
  for (const m of block.matchAll(/\{"((?:[^"\\]|\\.)*)", (\d+)\}/g)) {
    const text = goString(m[1]);
    const w = clusters(text).reduce((a, c) => a + c.width, 0);
    assert.equal(w, Number(m[2]), JSON.stringify(text));
    n++;
  }
  assert.ok(n > 100, `${n} cases`);
});

test('lib/picker-unicode.js is what tools/gen-unicode.mjs writes from uniseg', { skip }, () => {
  assert.equal(readFileSync(new URL('../lib/picker-unicode.js', import.meta.url), 'utf8'), generate());
});

test('termui\'s widths: CJK and emoji 2 cells, combining marks 0, pictograph sequences as wide as their parts', () => {
  assert.equal(textWidth('abc'), 3);
  assert.equal(textWidth('日本語'), 6);
  assert.equal(textWidth('Cafe\u0301'), 4);
  assert.equal(textWidth('👍'), 2);
  assert.equal(textWidth('👍🏽'), 4, 'a skin tone counted as drawn apart (tmux does)');
  assert.equal(textWidth('👨‍👩‍👧'), 6, 'a ZWJ family counts as its three people');
  assert.equal(textWidth('🇫🇷'), 4, 'a flag too (terminals disagree on it)');
  assert.equal(textWidth('\u2e3a'), 3);
});

test('truncate and tail cut between clusters and mark the cut with …', () => {
  assert.deepEqual(truncate('Hello world', 20), ['Hello world', 11]);
  assert.deepEqual(truncate('Hello world', 6), ['Hello…', 6]);
  assert.deepEqual(truncate('日本語です', 5), ['日本…', 5]);
  assert.deepEqual(truncate('日本語です', 6), ['日本…', 5], 'a wide character is not split');
  assert.deepEqual(truncate('x', 0), ['', 0]);
  assert.deepEqual(tail('Hello world', 6), ['…world', 6]);
  assert.deepEqual(tail('中文 x', 4), ['… x', 3]);
});

test('wrap breaks at UAX #14 opportunities, cuts a word too wide, limits the lines', () => {
  assert.deepEqual(wrap('A description that wraps', 12, 0), ['A', 'description', 'that wraps']);
  assert.deepEqual(wrap('well-known words', 8, 0), ['well-', 'known', 'words']);
  assert.deepEqual(wrap('Supercalifragilistic', 8, 0), ['Supercal', 'ifragili', 'stic']);
  assert.deepEqual(wrap('全角の説明文がここに入ります。', 10, 0), ['全角の説明', '文がここに', '入ります。']);
  assert.deepEqual(wrap('one two three four five six', 9, 2), ['one two', 'three…']);
  assert.deepEqual(wrap('line\nbreak', 20, 0), ['line', 'break']);
  assert.deepEqual(wrap('', 10, 0), ['']);
});

test('cleanText folds line breaks and tabs to spaces and drops what the core would not show', () => {
  assert.equal(cleanText('a\nb\tc\rd'), 'a b c d');
  assert.equal(cleanText('x\x1b[31my\u202ez\u0085'), 'x[31myz');
  assert.equal(cleanText('plain'), 'plain');
});

test('editing: Backspace removes a whole cluster, Ctrl-W a word', () => {
  assert.equal(dropLastGrapheme('ok 👍🏽'), 'ok ');
  assert.equal(dropLastGrapheme('cafe\u0301'), 'caf');
  assert.equal(dropLastGrapheme(''), '');
  assert.equal(dropLastWord('oops one  '), 'oops ');
  assert.equal(dropLastWord('single'), '');
});
