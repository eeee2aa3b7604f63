// One schema truth: what the published tool schema accepts, the core
// accepts. Every call of the conformance corpus that the schema validates
// (ajv, JSON Schema 2020-12), and thousands of calls generated from the
// schema itself, normalize without an INVALID_REQUEST for a shape reason
// (a missing field, a wrong type, a count or a length). What the core still
// refuses is for reasons no JSON Schema states: duplicate labels, values or
// questions (compared by key), text that is empty once made safe to show,
// JSON text itself (a duplicate key, a syntax error, the size). The plain
// schema has no combinator at its top level (OpenAI's function calling and
// Anthropic's tools refuse one there, zod's fromJSONSchema refuses
// conditionals), so three rules that tie its fields together are left to
// the core, and listed here; the strict variant leaves none. The strict
// variant is also a fixed point of the openai package's own strict-schema
// transform (it accepts it unchanged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { load } from '@askcore/askcore';
import { corpus } from './helpers.mjs';

const core = await load();
const plain = core.schema();
const strict = core.schema({ strict: true });
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true });
const validPlain = ajv.compile(plain.parameters);
const validStrict = ajv.compile(strict.parameters);

/** What the core says for the model's argument text: null when it takes it, else the error's message. */
function verdict(text) {
  const out = JSON.parse(core.handle('{"op":"normalize","arguments":' + JSON.stringify(text) + '}'));
  if (out.ok) return null;
  assert.equal(out.error.code, 'INVALID_REQUEST', text.slice(0, 200));
  return out.error.message;
}

/** Reasons no JSON Schema states (the JSON text, comparison keys, what sanitizing leaves). */
const VALUE_REASONS = [
  /have the same (label|value) /,
  /ask the same question /,
  / is empty: /,
  /has the key "[^"]+" \d+ times/,
  /not valid JSON/,
  /^the arguments are \d+ bytes/,
];

/**
 * The rules the plain schema cannot state without a top-level combinator
 * (docs: README "The tool schema", SPEC "Requests"): question required
 * unless questions is given, no top-level question field beside questions,
 * multiSelect needs options.
 */
const PLAIN_CROSS_FIELD = [/^question is required: /, /^the request has both questions and /, /^(questions\[\d+\]\.)?multiSelect needs options: /];

/**
 * A preview's tabs expand to the next 4-column stop before its length is
 * counted, so a preview within maxLength (which counts a tab as one) can be
 * over the core's limit; the exemption holds only when expanding the tabs
 * is what puts it over.
 */
function tabsExplain(message, call) {
  const m = /^(?:questions\[(\d+)\]\.)?options\[(\d+)\]\.preview is (\d+) characters long/.exec(message);
  if (!m) return false;
  const q = m[1] === undefined ? call : call.questions[Number(m[1])];
  const preview = q.options[Number(m[2])].preview;
  return preview.includes('\t') && [...preview].length <= 8000 && Number(m[3]) > 8000;
}

/**
 * Checks one call the schema validated: the core takes it, or refuses it
 * for a value reason; returns which allowed reason it was.
 */
function check(call, kind) {
  const text = JSON.stringify(call);
  const msg = verdict(text);
  if (msg === null) return 'ok';
  if (VALUE_REASONS.some((r) => r.test(msg))) return 'value';
  if (kind === 'plain' && PLAIN_CROSS_FIELD.some((r) => r.test(msg))) return 'cross-field';
  if (tabsExplain(msg, call)) return 'tabs';
  // Strict mode refuses minLength and maxLength: the strict variant cannot state the length limits.
  if (kind === 'strict' && /^[\w.[\]]+ is \d+ characters long; at most \d+ are allowed/.test(msg)) return 'length';
  assert.fail(`the ${kind} schema accepts a call the core refuses for its shape: ${msg}\n${text.slice(0, 600)}`);
}

/** The model's arguments in a corpus envelope, parsed; undefined when there are none or they are not JSON. */
function callOf(input) {
  let env;
  try {
    env = JSON.parse(input.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!env || typeof env !== 'object') return undefined;
  if (typeof env.arguments === 'string') {
    try {
      return JSON.parse(env.arguments);
    } catch {
      return undefined;
    }
  }
  return env.request && typeof env.request === 'object' ? env.request : undefined;
}

test('every corpus call the plain schema validates, the core takes (or refuses for a reason no schema states)', () => {
  const seen = { ok: 0, value: 0, 'cross-field': 0, tabs: 0 };
  let refused = 0;
  for (const c of corpus()) {
    const call = callOf(c.input);
    if (call === undefined) continue;
    if (!validPlain(call)) {
      refused++;
      continue;
    }
    seen[check(call, 'plain')]++;
  }
  assert.ok(seen.ok >= 200, JSON.stringify(seen));
  assert.ok(refused >= 50, `the schema refuses ${refused} corpus calls`);
  // The corpus pins the core's verdict on each cross-field rule (schema-rule-*, normalize-batch-*, normalize-multiselect-*).
  assert.ok(seen['cross-field'] >= 5, JSON.stringify(seen));
});

test('the plain schema refuses {} and the leniencies the core keeps beyond it', () => {
  assert.equal(validPlain({}), false);
  assert.equal(verdict('{}'), 'question is required: the one question to ask the person');
  for (const lenient of [
    { question: 'Deploy?', options: ['Yes', 'No'] },
    { question: 'Deploy?', options: [{ label: 'Yes', desc: 'Now.' }] },
    { question: 'Deploy?', urgency: 'high' },
    { question: 'Deploy?', header: null, options: null },
  ]) {
    assert.equal(validPlain(lenient), false, JSON.stringify(lenient));
    assert.equal(verdict(JSON.stringify(lenient)), null, JSON.stringify(lenient));
  }
  // The three rules the plain schema leaves to the core: it validates these, the core refuses them.
  for (const [call, re] of [
    [{ header: 'Database' }, PLAIN_CROSS_FIELD[0]],
    [{ question: 'Q?', questions: [{ question: 'R?' }] }, PLAIN_CROSS_FIELD[1]],
    [{ question: 'Q?', multiSelect: true }, PLAIN_CROSS_FIELD[2]],
    [{ questions: [{ question: 'Q?', multiSelect: true }] }, PLAIN_CROSS_FIELD[2]],
  ]) {
    assert.equal(validPlain(call), true, JSON.stringify(call));
    assert.match(verdict(JSON.stringify(call)), re);
  }
});

test('a preview whose tabs expand past the limit: the one length the schema cannot state', () => {
  const call = { question: 'Which?', options: [{ label: 'A', preview: 'x' + '\t'.repeat(2100) + 'y' }, { label: 'B' }] };
  assert.equal(validPlain(call), true);
  const msg = verdict(JSON.stringify(call));
  assert.match(msg, /^options\[0\]\.preview is 8401 characters long/);
  assert.equal(tabsExplain(msg, call), true);
});

test('the strict schema refuses every shape the core refuses, and its nulls are read as absent', () => {
  for (const call of [
    {},
    { questions: [] },
    { questions: null },
    { question: 'Q?', questions: [{ header: null, question: 'R?', options: null, allowCustom: null }] },
    { questions: [{ header: null, question: 'Q?', options: null, allowCustom: null, multiSelect: true }] },
    { questions: [{ header: null, question: 'Q?', options: [], allowCustom: null, multiSelect: true }] },
    { questions: [{ header: null, question: 'Q?', options: null }] },
    { questions: [{ header: null, question: null, options: null, allowCustom: null }] },
  ]) {
    assert.equal(validStrict(call), false, JSON.stringify(call));
  }
  const all = {
    questions: [
      {
        header: null,
        question: 'Deploy?',
        options: [{ label: 'Yes', value: null, description: null, preview: null, recommended: null }],
        allowCustom: null,
      },
      {
        header: null,
        question: 'Which?',
        options: [{ label: 'A', value: null, description: null, preview: null, recommended: true }],
        allowCustom: null,
        multiSelect: true,
      },
    ],
  };
  assert.equal(validStrict(all), true, JSON.stringify(validStrict.errors));
  assert.equal(
    JSON.stringify(core.normalize(JSON.stringify(all))),
    JSON.stringify({
      questions: [
        { question: 'Deploy?', options: [{ label: 'Yes', value: 'Yes' }], allowCustom: false },
        { question: 'Which?', options: [{ label: 'A', value: 'A', recommended: true }], allowCustom: false, multiSelect: true },
      ],
    }),
  );
});

test('the strict schema is what the openai package\'s strict transform makes of it (unchanged); the plain one is not strict', () => {
  const again = toStrictJsonSchema(structuredClone(strict.parameters));
  assert.ok(isDeepStrictEqual(again, strict.parameters), JSON.stringify(again).slice(0, 400));
  assert.throws(() => toStrictJsonSchema(structuredClone(plain.parameters)));
  assert.equal(strict.name, plain.name);
  assert.notEqual(strict.description, plain.description);
});

test('corpus calls the strict schema validates, the core takes', () => {
  let n = 0;
  for (const c of corpus()) {
    const call = callOf(c.input);
    if (call === undefined || !validStrict(call)) continue;
    n++;
    assert.notEqual(check(call, 'strict'), 'cross-field');
  }
  assert.ok(n >= 4, `${n} strict-shaped corpus calls`);
});

// Calls generated from the schemas themselves.

/** A small seeded PRNG (mulberry32), so a failure names a seed that repeats it. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Characters a model may write: plain ones, spaces and breaks, invisible and control characters, wide ones. */
const PALETTE = [...'abcXYZ019 .,?-_', ' ', ' ', '\t', '\n', '\r\n', '\u200b', '\u202e', '\u001b[31m', 'é', 'e\u0301', '日', '😀', '\u00a0', '<', '&'];

function sample(schema, root, r, depth = 0) {
  if (schema.$ref) return sample(root.$defs[schema.$ref.split('/').pop()], root, r, depth);
  if (schema.anyOf) return sample(schema.anyOf[Math.floor(r() * schema.anyOf.length)], root, r, depth);
  if (schema.enum) return schema.enum[Math.floor(r() * schema.enum.length)];
  let type = schema.type;
  if (Array.isArray(type)) {
    if (type.includes('null') && r() < 0.3) return null;
    type = type.find((t) => t !== 'null');
  }
  switch (type) {
    case 'boolean':
      return r() < 0.5;
    case 'string': {
      const max = schema.maxLength ?? 150;
      const min = schema.minLength ?? 0;
      const pick = r();
      // Mostly short words; now and then the limit itself, or a blank or hostile text.
      let len = pick < 0.6 ? 1 + Math.floor(r() * 12) : pick < 0.8 ? max : Math.floor(r() * (max + 1));
      len = Math.max(min, Math.min(max, len));
      const chars = [];
      const plainOnly = r() < 0.5;
      while (chars.length < len) {
        const p = plainOnly ? PALETTE[Math.floor(r() * 15)] : PALETTE[Math.floor(r() * PALETTE.length)];
        chars.push(...[...p]);
      }
      return chars.slice(0, len).join('');
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 6, depth > 0 ? 8 : 4);
      const n = r() < 0.05 ? (schema.maxItems ?? max) : min + Math.floor(r() * (max - min + 1));
      return Array.from({ length: n }, () => sample(schema.items, root, r, depth + 1));
    }
    case 'object': {
      const out = {};
      const req = new Set(schema.required ?? []);
      let props = Object.entries(schema.properties ?? {});
      if (schema === root && 'questions' in (schema.properties ?? {}) && 'question' in (schema.properties ?? {})) {
        // The plain schema's two forms, one or the other as its descriptions say (now and then both, or neither).
        const form = r();
        if (form < 0.45) props = props.filter(([k]) => k === 'questions');
        else if (form < 0.9) props = props.filter(([k]) => k !== 'questions');
        if (form >= 0.45 && form < 0.9) req.add('question');
      }
      for (const [k, v] of props) {
        if (req.has(k) || r() < 0.5) out[k] = sample(v, root, r, depth + 1);
      }
      return out;
    }
  }
  throw new Error('no sampler for ' + JSON.stringify(schema).slice(0, 100));
}

for (const [kind, tool, valid] of [
  ['plain', plain, validPlain],
  ['strict', strict, validStrict],
]) {
  test(`calls generated from the ${kind} schema: the core takes each one the schema validates`, (t) => {
    const seen = { ok: 0, value: 0, 'cross-field': 0, tabs: 0, length: 0 };
    let invalid = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const call = sample(tool.parameters, tool.parameters, rng(seed));
      if (!valid(call)) {
        invalid++;
        continue;
      }
      try {
        seen[check(call, kind)]++;
      } catch (err) {
        err.message = `seed ${seed}: ${err.message}`;
        throw err;
      }
    }
    t.diagnostic(`${kind}: ${JSON.stringify(seen)}, ${invalid} not valid`);
    assert.ok(seen.ok >= 500, `${kind}: ${JSON.stringify(seen)}, ${invalid} invalid`);
    if (kind === 'strict') assert.equal(seen['cross-field'], 0);
  });
}
