// The Node readline provider, driven through streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { load, UserInteraction } from '@askcore/askcore';
import { createReadlineProvider } from '@askcore/askcore/readline';
import { DB_REQUEST, capture, until, rejectsWith } from './helpers.mjs';

const core = await load();
const tick = () => new Promise((r) => setImmediate(r));

function setup() {
  const input = new PassThrough();
  const output = new PassThrough();
  const out = capture(output);
  const provider = createReadlineProvider(core, { input, output, prompt: '> ' });
  const ask = (request, opts) => provider.ask(core.normalizeRaw(request), opts);
  return { input, out, provider, ask };
}

test('shows the core\'s present text and resolves the typed line through the core', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const pending = ask(DB_REQUEST);
  await until(() => out.text.endsWith('> '));
  assert.equal(out.text, core.present(DB_REQUEST).text + '\n> ');
  input.write('2\n');
  const a = await pending;
  assert.equal(a.answer, 'SQLite');
  assert.deepEqual(a.selected, { index: 1, label: 'SQLite', value: 'SQLite' });

  const b = ask(DB_REQUEST);
  input.write('\r\n'); // empty line: the recommended option
  assert.equal((await b).answer, 'postgres');
  const c = ask(DB_REQUEST);
  input.write('  mongodb \n');
  assert.equal((await c).answer, 'mongo');
});

test('re-asks with the core\'s message on INVALID_ANSWER', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const req = { question: 'Pick one', options: [{ label: 'Red' }, { label: 'Blue' }], allowCustom: false };
  const pending = ask(req);
  await until(() => out.text.endsWith('> '));
  out.clear();
  input.write('purple\n');
  await until(() => out.text.endsWith('> '));
  let msg;
  try {
    core.resolve(req, 'purple');
  } catch (e) {
    msg = e.message;
  }
  assert.equal(out.text, msg + '\n> ');
  input.write('blue\n');
  assert.equal((await pending).answer, 'Blue');
});

test('an optionless question is free-form even with allowCustom:false', async (t) => {
  const { input, provider, ask, out } = setup();
  t.after(() => provider.close());
  const pending = ask({ question: 'Name the release?', allowCustom: false });
  input.write('\n'); // empty: asked again
  await until(() => out.text.split('> ').length === 3);
  input.write('Blue Ocean\n');
  assert.deepEqual(await pending, { answer: 'Blue Ocean' });
});

test('simultaneous questions are queued: one prompt owns the input at a time', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const q1 = ask({ question: 'First question?' });
  const q2 = ask({ question: 'Second question?' });
  const q3 = ask(DB_REQUEST);
  await until(() => out.text.endsWith('> '));
  await tick();
  assert.match(out.text, /First question\?/);
  assert.doesNotMatch(out.text, /Second question\?/);
  assert.equal(provider.pending, 3);
  input.write('one\n');
  assert.equal((await q1).answer, 'one');
  await until(() => /Second question\?/.test(out.text));
  assert.doesNotMatch(out.text, /Which database/);
  input.write('two\n3\n');
  assert.equal((await q2).answer, 'two');
  assert.equal((await q3).answer, 'MySQL');
  assert.equal(provider.pending, 0);
});

test('lines piped ahead of the prompt are answers; EOF rejects what is left with ASK_ABORTED', async (t) => {
  const { input, provider, ask } = setup();
  t.after(() => provider.close());
  input.end('4\n');
  await tick();
  assert.equal((await ask(DB_REQUEST)).answer, 'mongo');
  const err = await rejectsWith(assert, ask(DB_REQUEST), 'ASK_ABORTED');
  assert.match(err.message, /EOF/);
});

test('stdin EOF rejects the question on screen and the queued ones', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const a = ask(DB_REQUEST);
  const b = ask({ question: 'Later?' });
  await until(() => out.text.endsWith('> '));
  input.end();
  await rejectsWith(assert, a, 'ASK_ABORTED');
  await rejectsWith(assert, b, 'ASK_ABORTED');
  assert.doesNotMatch(out.text, /Later\?/);
  assert.equal(provider.pending, 0);
});

test('abort: the question on screen gives up the input; a queued one never shows', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const ac1 = new AbortController();
  const ac2 = new AbortController();
  const a = ask({ question: 'Aborted on screen?' }, { signal: ac1.signal });
  const b = ask({ question: 'Aborted in the queue?' }, { signal: ac2.signal });
  const c = ask({ question: 'Answered?' });
  await until(() => out.text.endsWith('> '));
  ac2.abort();
  await rejectsWith(assert, b, 'ASK_ABORTED');
  ac1.abort();
  await rejectsWith(assert, a, 'ASK_ABORTED');
  await until(() => /Answered\?/.test(out.text));
  assert.doesNotMatch(out.text, /Aborted in the queue/);
  input.write('yes\n');
  assert.equal((await c).answer, 'yes');
  await rejectsWith(assert, ask(DB_REQUEST, { signal: AbortSignal.abort() }), 'ASK_ABORTED');
});

test('disposal through UserInteraction rejects pending questions; the input goes to the next provider', async (t) => {
  const { input, out, provider } = setup();
  t.after(() => provider.close());
  const ui = new UserInteraction(core);
  const dispose = ui.register(provider);
  const a = ui.ask(DB_REQUEST);
  const b = ui.ask({ question: 'Queued?' });
  await until(() => out.text.endsWith('> '));
  dispose();
  await rejectsWith(assert, a, 'ASK_ABORTED');
  await rejectsWith(assert, b, 'ASK_ABORTED');
  await until(() => provider.pending === 0);
  assert.doesNotMatch(out.text, /Queued\?/);

  ui.register(provider);
  const c = ui.ask({ question: 'After re-registering?' });
  await until(() => /After re-registering/.test(out.text));
  input.write('fine\n');
  assert.equal((await c).answer, 'fine');
});

test('close() rejects every pending question with ASK_ABORTED', async () => {
  const { out, provider, ask } = setup();
  const a = ask(DB_REQUEST);
  const b = ask(DB_REQUEST);
  await until(() => out.text.endsWith('> '));
  provider.close();
  await rejectsWith(assert, a, 'ASK_ABORTED');
  await rejectsWith(assert, b, 'ASK_ABORTED');
  await rejectsWith(assert, ask(DB_REQUEST), 'ASK_ABORTED');
});
