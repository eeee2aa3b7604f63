// The interaction seam and the ask_user_question tool, mirroring Go's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, UserInteraction, askUserQuestionTool, UserInteractionError, RAW } from '@askcore/askcore';
import { DB_REQUEST, rejectsWith } from './helpers.mjs';

const core = await load();
const ANSWER = { answer: 'postgres', selected: { index: 0, label: 'PostgreSQL', value: 'postgres' } };

/** A provider whose asks stay pending until the test settles them. */
function manualProvider() {
  const calls = [];
  return {
    calls,
    ask(question, { signal }) {
      return new Promise((resolve, reject) => calls.push({ question, signal, resolve, reject }));
    },
  };
}

test('NO_PROVIDER when nobody is registered; the request is checked first', async () => {
  const ui = new UserInteraction(core);
  assert.equal(ui.hasProvider, false);
  const err = await rejectsWith(assert, ui.ask(DB_REQUEST), 'NO_PROVIDER');
  assert.ok(err instanceof UserInteractionError);
  await rejectsWith(assert, ui.ask({ options: [] }), 'INVALID_REQUEST');
});

test('register returns dispose; a second registration is DUPLICATE_PROVIDER', async () => {
  const ui = new UserInteraction(core);
  const dispose = ui.register(() => ANSWER);
  assert.equal(ui.hasProvider, true);
  assert.throws(() => ui.register(() => ANSWER), (e) => e instanceof UserInteractionError && e.code === 'DUPLICATE_PROVIDER');
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
  dispose();
  dispose(); // harmless
  assert.equal(ui.hasProvider, false);
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'NO_PROVIDER');
  const again = ui.register({ ask: () => ANSWER });
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
  again();
  assert.throws(() => ui.register(/** @type {any} */ ({})), TypeError);
});

test('the provider gets the normalized request, its raw text and the identity', async () => {
  const ui = new UserInteraction(core);
  let got;
  ui.register((q) => ((got = q), ANSWER));
  await ui.ask(JSON.stringify(DB_REQUEST), { from: { agentId: 'a1', sessionId: 's1', toolCallId: 't1' } });
  assert.deepEqual(got.request, core.normalize(DB_REQUEST));
  assert.equal(got.raw, core.normalizeRaw(DB_REQUEST).raw);
  assert.deepEqual(got.from, { agentId: 'a1', sessionId: 's1', toolCallId: 't1' });
});

test('optionless questions are free-form even with allowCustom:false', async () => {
  const ui = new UserInteraction(core);
  let got;
  ui.register((q) => ((got = q), { answer: 'because' }));
  await ui.ask({ question: 'Why?', allowCustom: false });
  assert.equal(got.request.allowCustom, true);
  assert.deepEqual(got.request.options, []);
});

test('an already-aborted signal is ASK_ABORTED before the provider (or the core) is reached', async () => {
  const ui = new UserInteraction(core);
  let calls = 0;
  ui.register(() => (calls++, ANSWER));
  const ac = new AbortController();
  ac.abort();
  await rejectsWith(assert, ui.ask(DB_REQUEST, { signal: ac.signal }), 'ASK_ABORTED');
  await rejectsWith(assert, ui.ask({ bad: true }, { signal: ac.signal }), 'ASK_ABORTED');
  const why = await rejectsWith(assert, ui.ask(DB_REQUEST, { signal: AbortSignal.abort('session cancelled') }), 'ASK_ABORTED');
  assert.match(why.message, /session cancelled/);
  assert.equal(calls, 0);
});

test('aborting a pending ask rejects it with ASK_ABORTED and aborts the provider signal', async () => {
  const ui = new UserInteraction(core);
  const p = manualProvider();
  ui.register(p);
  const ac = new AbortController();
  const pending = ui.ask(DB_REQUEST, { signal: ac.signal });
  await new Promise((r) => setImmediate(r));
  assert.equal(p.calls.length, 1);
  ac.abort();
  const err = await rejectsWith(assert, pending, 'ASK_ABORTED');
  assert.equal(p.calls[0].signal.aborted, true);
  assert.equal(p.calls[0].signal.reason, err);
  p.calls[0].resolve(ANSWER); // too late: ignored
});

test('disposal rejects the provider\'s pending questions with ASK_ABORTED', async () => {
  const ui = new UserInteraction(core);
  const p = manualProvider();
  const dispose = ui.register(p);
  const a = ui.ask(DB_REQUEST);
  const b = ui.ask({ question: 'Second?' });
  await new Promise((r) => setImmediate(r));
  assert.equal(p.calls.length, 2);
  dispose();
  const e1 = await rejectsWith(assert, a, 'ASK_ABORTED');
  await rejectsWith(assert, b, 'ASK_ABORTED');
  assert.match(e1.message, /disposed/);
  assert.ok(p.calls.every((c) => c.signal.aborted));
  // A new provider can take over at once.
  ui.register(() => ANSWER);
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
});

test('no timeout by default; timeoutMs gives ASK_TIMEOUT', async () => {
  const slow = new UserInteraction(core);
  slow.register(() => new Promise((r) => setTimeout(() => r(ANSWER), 40)));
  assert.deepEqual(await slow.ask(DB_REQUEST), ANSWER);

  const ui = new UserInteraction(core, { timeoutMs: 20 });
  const p = manualProvider();
  ui.register(p);
  const err = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_TIMEOUT');
  assert.match(err.message, /nothing was chosen/);
  assert.equal(p.calls[0].signal.aborted, true);
  await rejectsWith(assert, ui.ask(DB_REQUEST, { timeoutMs: 5 }), 'ASK_TIMEOUT');
});

test('provider errors: structured ones pass through, anything else is ASK_FAILED', async () => {
  const ui = new UserInteraction(core);
  let mode = 'declined';
  ui.register(() => {
    if (mode === 'declined') throw new UserInteractionError('ASK_DECLINED', 'the person declined');
    if (mode === 'reject') return Promise.reject(new Error('socket closed'));
    throw 'a string';
  });
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_DECLINED');
  mode = 'reject';
  const e = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_FAILED');
  assert.match(e.message, /socket closed/);
  mode = 'throw';
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_FAILED');
});

test('askUserQuestionTool: schema from the core, execute asks the provider', async () => {
  const ui = new UserInteraction(core);
  const tool = askUserQuestionTool(ui);
  const schema = core.schema();
  assert.equal(tool.name, 'ask_user_question');
  assert.equal(tool.description, schema.description);
  assert.deepEqual(tool.parameters, schema.parameters);

  await rejectsWith(assert, tool.execute(DB_REQUEST), 'NO_PROVIDER');
  let from;
  ui.register((q) => {
    from = q.from;
    return core.resolve(q.raw, '');
  });
  const answer = await tool.execute(JSON.stringify(DB_REQUEST), { toolCallId: 'call_1', sessionId: 's' });
  assert.deepEqual(answer, ANSWER);
  assert.equal(answer[RAW], '{"answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}}');
  assert.equal(from.toolCallId, 'call_1');
  const err = await rejectsWith(assert, tool.execute({ question: '' }), 'INVALID_REQUEST');
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(err))), ['name', 'code', 'message']);
  await rejectsWith(assert, tool.execute(DB_REQUEST, { signal: AbortSignal.abort() }), 'ASK_ABORTED');
});
