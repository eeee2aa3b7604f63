// The interaction seam and the ask_user_question tool, mirroring Go's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, UserInteraction, askUserQuestionTool, UserInteractionError, RAW } from '@askcore/askcore';
import { DB_REQUEST, rejectsWith } from './helpers.mjs';

const core = await load();
/** What DB_REQUEST's empty line (the recommended option) resolves to. */
const ANSWER = { answer: 'postgres', selected: { index: 0, label: 'PostgreSQL', value: 'postgres' } };
/** The person's reply a provider hands back: one typed line per question (empty: the default). */
const REPLY = () => ({ lines: [''] });

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
  const dispose = ui.register(REPLY);
  assert.equal(ui.hasProvider, true);
  assert.throws(() => ui.register(REPLY), (e) => e instanceof UserInteractionError && e.code === 'DUPLICATE_PROVIDER');
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
  dispose();
  dispose(); // harmless
  assert.equal(ui.hasProvider, false);
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'NO_PROVIDER');
  const again = ui.register({ ask: REPLY });
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
  again();
  assert.throws(() => ui.register(/** @type {any} */ ({})), TypeError);
});

test('the provider gets the normalized request, its raw text and the identity', async () => {
  const ui = new UserInteraction(core);
  let got;
  ui.register((q) => ((got = q), REPLY()));
  await ui.ask(JSON.stringify(DB_REQUEST), { from: { agentId: 'a1', sessionId: 's1', toolCallId: 't1' } });
  assert.deepEqual(got.request, core.normalize(DB_REQUEST));
  assert.equal(got.raw, core.normalizeRaw(DB_REQUEST).raw);
  assert.deepEqual(got.from, { agentId: 'a1', sessionId: 's1', toolCallId: 't1' });
});

test('optionless questions are free-form even with allowCustom:false', async () => {
  const ui = new UserInteraction(core);
  let got;
  ui.register((q) => ((got = q), { lines: ['because'] }));
  assert.deepEqual(await ui.ask({ question: 'Why?', allowCustom: false }), { answer: 'because' });
  assert.equal(got.request.allowCustom, true);
  assert.deepEqual(got.request.options, []);
});

test('an already-aborted signal is ASK_ABORTED before the provider (or the core) is reached', async () => {
  const ui = new UserInteraction(core);
  let calls = 0;
  ui.register(() => (calls++, REPLY()));
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
  p.calls[0].resolve(REPLY()); // too late: ignored
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
  ui.register(REPLY);
  assert.deepEqual(await ui.ask(DB_REQUEST), ANSWER);
});

test('no timeout by default; timeoutMs gives ASK_TIMEOUT', async () => {
  const slow = new UserInteraction(core);
  slow.register(() => new Promise((r) => setTimeout(() => r(REPLY()), 40)));
  assert.deepEqual(await slow.ask(DB_REQUEST), ANSWER);

  const ui = new UserInteraction(core, { timeoutMs: 20 });
  const p = manualProvider();
  ui.register(p);
  const err = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_TIMEOUT');
  assert.match(err.message, /nothing was chosen/);
  assert.equal(p.calls[0].signal.aborted, true);
  await rejectsWith(assert, ui.ask(DB_REQUEST, { timeoutMs: 5 }), 'ASK_TIMEOUT');
});

test('provider errors: the core\'s pass through, anything else is ASK_FAILED quoting it', async () => {
  const ui = new UserInteraction(core);
  let mode = 'declined';
  const declined = core.fail({ situation: 'declined' });
  ui.register(() => {
    if (mode === 'declined') throw declined; // an error the core wrote
    if (mode === 'decline') return { decline: true }; // the person declined
    if (mode === 'own') throw new UserInteractionError('ASK_DECLINED', 'the person declined'); // built in JS
    if (mode === 'reject') return Promise.reject(new Error('socket closed'));
    throw 'a string';
  });
  assert.equal(await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_DECLINED'), declined);
  mode = 'decline';
  const d = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_DECLINED');
  assert.equal(d.raw, declined.raw);
  mode = 'own';
  const own = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_FAILED');
  assert.equal(own.raw, core.fail({ situation: 'provider_failed', detail: 'ASK_DECLINED: the person declined' }).raw);
  mode = 'reject';
  const e = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_FAILED');
  assert.match(e.message, /socket closed/);
  mode = 'throw';
  const s = await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_FAILED');
  assert.match(s.message, /a string/);
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
    return { lines: [''] };
  });
  const answer = await tool.execute(JSON.stringify(DB_REQUEST), { toolCallId: 'call_1', sessionId: 's' });
  assert.deepEqual(answer, ANSWER);
  assert.equal(answer[RAW], '{"answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}}');
  assert.equal(from.toolCallId, 'call_1');
  const err = await rejectsWith(assert, tool.execute({ question: '' }), 'INVALID_REQUEST');
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(err))), ['name', 'code', 'message']);
  await rejectsWith(assert, tool.execute(DB_REQUEST, { signal: AbortSignal.abort() }), 'ASK_ABORTED');
});

// ---- replies: what a provider hands back, resolved by the core ----

/** The core's error for a situation, as the model receives it. */
const failRaw = (situation) => core.fail({ situation }).raw;
/** A question that takes no text of the person's own. */
const CLOSED = { question: 'Which colour?', options: ['Red', 'Blue'], allowCustom: false };
/** The INVALID_ANSWER message (for the person) the core gives for `line`. */
function invalidAnswer(call, line, index) {
  try {
    core.resolve(call, line, index);
  } catch (e) {
    return e.message;
  }
  throw new Error(`${JSON.stringify(line)} resolves`);
}

test('each kind of reply is resolved through the core: {lines}, {picks}, {form}, {decline}', async () => {
  const ui = new UserInteraction(core);
  let reply;
  ui.register(() => reply);
  const lines = ['2'];
  reply = { lines };
  const a = await ui.ask(DB_REQUEST);
  assert.equal(a[RAW], core.resolveAll(DB_REQUEST, lines)[RAW]);
  reply = { picks: [{ options: [3] }] };
  assert.equal((await ui.ask(DB_REQUEST)).answer, 'mongo');
  reply = { picks: [{ text: 'CockroachDB' }] };
  assert.equal((await ui.ask(DB_REQUEST)).answer, 'CockroachDB');
  reply = { form: { action: 'accept', content: { choice: 'mongo' } } };
  assert.equal((await ui.ask(DB_REQUEST))[RAW], core.elicitationResult(DB_REQUEST, reply.form)[RAW]);
  reply = { form: { action: 'cancel' } };
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_CANCELLED');
  reply = { decline: true };
  assert.equal((await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_DECLINED')).raw, failRaw('declined'));
  // A reply that does not answer: the core's invalid_reply for the model
  // (quoting the message the person would have seen), never INVALID_ANSWER.
  reply = { lines: ['9'] };
  const bad = await rejectsWith(assert, ui.ask(CLOSED), 'INVALID_ANSWER');
  assert.equal(bad.raw, core.fail({ situation: 'invalid_reply', detail: invalidAnswer(CLOSED, '9') }).raw);
});

test('anything but a reply or this call\'s answer is refused with the core\'s not_a_reply', async () => {
  const ui = new UserInteraction(core);
  let reply;
  ui.register(() => reply);
  class Lines {
    constructor() {
      this.lines = [''];
    }
  }
  const refused = [
    ['a hand-made answer', { ...ANSWER }],
    ['the core\'s answer, not resolved for this call', core.resolveAll(DB_REQUEST, [''])],
    ['a Date', new Date(0)],
    ['a string', 'postgres'],
    ['a number', 42],
    ['an array', [['']]],
    ['the result of core.fail', core.fail({ situation: 'declined' })],
    ['a class instance', new Lines()],
    ['two kinds at once', { lines: [''], decline: true }],
    ['an unknown kind', { answer: 'postgres' }],
    ['no kind', {}],
    ['lines that are not strings', { lines: [1] }],
    ['lines not an array', { lines: '' }],
    ['one line too many', { lines: ['', ''] }],
    ['no line', { lines: [] }],
    ['a pick that is not an object', { picks: ['1'] }],
    ['decline not true', { decline: 'yes' }],
  ];
  for ([, reply] of refused) {
    const name = refused.find((r) => r[1] === reply)[0];
    const err = await ui.ask(DB_REQUEST).then(() => assert.fail(`${name}: answered`), (e) => e);
    assert.equal(err.raw, failRaw('not_a_reply'), name);
  }
  // Nothing at all is no_answer.
  for (reply of [undefined, null]) assert.equal((await ui.ask(DB_REQUEST).catch((e) => e)).raw, failRaw('no_answer'));
  // A reply with a null prototype is a reply.
  reply = Object.assign(Object.create(null), { lines: ['3'] });
  assert.equal((await ui.ask(DB_REQUEST)).answer, 'MySQL');
});

test('question.resolve: the answer the seam would give, accepted for that call only (another call\'s is stale_answer)', async () => {
  const ui = new UserInteraction(core);
  const answers = [];
  let give;
  ui.register((q) => {
    const a = q.resolve({ lines: ['3'] });
    answers.push(a);
    return give ? give(q, a) : a;
  });
  const a = await ui.ask(DB_REQUEST);
  assert.equal(a, answers[0]);
  assert.deepEqual(a, { answer: 'MySQL', selected: { index: 2, label: 'MySQL', value: 'MySQL' } });
  assert.equal(a[RAW], core.resolveAll(DB_REQUEST, ['3'])[RAW]);
  give = () => answers[0]; // the first call's answer, handed to the second call
  assert.equal((await ui.ask(DB_REQUEST).catch((e) => e)).raw, failRaw('stale_answer'));
  give = (_q, mine) => ({ ...mine }); // a copy is no longer the core's
  assert.equal((await ui.ask(DB_REQUEST).catch((e) => e)).raw, failRaw('not_a_reply'));
  give = (q, mine) => q.resolve(mine); // resolving the call's own answer again gives it back
  assert.equal((await ui.ask(DB_REQUEST))[RAW], a[RAW]);
  // resolve throws what the seam would reject with.
  give = (q) => q.resolve({ decline: true });
  await rejectsWith(assert, ui.ask(DB_REQUEST), 'ASK_DECLINED');
  give = (q) => q.resolve('postgres');
  assert.equal((await ui.ask(DB_REQUEST).catch((e) => e)).raw, failRaw('not_a_reply'));
});

test('a reply that does not answer: question.resolve throws the core\'s invalid_reply; let through, it is passed on as it is', async () => {
  const ui = new UserInteraction(core);
  let thrown;
  ui.register((q) => {
    try {
      return q.resolve({ lines: ['9'] });
    } catch (e) {
      thrown = e;
      throw e;
    }
  });
  const err = await rejectsWith(assert, ui.ask(CLOSED), 'INVALID_ANSWER');
  const want = core.fail({ situation: 'invalid_reply', detail: invalidAnswer(CLOSED, '9') }).raw;
  assert.equal(thrown.raw, want);
  assert.equal(err.raw, want); // worded for the model once, not quoted a second time
  assert.equal(err, thrown);
});

test('question.checkLine and checkPick: the core\'s summary to echo, or INVALID_ANSWER worded for the person', async () => {
  const ui = new UserInteraction(core);
  const batch = {
    questions: [
      { ...DB_REQUEST, options: DB_REQUEST.options.map((o) => ({ ...o, recommended: false })), allowCustom: false },
      { question: 'Which features?', options: [{ label: 'Auth', recommended: true }, { label: 'Billing' }], multiSelect: true },
    ],
  };
  let seen;
  ui.register((q) => {
    seen = {
      line: q.checkLine(0, '3'),
      pick: q.checkPick(1, { options: [0, 1] }),
      optionPick: q.checkPick(0, { options: [1] }),
    };
    for (const [i, bad] of [[0, ''], [1, 'nope']]) {
      let err;
      try {
        q.checkLine(i, bad);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof UserInteractionError, String(err));
      assert.equal(err.code, 'INVALID_ANSWER');
      try {
        core.resolve(batch, bad, i);
      } catch (e) {
        assert.equal(err.raw, e.raw); // the same words the re-prompt of a terminal shows
      }
    }
    return { lines: ['3', '1,2'] };
  });
  const a = await ui.ask(batch);
  assert.deepEqual(seen, { line: 'MySQL', pick: 'Auth, Billing', optionPick: 'SQLite' });
  assert.equal(a[RAW], core.resolveAll(batch, ['3', '1,2'])[RAW]);
});

test('a form the seam cannot serialize (a BigInt, a cycle) is not_a_reply, not a provider failure', async () => {
  const ui = new UserInteraction(core);
  let reply;
  ui.register(() => reply);
  const cyclic = { action: 'accept', content: {} };
  cyclic.content.self = cyclic;
  for (reply of [{ form: { action: 'accept', content: { choice: 10n } } }, { form: cyclic }, { picks: [{ options: [1n] }] }]) {
    assert.equal((await ui.ask(DB_REQUEST).catch((e) => e)).raw, failRaw('not_a_reply'));
  }
});
