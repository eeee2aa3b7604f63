// The core's ops through the JS host: the model's arguments as text, the ops'
// helpers, errors carrying the core's own bytes, and the interaction seam's
// parity with Go's askcore.Service (every message from the core's
// `fail` op, no_answer, engine faults, long timeouts).
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  load, UserInteraction, askUserQuestionTool, UserInteractionError, HarnessError, HostFaultError, RAW, answerText, errorText,
} from '@askcore/askcore';
import { longTimeout } from '../lib/interaction.js';
import { MAX_ARGUMENTS_BYTES } from '../lib/core.js';
import { corpusDir, repoDir, rejectsWith } from './helpers.mjs';

const core = await load();
const seamOut = (name) => readFileSync(join(repoDir, 'testdata', 'seam', name + '.out'), 'utf8');

const DB = '{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite","recommended":true},{"label":"MySQL","value":"mysql"}]}';
const MULTI = '{"question":"Which features?","options":[{"label":"Auth","value":"auth","recommended":true},{"label":"Billing","value":"billing"},{"label":"Search","value":"search"}],"multiSelect":true,"allowCustom":true}';
const OPEN = '{"question":"What should the release be called?"}';
const BATCH = `{"questions":[${DB},${MULTI},${OPEN}]}`;

/** Records the envelopes the helpers send through core.handle. */
function spy(c) {
  const seen = [];
  const orig = c.handle;
  c.handle = (input) => (seen.push(input), orig.call(c, input));
  return { seen, restore: () => delete c.handle };
}

/** The result (or error) object of an envelope, as the core wrote it. */
function rawOf(env) {
  const out = core.handle(env);
  const m = /^\{"ok":(?:true,"result"|false,"error"):(.*)\}$/s.exec(out);
  assert.ok(m, out);
  return m[1];
}

// ---- the model's arguments as text ----

test('a string is the model\'s argument text: it goes in as "arguments", never pasted', () => {
  const s = spy(core);
  try {
    core.normalize(DB);
    assert.throws(() => core.normalize('"just a JSON string"'));
    assert.equal(s.seen[0], '{"op":"normalize","arguments":' + JSON.stringify(DB) + '}');
    assert.equal(s.seen[1], '{"op":"normalize","arguments":' + JSON.stringify('"just a JSON string"') + '}');
  } finally {
    s.restore();
  }
  assert.throws(() => core.normalize('"just a JSON string"'), (e) =>
    e.raw === '{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the arguments must be a JSON object like {\\"question\\":\\"...\\",\\"options\\":[{\\"label\\":\\"...\\"}]}, got a string"}');
  // An attempt to add envelope keys stays inside the string.
  const e = assertThrowsCore(() => core.normalize('{"question":"Q?"},"op":"schema"'), 'INVALID_REQUEST');
  assert.match(e.message, /^the arguments are not valid JSON \(unexpected character ',' after the JSON value at byte 17 of 31\)/);
  // The conformance corpus's args-* cases through the helper: the same verdict as the envelope.
  for (const name of ['args-truncated', 'args-trailing-junk', 'args-two-objects', 'args-bom', 'args-valid']) {
    const env = JSON.parse(readFileSync(join(corpusDir, name + '.in'), 'utf8'));
    if (typeof env.arguments !== 'string' || env.op !== 'normalize') continue;
    const want = readFileSync(join(corpusDir, name + '.out'), 'utf8');
    let got;
    try {
      got = '{"ok":true,"result":' + core.normalize(env.arguments)[RAW] + '}';
    } catch (err) {
      got = '{"ok":false,"error":' + err.raw + '}';
    }
    assert.equal(got, want, name);
  }
});

test('objects the core wrote go back as its own bytes; JS objects through JSON.stringify; copies of a call by their raw text', () => {
  const call = core.normalizeRaw(BATCH);
  assert.equal(call.batch, true);
  assert.equal(call.questions.length, 3);
  assert.deepEqual(call.request.questions, call.questions);
  assert.equal(call.raw, rawOf('{"op":"normalize","arguments":' + JSON.stringify(BATCH) + '}'));
  const single = core.normalizeRaw(DB);
  assert.equal(single.batch, false);
  assert.deepEqual(single.questions, [single.request]);

  const s = spy(core);
  try {
    core.present(call, 1);
    core.present(call.request, 2);
    core.present({ ...call }, 0); // a copy lost its identity: its raw goes as text
    core.present(JSON.parse(DB));
    const a = core.resolve(call, '1,2', 1);
    core.summary(call, a, 1);
    assert.deepEqual(s.seen, [
      '{"op":"present","request":' + call.raw + ',"index":1}',
      '{"op":"present","request":' + call.raw + ',"index":2}',
      '{"op":"present","arguments":' + JSON.stringify(call.raw) + ',"index":0}',
      '{"op":"present","request":' + JSON.stringify(JSON.parse(DB)) + '}',
      '{"op":"resolve","request":' + call.raw + ',"index":1,"input":"1,2"}',
      '{"op":"summary","request":' + call.raw + ',"index":1,"answer":' + a[RAW] + '}',
    ]);
  } finally {
    s.restore();
  }
});

// ---- the helpers: the same bytes as the envelope ----

test('resolve (index, line or pick), resolveAll (lines and picks), summary, picker', () => {
  const call = core.normalizeRaw(BATCH);
  const a1 = core.resolve(call, '3, Slack', 1);
  assert.equal(a1[RAW], rawOf('{"op":"resolve","request":' + call.raw + ',"index":1,"input":"3, Slack"}'));
  assert.deepEqual(a1, { answers: ['search', 'Slack'], selected: [{ index: 2, label: 'Search', value: 'search' }] });
  const p1 = core.resolve(call, { options: [0, 2], text: 'Chat' }, 1);
  assert.equal(answerText(p1), rawOf('{"op":"resolve","request":' + call.raw + ',"index":1,"input":{"options":[0,2],"text":"Chat"}}'));
  assertThrowsCore(() => core.resolve(call, '1'), 'INVALID_REQUEST'); // a batch needs the index
  const msg = assertThrowsCore(() => core.resolve(call, 'oracle', 0), 'INVALID_ANSWER');
  assert.equal(msg.raw, rawOf('{"op":"resolve","request":' + call.raw + ',"index":0,"input":"oracle"}'));

  const all = core.resolveAll(call, ['1', { options: [1], text: 'Chat' }, { text: 'Aurora' }]);
  assert.equal(answerText(all), rawOf('{"op":"resolve","request":' + call.raw + ',"inputs":["1",{"options":[1],"text":"Chat"},{"options":[],"text":"Aurora"}]}'));
  assert.equal(all.answers.length, 3);
  assert.equal(all.answers[0].question, 'Which database should I use?');
  const bad = assertThrowsCore(() => core.resolveAll(call, ['1', '', '']), 'INVALID_ANSWER');
  assert.equal(bad.message, 'Question 3 ("What should the release be called?"): Please type an answer; an empty line does not answer the question.');
  // The seam hands the model the core's invalid_reply quoting it.
  assert.equal(`error ${core.fail({ situation: 'invalid_reply', detail: bad.message }).raw}`, seamOut('answer-lines-batch-invalid'));
  assert.throws(() => core.resolveAll(call, '1'), TypeError);
  assert.throws(() => core.present(call, NaN), TypeError);

  assert.equal(core.summary(call, all), JSON.parse(rawOf('{"op":"summary","request":' + call.raw + ',"answer":' + all[RAW] + '}')).text);
  assert.equal(core.summary(call, a1, 1), 'Search, Slack');
  assert.equal(core.summary(DB, core.resolve(DB, '')), 'SQLite');

  const layout = core.picker(call);
  assert.equal(JSON.stringify(layout), rawOf('{"op":"picker","request":' + call.raw + '}'));
  assert.equal(layout.questions.length, 3);
  assert.equal(layout.questions[0].position, 'Question 1 of 3');
  assert.deepEqual(layout.questions[1].toggled, [0]);
  assert.equal(typeof layout.on, 'string');
});

test('fail: every situation\'s error from the core, returned with its bytes; unknown situations are the core\'s INVALID_REQUEST', () => {
  const cases = [
    [{ situation: 'no_provider' }, '{"op":"fail","situation":"no_provider"}'],
    [{ situation: 'aborted', detail: 'stop' }, '{"op":"fail","situation":"aborted","detail":"stop"}'],
    [{ situation: 'aborted', detail: '' }, '{"op":"fail","situation":"aborted"}'],
    [{ situation: 'timeout', ms: 120000 }, '{"op":"fail","situation":"timeout","ms":120000}'],
    [{ situation: 'provider_failed', detail: '\u001b[31mred\u001b[0m <b>\nline' }, '{"op":"fail","situation":"provider_failed","detail":"\\u001b[31mred\\u001b[0m <b>\\nline"}'],
    [{ situation: 'unknown_tool', tool: 'x', tools: ['ask_user_question'] }, '{"op":"fail","situation":"unknown_tool","tool":"x","tools":["ask_user_question"]}'],
    [{ situation: 'engine_fault' }, '{"op":"fail","situation":"engine_fault"}'],
    [{ situation: 'eof' }, '{"op":"fail","situation":"eof"}'],
  ];
  for (const [f, env] of cases) {
    const err = core.fail(f);
    assert.ok(err instanceof HarnessError, f.situation);
    assert.equal(err.raw, rawOf(env), f.situation);
    assert.equal(errorText(err), err.raw);
    assert.deepEqual(JSON.parse(err.raw), err.toJSON());
  }
  assert.equal(core.fail({ situation: 'timeout', ms: 120000 }).message, 'no answer within 2m; nothing was chosen');
  assert.ok(core.fail({ situation: 'no_answer' }) instanceof UserInteractionError);
  const tool = core.fail({ situation: 'tool_cancelled' });
  assert.equal(tool.name, 'ToolError');
  assert.ok(!(tool instanceof UserInteractionError));
  const unknown = core.fail({ situation: 'nope' });
  assert.equal(unknown.code, 'INVALID_REQUEST');
  assert.equal(unknown.raw, rawOf('{"op":"fail","situation":"nope"}'));
});

test('terminal and sanitize as title: the core decides', () => {
  assert.deepEqual(core.terminal({ stdinTTY: true, stderrTTY: true, outTTY: true, term: 'xterm' }), { picker: true, color: true });
  assert.deepEqual(core.terminal({ stdinTTY: true, stderrTTY: true, outTTY: true, term: 'xterm', plain: '1', noColor: '1' }), { picker: false, color: false });
  assert.deepEqual(core.terminal(), { picker: false, color: false });
  assertThrowsCore(() => core.terminal({ stdinTTY: /** @type {any} */ ('yes') }), 'INVALID_REQUEST');
  const text = '\u001b[31mA very long tool name that goes on and on and on\nwith a second line';
  assert.equal(core.sanitize(text, { as: 'title' }), 'A very long tool name that goes on and o…');
  assert.equal(core.sanitizeTitle(text), 'A very long tool name that goes on and o…');
  assert.equal(core.sanitize(text), 'A very long tool name that goes on and on and on\nwith a second line');
  assertThrowsCore(() => core.sanitize('x', { as: /** @type {any} */ ('html') }), 'INVALID_REQUEST');
});

test('oversized inputs: the guest writes the envelope (askcore_oversized), nothing is copied in', () => {
  const want = readFileSync(join(corpusDir, 'limit-input-too-large.out'), 'utf8');
  const input = readFileSync(join(corpusDir, 'limit-input-too-large.in'));
  assert.ok(input.length > core.maxInputBytes);
  assert.equal(core.handle(new Uint8Array(input)), want);
  assert.equal(core.handle(input.toString('utf8')), want);
  for (const n of [core.maxInputBytes + 1, 2 * core.maxInputBytes, 100 * (1 << 20)]) {
    const out = core.handle(new Uint8Array(n));
    assert.equal(out, `{"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the input is ${n} bytes; at most ${core.maxInputBytes} are allowed: send the model's arguments as text in arguments, shortened to at most ${MAX_ARGUMENTS_BYTES} bytes"}}`);
  }
  // A model's arguments over the limit: only their length goes in
  // ("argumentsBytes"), and the core gives its verdict on the text, with its bytes.
  const big = JSON.stringify({ question: 'q'.repeat(core.maxInputBytes) });
  const s = spy(core);
  let e;
  try {
    e = assertThrowsCore(() => core.normalize(big), 'INVALID_REQUEST');
  } finally {
    s.restore();
  }
  assert.deepEqual(s.seen, [`{"op":"normalize","argumentsBytes":${big.length}}`]);
  assert.equal(e.raw, `{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the arguments are ${big.length} bytes; at most ${MAX_ARGUMENTS_BYTES} are allowed: shorten the question, the options or their descriptions"}`);
  // Where the text itself fits the envelope, the core's verdict on it is the same.
  const mid = JSON.stringify({ question: 'q'.repeat(2 * MAX_ARGUMENTS_BYTES) });
  assert.equal(assertThrowsCore(() => core.normalize(mid), 'INVALID_REQUEST').raw, rawOf(`{"op":"normalize","arguments":${JSON.stringify(mid)}}`));
  assert.ok(core.memoryBytes < 64 * (1 << 20), 'nothing oversized was copied into the guest');
});

test('argumentsBytes counts UTF-8 bytes: text at the limit goes in as text, one byte over as its length', () => {
  const at = (n) => {
    const head = '{"question":"';
    const tail = '"}';
    const fill = n - head.length - tail.length;
    return head + 'é'.repeat(Math.floor(fill / 2)) + 'x'.repeat(fill % 2) + tail; // é is 2 bytes: length*3 is over the limit
  };
  const LONE = Math.floor(MAX_ARGUMENTS_BYTES / 3) + 1;
  const fits = at(MAX_ARGUMENTS_BYTES);
  const over = at(MAX_ARGUMENTS_BYTES + 1);
  assert.equal(new TextEncoder().encode(fits).length, MAX_ARGUMENTS_BYTES);
  const s = spy(core);
  try {
    try {
      core.normalize(fits);
    } catch {
      // the core's verdict on the text (a question this long may be refused): it went in as text
    }
    assertThrowsCore(() => core.normalize(over), 'INVALID_REQUEST');
    assertThrowsCore(() => core.normalize('\ud800'.repeat(LONE)), 'INVALID_REQUEST'); // a lone surrogate is 3 bytes (U+FFFD)
  } finally {
    s.restore();
  }
  assert.equal(s.seen[0], '{"op":"normalize","arguments":' + JSON.stringify(fits) + '}');
  assert.equal(s.seen[1], `{"op":"normalize","argumentsBytes":${MAX_ARGUMENTS_BYTES + 1}}`);
  assert.equal(s.seen[2], `{"op":"normalize","argumentsBytes":${3 * LONE}}`);
});

test('fail: host text is cut to what the core reads (4096 code points, 64 tool names), so the envelope stays small', () => {
  const s = spy(core);
  let long;
  let tools;
  try {
    long = core.fail({ situation: 'provider_failed', detail: '🐘'.repeat(5000) });
    tools = core.fail({ situation: 'unknown_tool', tool: 'x'.repeat(10000), tools: Array.from({ length: 100 }, (_, i) => `t${i}`) });
  } finally {
    s.restore();
  }
  const env0 = JSON.parse(s.seen[0]);
  assert.equal(env0.detail, '🐘'.repeat(4096)); // code points: a pair is one, never split
  assert.equal(long.raw, rawOf(JSON.stringify({ op: 'fail', situation: 'provider_failed', detail: '🐘'.repeat(5000) })), 'the same bytes as the whole text');
  const env1 = JSON.parse(s.seen[1]);
  assert.equal(env1.tool.length, 4096);
  assert.deepEqual(env1.tools, Array.from({ length: 64 }, (_, i) => `t${i}`));
  assert.equal(tools.raw, rawOf(JSON.stringify({ op: 'fail', situation: 'unknown_tool', tool: 'x'.repeat(10000), tools: Array.from({ length: 100 }, (_, i) => `t${i}`) })));
});

test('errors from the helpers carry the core\'s error bytes (raw), not enumerable', () => {
  const e = assertThrowsCore(() => core.normalize({ question: '' }), 'INVALID_REQUEST');
  assert.equal(e.raw, rawOf('{"op":"normalize","request":{"question":""}}'));
  assert.deepEqual(Object.keys(e), ['code']);
  assert.equal(JSON.stringify(e), JSON.stringify({ name: e.name, code: e.code, message: e.message }));
  // Go escapes nothing the core does not: '<', '>' and '&' stay as the core wrote them.
  const html = assertThrowsCore(() => core.normalize('{"question":"Q?","options":["<a>","<A>"]}'), 'INVALID_REQUEST');
  assert.equal('error ' + html.raw, seamOut('args-html-quoted-in-error'));
  // Anything else is the core's tool_failed quoting it (errorText takes unknown, never throws).
  assert.equal(errorText(new Error('x')), core.fail({ situation: 'tool_failed', detail: 'x' }).raw);
});

/** @returns {HarnessError} */
function assertThrowsCore(fn, code) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof HarnessError, `expected ${code}, got ${err}`);
  assert.equal(err.code, code, err.message);
  assert.equal(typeof err.raw, 'string');
  return err;
}

// ---- the interaction seam: parity with askcore.Service ----

test('the provider gets a Question shaped as Go\'s (raw, questions, batch, request, from) and answers through the core', async () => {
  const ui = new UserInteraction(core);
  let got;
  ui.register((q) => {
    got = q;
    return { lines: ['2', '', 'Aurora'] };
  });
  const a = await ui.ask(BATCH, { from: { toolCallId: 't1' } });
  assert.equal(typeof got.checkLine, 'function');
  assert.equal(typeof got.checkPick, 'function');
  assert.equal(typeof got.resolve, 'function');
  assert.equal(got.batch, true);
  assert.equal(got.raw, core.normalizeRaw(BATCH).raw);
  assert.equal(got.questions.length, 3);
  assert.deepEqual(got.request, { questions: got.questions });
  assert.deepEqual(got.from, { toolCallId: 't1' });
  assert.equal(answerText(a), answerText(core.resolveAll(BATCH, ['2', '', 'Aurora'])));
});

test('a provider that gives no answer (undefined, null) is the core\'s "no_answer"; a non-object its "not_a_reply"; never an empty answer', async () => {
  const ui = new UserInteraction(core);
  const tool = askUserQuestionTool(ui);
  let value;
  ui.register(() => value);
  for (value of [undefined, null, Promise.resolve(undefined)]) {
    const err = await rejectsWith(assert, tool.execute(DB), 'ASK_FAILED');
    assert.equal('error ' + errorText(err), seamOut('provider-undefined'), String(value));
  }
  for (value of ['yes', 42, true, Promise.resolve('yes')]) {
    const err = await rejectsWith(assert, tool.execute(DB), 'ASK_FAILED');
    assert.equal('error ' + errorText(err), seamOut('reply-not-a-reply-string'), String(value));
  }
});

test('provider failures: its message quoted by the core; a string thrown as String(value); a host fault is engine_fault', async () => {
  const ui = new UserInteraction(core);
  let thrown;
  ui.register(() => {
    throw thrown;
  });
  const cases = [
    [new Error('boom'), 'provider-throws'],
    ['boom', 'provider-panics'],
    [new Error('\u001b[31mred\u001b[0m <b>bold</b>\nsecond line'), 'provider-throws-hostile'],
    [new HostFaultError('wasm error: unreachable'), 'trap-in-provider'],
  ];
  for ([thrown] of cases) {
    const name = cases.find((c) => c[0] === thrown)[1];
    const err = await ui.ask(DB).then(() => assert.fail('answered'), (e) => e);
    assert.equal('error ' + errorText(err), seamOut(name), name);
  }
  thrown = { toString: () => 'an object' };
  assert.equal((await ui.ask(DB).catch((e) => e)).message, 'the provider failed: an object');
  // An error the core wrote passes through as it is.
  thrown = core.fail({ situation: 'declined' });
  assert.equal(await ui.ask(DB).catch((e) => e), thrown);
  // A structured error a provider built itself is not the core's: the model
  // gets the core's provider_failed quoting it (Go: Error.Error(), "CODE: message").
  thrown = new UserInteractionError('ASK_DECLINED', 'no thanks');
  const own = await ui.ask(DB).catch((e) => e);
  assert.equal(errorText(own), '{"name":"UserInteractionError","code":"ASK_FAILED","message":"the provider failed: ASK_DECLINED: no thanks"}');
});

test('a real guest trap during an ask (normalizing or in the provider) is engine_fault; the next ask runs on a fresh instance', async () => {
  let armed = false;
  const platform = {
    monotonicNs: () => {
      if (armed) {
        armed = false; // one fault: the fresh instance starts cleanly
        throw new Error('injected host fault');
      }
      return process.hrtime.bigint();
    },
  };
  const c = await load(undefined, { platform });
  const ui = new UserInteraction(c);
  ui.register(() => ({ lines: ['1'] }));
  armed = true;
  let fault;
  for (let i = 0; i < 100000 && !fault; i++) {
    try {
      await ui.ask(DB.replace('Database', 'Database ' + 'x'.repeat(i % 64))); // garbage for the GC, which reads the clock
    } catch (e) {
      fault = e;
    }
  }
  assert.ok(fault, 'the injected fault never happened');
  assert.equal('error ' + errorText(fault), seamOut('trap-during-normalize'));
  assert.equal(answerText(await ui.ask(DB)), answerText(core.resolveAll(DB, ['1'])));
});

test('abort, dispose and timeout reject at once even when the provider ignores its signal; each message from the core', async () => {
  const ui = new UserInteraction(core);
  const dispose = ui.register(() => new Promise(() => {})); // never settles, never listens
  const ac = new AbortController();
  const a = ui.ask(DB, { signal: ac.signal });
  await new Promise((r) => setImmediate(r));
  ac.abort();
  assert.equal('error ' + errorText(await a.catch((e) => e)), seamOut('abort-during'));
  const ac2 = new AbortController();
  const b = ui.ask(DB, { signal: ac2.signal });
  await new Promise((r) => setImmediate(r));
  ac2.abort(new Error('the user pressed stop'));
  assert.equal('error ' + errorText(await b.catch((e) => e)), seamOut('abort-during-reason'));
  const c = ui.ask(DB, { signal: AbortSignal.abort(new DOMException('gone', 'AbortError')) });
  assert.equal('error ' + errorText(await c.catch((e) => e)), seamOut('abort-before'));
  const t0 = performance.now();
  const d = ui.ask(DB, { timeoutMs: 30 });
  assert.equal('error ' + errorText(await d.catch((e) => e)), seamOut('timeout'));
  assert.ok(performance.now() - t0 < 5000);
  const odd = await ui.ask(DB, { timeoutMs: 1.9 }).catch((e) => e);
  assert.equal(odd.message, 'no answer within 1ms; nothing was chosen'); // whole milliseconds, as Go's Duration.Milliseconds()
  const e = ui.ask(DB);
  await new Promise((r) => setImmediate(r));
  dispose();
  assert.equal('error ' + errorText(await e.catch((x) => x)), seamOut('dispose-during'));
  assert.equal('error ' + errorText(await ui.ask(DB).catch((x) => x)), seamOut('no-provider'));
  ui.register(() => ({ lines: ['x'] }));
  const dup = (() => {
    try {
      ui.register(() => ({ lines: ['y'] }));
    } catch (x) {
      return x;
    }
  })();
  assert.equal(errorText(dup), core.fail({ situation: 'duplicate_provider' }).raw);
});

test('a 30-day timeout does not fire early: timers are chained within setTimeout\'s range, no overflow warning', async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  const delays = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = /** @type {any} */ ((fn, ms, ...rest) => (delays.push(ms), realSetTimeout(fn, ms, ...rest)));
  try {
    const ui = new UserInteraction(core, { timeoutMs: 30 * 24 * 3600 * 1000 });
    ui.register(() => new Promise((r) => realSetTimeout(() => r({ lines: ['1'] }), 60)));
    const a = await ui.ask(DB);
    assert.equal('answer ' + answerText(a), seamOut('timeout-thirty-days-does-not-fire-early'));
  } finally {
    globalThis.setTimeout = realSetTimeout;
    process.off('warning', onWarning);
  }
  assert.ok(delays.length > 0 && delays.every((ms) => ms <= 0x7fffffff), `delays ${delays}`);
  assert.deepEqual(warnings.map(String), []);
});

test('longTimeout: re-arms until the deadline, fires once, cancels', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let now = 0;
  t.mock.method(performance, 'now', () => now);
  const advance = (ms) => {
    now += ms;
    t.mock.timers.tick(ms);
  };
  let fired = 0;
  const DAY = 24 * 3600 * 1000;
  longTimeout(() => fired++, 30 * DAY);
  advance(2 ** 31 - 1); // about 24.8 days: re-armed, not fired
  assert.equal(fired, 0);
  advance(30 * DAY - (2 ** 31 - 1) - 1);
  assert.equal(fired, 0);
  advance(1);
  assert.equal(fired, 1);
  advance(60 * DAY);
  assert.equal(fired, 1);
  const cancel = longTimeout(() => fired++, 40 * DAY);
  advance(30 * DAY);
  cancel();
  advance(30 * DAY);
  assert.equal(fired, 1);
});

void mock;

test('an abort reason that is a JS-built error is quoted, as Go quotes a ctx cause; one the core wrote passes as it is', async () => {
  const ui = new UserInteraction(core);
  ui.register(() => new Promise(() => {}));
  const own = await ui.ask(DB, { signal: AbortSignal.abort(new UserInteractionError('ASK_ABORTED', 'custom')) }).catch((e) => e);
  assert.equal(own.raw, '{"name":"UserInteractionError","code":"ASK_ABORTED","message":"the question was aborted: custom"}');
  const wrote = core.fail({ situation: 'interrupted' });
  assert.equal(await ui.ask(DB, { signal: AbortSignal.abort(wrote) }).catch((e) => e), wrote);
  const str = await ui.ask(DB, { signal: AbortSignal.abort('session cancelled') }).catch((e) => e);
  assert.equal(str.message, 'the question was aborted: session cancelled');
});
