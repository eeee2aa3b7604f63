// The Node readline provider, driven through streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { load, UserInteraction, askUserQuestionTool, answerText, errorText } from '@askcore/askcore';
import { createReadlineProvider } from '@askcore/askcore/readline';
import { DB_REQUEST, capture, until, rejectsWith } from './helpers.mjs';

const core = await load();
const tick = () => new Promise((r) => setImmediate(r));

/**
 * A provider reading `input`, and ask(): asks it a call and has the core
 * resolve the lines it hands back, as the seam does (ask.reply: the reply
 * itself).
 */
function setup() {
  const input = new PassThrough();
  const output = new PassThrough();
  const out = capture(output);
  const provider = createReadlineProvider(core, { input, output, prompt: '> ' });
  const ask = async (request, opts) => {
    const call = core.normalizeRaw(request);
    return resolveReply(call, await provider.ask(call, opts));
  };
  return { input, out, provider, ask };
}

/** The answer to `call` for the readline provider's reply, which is {lines} and nothing else. */
function resolveReply(call, reply) {
  assert.deepEqual(Object.keys(reply), ['lines']);
  assert.equal(reply.lines.length, call.questions.length);
  return core.resolveAll(call, reply.lines);
}

test('the provider hands back what was typed, {lines}: one line per question, as typed', async (t) => {
  const { input, provider } = setup();
  t.after(() => provider.close());
  const one = provider.ask(core.normalizeRaw(DB_REQUEST));
  input.write('  mongodb \n');
  assert.deepEqual(await one, { lines: ['  mongodb '] });
  const closed = { question: 'Pick one', options: ['Red', 'Blue'], allowCustom: false };
  const batch = provider.ask(core.normalizeRaw({ questions: [closed, { question: 'Why?' }] }));
  input.write('purple\n2\n\nbecause\n'); // refused lines are asked again, never handed back
  assert.deepEqual(await batch, { lines: ['2', 'because'] });
});

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
  assert.equal(out.text, '\n' + msg + '\n> '); // a pipe: the provider ends the prompt line itself
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

// ---- batches, multi-select, every message from the core ----

const BATCH = JSON.stringify({
  questions: [
    { header: 'Database', question: 'Which database?', options: [{ label: 'PostgreSQL', value: 'postgres' }, { label: 'SQLite', value: 'sqlite', recommended: true }] },
    { question: 'Which features?', options: [{ label: 'Auth', value: 'auth', recommended: true }, { label: 'Billing', value: 'billing' }, { label: 'Chat, voice', value: 'chat' }], multiSelect: true },
    { question: 'Release name?' },
  ],
});
const MULTI = JSON.stringify({ question: 'Which editors?', options: ['Vim', 'Emacs', { label: 'VS Code', recommended: true }], multiSelect: true });

/** The INVALID_ANSWER message the core gives for `line` to question `index` of `call`. */
function reprompt(call, line, index) {
  try {
    core.resolve(call, line, index);
  } catch (e) {
    return e.message;
  }
  throw new Error(`${JSON.stringify(line)} resolves`);
}

test('a batch in line mode: each question in turn, re-asked with the core\'s message, echoed by summary, answered whole', async (t) => {
  const { input, out, provider } = setup();
  t.after(() => provider.close());
  const call = core.normalizeRaw(BATCH);
  assert.equal(call.batch, true);
  assert.equal(call.questions.length, 3);
  const pending = provider.ask(call);
  await until(() => out.text.endsWith('> '));
  assert.equal(out.text, core.present(call, 0).text + '\n> ');
  out.clear();
  input.write('oracle\n');
  await until(() => out.text.endsWith('> '));
  assert.equal(out.text, '\n' + reprompt(call, 'oracle', 0) + '\n> ');
  out.clear();
  input.write('2\n');
  await until(() => out.text.endsWith('> '));
  const a0 = core.resolve(call, '2', 0);
  assert.equal(out.text, '\n→ ' + core.summary(call, a0, 0) + '\n' + core.present(call, 1).text + '\n> ');
  assert.match(out.text, /→ PostgreSQL\nQuestion 2 of 3\n/);
  out.clear();
  input.write('chat, voice, 1\n');
  await until(() => out.text.endsWith('> '));
  assert.match(out.text, /^\n→ Auth, Chat, voice\nQuestion 3 of 3\n/);
  out.clear();
  input.write('\n'); // an empty line does not answer an open question: asked again
  await until(() => out.text.endsWith('> '));
  assert.equal(out.text, '\n' + reprompt(call, '', 2) + '\n> ');
  input.write('Aurora\n');
  const answer = resolveReply(call, await pending);
  const want = core.resolveAll(call, ['2', 'chat, voice, 1', 'Aurora']);
  assert.equal(answerText(answer), answerText(want));
  assert.equal(
    answerText(answer),
    '{"answers":[{"question":"Which database?","answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}},' +
      '{"question":"Which features?","answers":["auth","chat"],"selected":[{"index":0,"label":"Auth","value":"auth"},{"index":2,"label":"Chat, voice","value":"chat"}]},' +
      '{"question":"Release name?","answer":"Aurora"}]}',
  );
  assert.match(out.text, /→ Aurora\n$/);
});

test('multi-select in line mode: comma-separated choices, the default is every recommended option', async (t) => {
  const { input, out, provider, ask } = setup();
  t.after(() => provider.close());
  const a = ask(MULTI);
  input.write('1, 2, 3\n');
  assert.equal(answerText(await a), '{"answers":["Vim","Emacs","VS Code"],"selected":[{"index":0,"label":"Vim","value":"Vim"},{"index":1,"label":"Emacs","value":"Emacs"},{"index":2,"label":"VS Code","value":"VS Code"}]}');
  const b = ask(MULTI);
  input.write('\n');
  assert.equal(answerText(await b), '{"answers":["VS Code"],"selected":[{"index":2,"label":"VS Code","value":"VS Code"}]}');
  out.clear();
  const c = ask(MULTI);
  input.write('vim, nano\n'); // no free text here: the core names the part
  await until(() => /nano/.test(out.text) && out.text.endsWith('> '));
  assert.ok(out.text.includes(reprompt(MULTI, 'vim, nano')));
  input.write('emacs\n');
  assert.deepEqual((await c).answers, ['Emacs']);
});

test('end of input inside a batch fails the whole batch with the core\'s "eof"', async (t) => {
  const { input, out, provider } = setup();
  t.after(() => provider.close());
  const call = core.normalizeRaw(BATCH);
  const a = provider.ask(call);
  const b = provider.ask(core.normalizeRaw({ question: 'Later?' }));
  input.end('1\n'); // the first question's answer, then nothing
  const err = await rejectsWith(assert, a, 'ASK_ABORTED');
  assert.equal(errorText(err), errorText(core.fail({ situation: 'eof' })));
  assert.equal(err.message, 'the input ended (EOF) before an answer was given; nothing was chosen');
  await rejectsWith(assert, b, 'ASK_ABORTED');
  assert.match(out.text, /Question 2 of 3/);
  assert.doesNotMatch(out.text, /Question 3 of 3|Later\?/);
});

test('close() is the core\'s "input_closed"; interrupt() the core\'s "interrupted" for the question on screen only', async () => {
  const { input, out, provider, ask } = setup();
  const a = ask(BATCH);
  const b = ask({ question: 'Queued?' });
  await until(() => out.text.endsWith('> '));
  assert.equal(provider.interrupt(), true);
  const ia = await rejectsWith(assert, a, 'ASK_ABORTED');
  assert.equal(errorText(ia), errorText(core.fail({ situation: 'interrupted' })));
  await until(() => /Queued\?/.test(out.text));
  input.write('kept\n');
  assert.equal((await b).answer, 'kept');
  assert.equal(provider.interrupt(), false);
  const c = ask(DB_REQUEST);
  await until(() => out.text.endsWith('> '));
  provider.close();
  const cc = await rejectsWith(assert, c, 'ASK_ABORTED');
  assert.equal(errorText(cc), errorText(core.fail({ situation: 'input_closed' })));
  assert.equal(cc.message, 'the question was withdrawn: the input was closed');
});

test('a read error is the core\'s "read_failed" with the error\'s message', async () => {
  const { input, out, provider, ask } = setup();
  const a = ask(DB_REQUEST);
  await until(() => out.text.endsWith('> '));
  input.destroy(new Error('EIO: i/o error, read'));
  const err = await rejectsWith(assert, a, 'ASK_ABORTED');
  assert.equal(errorText(err), errorText(core.fail({ situation: 'read_failed', detail: 'EIO: i/o error, read' })));
  assert.equal(err.message, 'reading the answer failed: EIO: i/o error, read');
  provider.close();
});

test('an abort with a reason is the core\'s "aborted" quoting it; a plain abort is not quoted', async (t) => {
  const { out, provider, ask } = setup();
  t.after(() => provider.close());
  const ac = new AbortController();
  const a = ask(BATCH, { signal: ac.signal });
  await until(() => out.text.endsWith('> '));
  ac.abort(new Error('the session ended'));
  const err = await rejectsWith(assert, a, 'ASK_ABORTED');
  assert.equal(err.raw, '{"name":"UserInteractionError","code":"ASK_ABORTED","message":"the question was aborted: the session ended"}');
  const plain = await rejectsWith(assert, ask(DB_REQUEST, { signal: AbortSignal.abort() }), 'ASK_ABORTED');
  assert.equal(plain.raw, '{"name":"UserInteractionError","code":"ASK_ABORTED","message":"the question was aborted"}');
});

test('through UserInteraction: a batch from the model\'s argument text, answered at the terminal', async (t) => {
  const { input, provider } = setup();
  t.after(() => provider.close());
  const ui = new UserInteraction(core);
  ui.register(provider);
  const tool = askUserQuestionTool(ui);
  const pending = tool.execute(BATCH, { toolCallId: 'c1' });
  input.write('\n\nAurora\n');
  assert.equal(answerText(await pending), answerText(core.resolveAll(BATCH, ['', '', 'Aurora'])));
});

test('1,000 questions queued (singles, multi-selects, batches), lines piped ahead: each gets its own lines, in order', async (t) => {
  const N = 1000;
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const provider = createReadlineProvider(core, { input, output });
  t.after(() => provider.close());
  const ui = new UserInteraction(core);
  ui.register(provider);
  const tool = askUserQuestionTool(ui);
  const kinds = [
    (i) => [JSON.stringify({ question: `Name ${i}?` }), [`name ${i}`]],
    (i) => [MULTI, [`${1 + (i % 3)}`]],
    (i) => [BATCH, ['1', '', `release ${i}`]],
  ];
  const plan = Array.from({ length: N }, (_, i) => kinds[i % 3](i));
  const asks = plan.map(([args], i) => tool.execute(args, { toolCallId: `q${i}` }));
  const text = plan.flatMap(([, lines]) => lines.map((l) => l + '\n')).join('');
  const bytes = Buffer.from(text);
  for (let off = 0; off < bytes.length; off += 89) input.write(bytes.subarray(off, off + 89));
  const got = await Promise.all(asks);
  got.forEach((a, i) => assert.equal(answerText(a), answerText(core.resolveAll(plan[i][0], plan[i][1])), `question ${i}`));
  assert.equal(provider.pending, 0);
});
