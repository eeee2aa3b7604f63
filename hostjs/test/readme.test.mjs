// The README's examples run as written: each ```js block of README.md, with
// the names it leaves to the reader (a model's tool call, a terminal's
// show/readLine, a UI's showForm/drawPicker/showCard) stubbed, gives the
// answer the core gives for what the stubbed person did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { load, UserInteraction, answerText } from '@askcore/askcore';
import { hostjsDir, DB_REQUEST } from './helpers.mjs';

const readme = readFileSync(join(hostjsDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const core = await load();
const MODEL_TEXT = JSON.stringify(DB_REQUEST);

/** The block that contains `marker`, exactly one. */
function block(marker) {
  const found = blocks.filter((b) => b.includes(marker));
  assert.equal(found.length, 1, `one README block with ${marker}`);
  return found[0];
}

/** `import {a, b} from 'x'` as `const {a, b} = await import('x')`, so a block runs as a function body. */
function dynamicImports(code) {
  return code.replace(/^import \{([^}]*)\} from ('[^']+');$/gm, (_m, names, from) => `const {${names}} = await import(${from});`);
}

/**
 * Runs a block as the body of an async function given `names`, then returns
 * the value of `ui` (declared by the block or given).
 * @param {string} code
 * @param {Record<string, unknown>} names
 */
async function run(code, names) {
  const given = Object.fromEntries(Object.entries(names).filter(([k]) => !new RegExp(`\\b(const|let) \\{?[^=;]*\\b${k}\\b`).test(code)));
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const fn = new AsyncFunction(...Object.keys(given), dynamicImports(code) + '\nreturn ui;');
  return fn(...Object.values(given));
}

test('README has its examples', () => {
  assert.ok(blocks.length >= 4, `${blocks.length} js blocks`);
});

test('README: the Node front door, fed a typed line, gives the model the core\'s answer', () => {
  const code = block("createReadlineProvider(core)");
  const preamble = [
    `const toolCall = { id: 'call_1', arguments: ${JSON.stringify(MODEL_TEXT)} };`,
    'const signal = new AbortController().signal;',
    "const sendToModel = (text) => process.stderr.write('MODEL ' + text + '\\n');",
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', preamble + '\n' + code], { cwd: hostjsDir, input: '3\n', encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Which database should the service use\?/);
  assert.equal(r.stderr, `MODEL ${answerText(core.resolveAll(MODEL_TEXT, ['3']))}\n`);
});

test('README: the browser front door hands back the form the person sent', async () => {
  const code = block('showForm(');
  let shown;
  const showForm = async (form, signal) => {
    assert.ok(signal instanceof AbortSignal);
    shown = form;
    return { action: 'accept', content: { choice: 'mongo' } };
  };
  const ui = await run(code, { showForm });
  const answer = await ui.ask(MODEL_TEXT);
  assert.deepEqual(shown, core.elicitation(MODEL_TEXT));
  assert.equal(answerText(answer), answerText(core.elicitationResult(MODEL_TEXT, { action: 'accept', content: { choice: 'mongo' } })));
});

test('README: the line-mode provider re-asks until the core accepts the line, then hands back the lines', async () => {
  const code = block('q.checkLine(');
  const closed = { questions: [{ question: 'Colour?', options: ['Red', 'Blue'], allowCustom: false }, { question: 'Why?' }] };
  const typed = ['purple', '2', '', 'because'];
  const shown = [];
  const ui = await run(code, {
    ui: new UserInteraction(core),
    core,
    show: (text) => shown.push(text),
    readLine: async () => typed.shift(),
  });
  const answer = await ui.ask(closed);
  assert.equal(answerText(answer), answerText(core.resolveAll(closed, ['2', 'because'])));
  assert.deepEqual(typed, []);
  let again;
  try {
    core.resolve(closed, 'purple', 0);
  } catch (e) {
    again = e.message;
  }
  assert.ok(shown.includes(again), 'the core\'s words for the person were shown');
  assert.ok(shown.includes('→ Blue') && shown.includes('→ because'), shown.join('\n'));
});

test('README: the picker provider shows the answer resolve made and hands it back; Esc declines', async () => {
  const code = block('drawPicker(');
  let esc = false;
  const cards = [];
  const ui = await run(code, {
    ui: new UserInteraction(core),
    core,
    drawPicker: async (layout) => (assert.equal(layout.questions.length, 1), esc ? null : [{ options: [3] }]),
    showCard: (text) => cards.push(text),
  });
  const answer = await ui.ask(MODEL_TEXT);
  assert.equal(answerText(answer), answerText(core.resolveAll(MODEL_TEXT, [{ options: [3] }])));
  assert.deepEqual(cards, ['MongoDB']);
  esc = true;
  const err = await ui.ask(MODEL_TEXT).catch((e) => e);
  assert.equal(err.raw, core.fail({ situation: 'declined' }).raw);
});
