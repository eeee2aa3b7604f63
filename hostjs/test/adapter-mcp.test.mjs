// @askcore/askcore/mcp against the real MCP TypeScript SDK: an McpServer
// with ask_user_question and the elicitation provider, and a Client with
// an elicitation handler, connected by InMemoryTransport. Every tool result
// must carry the core's bytes: the answer the core's form loop gives for
// the client's replies, or the error object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { load, UserInteraction, answerText } from '@askcore/askcore';
import { registerAskUserQuestion, createMcpElicitationProvider } from '@askcore/askcore/mcp';
import { DB_REQUEST, until } from './helpers.mjs';
import { answeredAtOnce, NOT_SHOWN_MS } from '../../testdata/interop/notshown.mjs';

const core = await load();

/** The core's MCP form for a call (op elicitation, "for":"mcp"). */
function mcpForm(args) {
  const env = JSON.parse(core.handle('{"op":"elicitation","arguments":' + JSON.stringify(args) + ',"for":"mcp"}'));
  assert.ok(env.ok, JSON.stringify(env));
  return env.result;
}

/**
 * The tool result text the JS seam gives for `args` when the client's reply
 * is `reply`: the oracle (a UserInteraction whose provider hands the reply
 * back as {form}).
 */
async function seamText(args, reply) {
  const ui = new UserInteraction(core);
  ui.register(() => ({ form: reply }));
  try {
    return answerText(await ui.ask(args));
  } catch (err) {
    return err.raw;
  }
}

/**
 * A connected server and client. `elicit(request, extra)` is the client's
 * elicitation handler; `capabilities` the client's.
 */
async function connect({ elicit, capabilities = { elicitation: { form: {} } }, progressEveryMs = 5000, clientName = 'test-client', clientEntrypoint } = {}) {
  const ui = new UserInteraction(core);
  const server = new McpServer({ name: 'test-agent', version: '1.0.0' });
  registerAskUserQuestion(server, ui);
  const dispose = ui.register(createMcpElicitationProvider(server, core, { progressEveryMs, clientEntrypoint }));
  const client = new Client({ name: clientName, version: '1.0.0' }, { capabilities });
  const elicited = [];
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      elicited.push(req.params);
      return elicit ? elicit(req, extra) : byAPerson({ action: 'decline' })();
    });
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  // What the server sent, as it went on the wire (the client's SDK drops
  // keys it does not know, such as an option's description in oneOf).
  const wire = [];
  const send = a.send.bind(a);
  a.send = (message, options) => (wire.push(JSON.parse(JSON.stringify(message))), send(message, options));
  await server.connect(a);
  await client.connect(b);
  return {
    ui,
    server,
    client,
    elicited,
    /** The elicitation/create requests the server sent, their params as sent. */
    forms: () => wire.filter((m) => m.method === 'elicitation/create').map((m) => m.params),
    dispose,
    /** Calls the tool; resolves to the result. */
    call: (args, options) => client.callTool({ name: 'ask_user_question', arguments: args }, undefined, options),
    close: async () => {
      dispose();
      await client.close();
      await server.close();
    },
  };
}

/** The one text block of a tool result, checked against structuredContent. */
function resultText(result) {
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, 'text');
  const text = result.content[0].text;
  assert.deepEqual(result.structuredContent, JSON.parse(text));
  return text;
}

test('mcp: tools/list shows the core\'s name, description and JSON Schema', async () => {
  const s = await connect();
  const { tools } = await s.client.listTools();
  const schema = core.schema();
  assert.equal(tools.length, 1);
  assert.equal(tools[0].name, schema.name);
  assert.equal(tools[0].description, schema.description);
  const { $schema, ...inputSchema } = tools[0].inputSchema;
  assert.equal($schema, 'http://json-schema.org/draft-07/schema#'); // the SDK's, added by zod
  assert.deepEqual(inputSchema, schema.parameters);
  await s.close();
});

test('mcp: a call asks through the client\'s form and answers with the core\'s bytes, with progress', async () => {
  const reply = { action: 'accept', content: { choice: 'mongo', notes: 'for the prototype' } };
  let release;
  const s = await connect({
    progressEveryMs: 10,
    elicit: () => new Promise((resolve) => (release = () => resolve(reply))),
  });
  const progress = [];
  const messages = [];
  const pending = s.call(DB_REQUEST, { onprogress: (p) => (progress.push(p.progress), messages.push(p.message)), resetTimeoutOnProgress: true });
  await until(() => release !== undefined && progress.length >= 2);
  release();
  const result = await pending;
  const args = JSON.stringify(DB_REQUEST);
  assert.equal(result.isError, undefined);
  assert.equal(resultText(result), await seamText(args, reply));
  assert.equal(resultText(result), answerText(core.elicitationResult(args, reply)));
  assert.equal(s.elicited.length, 1);
  const form = mcpForm(args);
  assert.deepEqual(s.forms(), [{ mode: 'form', message: form.message, requestedSchema: form.requestedSchema }]);
  assert.deepEqual(progress.slice(0, 2), [1, 2]);
  // The core's words for a question still open, as progress carries them.
  for (const m of messages) assert.match(m, /^Waiting for your answer…( \(\d+ seconds? so far\))?$/);
  await s.close();
});

test('mcp: no progress without a progress token', async () => {
  const s = await connect({ progressEveryMs: 5, elicit: async () => (await new Promise((r) => setTimeout(r, 60)), { action: 'accept', content: { choice: 'postgres' } }) });
  let progressed = 0;
  s.client.setNotificationHandler((await import('@modelcontextprotocol/sdk/types.js')).ProgressNotificationSchema, () => progressed++);
  const result = await s.call(DB_REQUEST);
  assert.equal(JSON.parse(resultText(result)).answer, 'postgres');
  assert.equal(progressed, 0);
  await s.close();
});

/** A person's time to read a form and answer it: a decline sooner is nobody's. */
const PERSON_MS = NOT_SHOWN_MS + 50;

/** `reply` after a person's time. */
const byAPerson = (reply) => async () => (await new Promise((r) => setTimeout(r, PERSON_MS)), reply);

/**
 * The tool result text the core's form loop gives for `replies` (op
 * form_reply, round after round), as a host judges them: the oracle for a
 * client whose replies came after a person's time.
 */
function formLoopText(args, replies, delivery) {
  let round = 0;
  for (const response of replies) {
    const step = core.formReply(args, { response, round, for: 'mcp', delivery: { ms: PERSON_MS, ...delivery } });
    if (step.next === 'answer') return answerText(step.answer);
    if (step.next !== 'ask_again') return step.error.raw;
    round = step.round;
  }
  throw new Error('out of replies');
}

test('mcp: a person\'s reply is judged by the core, as it came', async (t) => {
  const args = JSON.stringify(DB_REQUEST);
  const replies = [
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
    ['accept with custom text', { action: 'accept', content: { choice: 'postgres', custom_answer: 'CockroachDB' } }],
    ['accept without content', { action: 'accept' }],
  ];
  for (const [name, reply] of replies) {
    await t.test(name, async () => {
      const s = await connect({ elicit: byAPerson(reply) });
      const result = await s.call(DB_REQUEST);
      const text = resultText(result);
      // A reply that does not answer went back to the person: each round got the same.
      assert.equal(text, formLoopText(args, Array(s.forms().length).fill(reply), { client: 'test-client', clientVersion: '1.0.0' }));
      assert.equal(result.isError, 'answer' in JSON.parse(text) ? undefined : true);
      await s.close();
    });
  }
  assert.equal(JSON.parse(formLoopText(args, [{ action: 'decline' }], {})).code, 'ASK_DECLINED');
});

test('mcp: a decline or cancel at once is nobody\'s: ASK_FAILED (not_shown), never declined or cancelled', async (t) => {
  for (const [action, did] of [['decline', 'declined'], ['cancel', 'cancelled']]) {
    await t.test(action, async () => {
      const s = await connect({ elicit: () => ({ action }) });
      const result = await answeredAtOnce(() => s.call(DB_REQUEST), (r) => JSON.parse(resultText(r)).code === 'ASK_FAILED');
      const err = JSON.parse(resultText(result));
      assert.equal(result.isError, true);
      assert.equal(err.code, 'ASK_FAILED');
      assert.match(err.message, new RegExp(`^Nobody saw the question: test-client 1\\.0\\.0 ${did} the form in \\d+ ms, before anyone could read it`));
      await s.close();
    });
  }
});

test('mcp: a turn nobody runs, by the protocol or the client\'s own word, is not_shown whatever the time', async (t) => {
  // Codex 0.169.0 sends it in its turn metadata (measured: codex exec's
  // tools/call _meta), older shapes at the top of _meta.
  for (const [shape, meta] of [
    ['_meta["x-codex-turn-metadata"].turn_trigger', { callId: 'call_ask_1', 'x-codex-turn-metadata': { thread_source: 'user', turn_trigger: 'exec' } }],
    ['_meta.turn_trigger', { turn_trigger: 'exec' }],
  ]) {
    await t.test(`codex exec: ${shape} "exec"`, async () => {
      const s = await connect({ elicit: byAPerson({ action: 'decline' }) });
      const result = await s.client.callTool({ name: 'ask_user_question', arguments: DB_REQUEST, _meta: meta });
      const err = JSON.parse(resultText(result));
      assert.equal(err.code, 'ASK_FAILED');
      assert.match(err.message, /declined the form without a person: it runs this turn unattended \(turn_trigger exec\)/);
      await s.close();
    });
  }
  await t.test('claude -p: clientEntrypoint "sdk-cli" from claude-code', async () => {
    const s = await connect({ elicit: byAPerson({ action: 'cancel' }), clientName: 'claude-code', clientEntrypoint: 'sdk-cli' });
    const err = JSON.parse(resultText(await s.call(DB_REQUEST)));
    assert.equal(err.code, 'ASK_FAILED');
    assert.match(err.message, /^Nobody saw the question: claude-code 1\.0\.0 cancelled the form without a person: it runs unattended \(print mode, claude -p\)/);
    await s.close();
  });
  await t.test('the Claude Code TUI: clientEntrypoint "cli" is a person\'s cancel', async () => {
    const s = await connect({ elicit: byAPerson({ action: 'cancel' }), clientName: 'claude-code', clientEntrypoint: 'cli' });
    assert.equal(JSON.parse(resultText(await s.call(DB_REQUEST))).code, 'ASK_CANCELLED');
    await s.close();
  });
});

test('mcp: a reply the core judges invalid goes back to the person with the core\'s message', async () => {
  const args = JSON.stringify(DB_REQUEST);
  const replies = [{ action: 'accept', content: { choice: 'oracle' } }, { action: 'accept', content: { choice: 'sqlite' } }];
  let n = 0;
  const s = await connect({ elicit: () => replies[n++] });
  const result = await s.call(DB_REQUEST);
  assert.equal(resultText(result), formLoopText(args, replies, {}));
  assert.equal(JSON.parse(resultText(result)).answer, 'SQLite');
  const forms = s.forms();
  assert.equal(forms.length, 2);
  const again = core.formReply(args, { response: replies[0], round: 0, for: 'mcp', delivery: { ms: 1, client: 'test-client', clientVersion: '1.0.0' } });
  assert.equal(again.next, 'ask_again');
  assert.deepEqual(forms[1], { mode: 'form', message: again.form.message, requestedSchema: again.form.requestedSchema });
  await s.close();
});

test('mcp: a person who keeps sending invalid replies: the model hears INVALID_ANSWER after the core\'s rounds', async () => {
  const args = JSON.stringify(DB_REQUEST);
  const bad = { action: 'accept', content: {} };
  const s = await connect({ elicit: () => bad });
  const result = await s.call(DB_REQUEST);
  const rounds = s.forms().length;
  assert.ok(rounds > 1, 'the form never went back to the person');
  assert.equal(resultText(result), formLoopText(args, Array(rounds).fill(bad), {}));
  assert.equal(JSON.parse(resultText(result)).code, 'INVALID_ANSWER');
  await s.close();
});

test('mcp: a batch is one form', async () => {
  const batch = { questions: [{ question: 'Colour?', options: ['Red', 'Blue'] }, { question: 'Name?' }] };
  const s = await connect({ elicit: (req) => ({ action: 'accept', content: { choice_1: 'Blue', answer_2: 'Ada' } }) });
  const result = await s.call(batch);
  const args = JSON.stringify(batch);
  assert.equal(resultText(result), await seamText(args, { action: 'accept', content: { choice_1: 'Blue', answer_2: 'Ada' } }));
  assert.deepEqual(s.forms()[0].requestedSchema, mcpForm(args).requestedSchema);
  await s.close();
});

test('mcp: a bad call is the core\'s INVALID_REQUEST, and the client is not asked', async () => {
  const s = await connect({ elicit: () => ({ action: 'accept', content: { answer: 'x' } }) });
  for (const args of [{}, { question: 'Which?', options: 'PostgreSQL' }, { question: 'Which?', multiSelect: true }]) {
    const result = await s.call(args);
    const text = resultText(result);
    assert.equal(result.isError, true);
    let expected;
    try {
      core.normalizeRaw(JSON.stringify(args));
    } catch (err) {
      expected = err.raw;
    }
    assert.equal(text, expected, JSON.stringify(args));
    assert.equal(JSON.parse(text).code, 'INVALID_REQUEST');
  }
  assert.equal(s.elicited.length, 0);
  await s.close();
});

test('mcp: a client without form elicitation gets the core\'s ASK_FAILED at once', async () => {
  const s = await connect({ capabilities: {} });
  const result = await s.call(DB_REQUEST);
  assert.equal(result.isError, true);
  assert.equal(resultText(result), core.fail({ situation: 'no_form_support' }).raw);
  await s.close();

  const urlOnly = await connect({ capabilities: { elicitation: { url: {} } } });
  assert.equal(resultText(await urlOnly.call(DB_REQUEST)), core.fail({ situation: 'no_form_support' }).raw);
  await urlOnly.close();
});

test('mcp: an empty elicitation capability means form', async () => {
  const s = await connect({ capabilities: { elicitation: {} }, elicit: () => ({ action: 'accept', content: { choice: 'sqlite' } }) });
  const result = await s.call(DB_REQUEST);
  assert.equal(JSON.parse(resultText(result)).answer, 'SQLite');
  await s.close();
});

test('mcp: a client that answers the form with an error is the core\'s client_error', async () => {
  const s = await connect({ elicit: () => { throw new Error('the form window crashed'); } });
  const result = await s.call(DB_REQUEST);
  const err = JSON.parse(resultText(result));
  assert.equal(result.isError, true);
  assert.equal(err.code, 'ASK_FAILED');
  const prefix = JSON.parse(core.fail({ situation: 'client_error', detail: 'X' }).raw).message.replace(/X$/, '');
  assert.ok(err.message.startsWith(prefix), err.message);
  assert.match(err.message, /the form window crashed/);
  await s.close();
});

test('mcp: the client cancelling the call aborts the ask (ASK_ABORTED) and cancels the form', async () => {
  let formSignal;
  let hang = false;
  const s = await connect({ elicit: (_req, extra) => (hang ? ((formSignal = extra.signal), new Promise(() => {})) : { action: 'decline' }) });
  // SDK 1.32.2 ignores notifications/cancelled for request id 0 (the
  // server's first request): the form to cancel is the second one.
  await s.call(DB_REQUEST);
  hang = true;
  let providerSignal;
  const ask = s.ui.ask.bind(s.ui);
  s.ui.ask = (args, o) => ask(args, o).catch((err) => ((providerSignal = err), Promise.reject(err)));
  const controller = new AbortController();
  const pending = s.call(DB_REQUEST, { signal: controller.signal }).catch((e) => e);
  await until(() => formSignal !== undefined);
  controller.abort();
  assert.ok((await pending) instanceof Error); // the client's own AbortError: the server sends no result
  await until(() => formSignal.aborted && providerSignal !== undefined);
  assert.equal(providerSignal.code, 'ASK_ABORTED');
  await s.close();
});

test('mcp: concurrent calls each get their own form and their own answer', async () => {
  const s = await connect({
    elicit: async (req) => {
      await new Promise((r) => setTimeout(r, req.params.message.includes('first') ? 40 : 5));
      return { action: 'accept', content: { answer: req.params.message.includes('first') ? 'one' : 'two' } };
    },
  });
  const [r1, r2] = await Promise.all([s.call({ question: 'The first?' }), s.call({ question: 'The second?' })]);
  assert.equal(JSON.parse(resultText(r1)).answer, 'one');
  assert.equal(JSON.parse(resultText(r2)).answer, 'two');
  await s.close();
});

test('mcp: a question asked outside a tool call goes to the connected client', async () => {
  const s = await connect({ elicit: () => ({ action: 'accept', content: { choice: 'mysql' } }) });
  const answer = await s.ui.ask(JSON.stringify(DB_REQUEST));
  assert.equal(answer.answer, 'MySQL');
  await s.close();
});

test('mcp: a closed connection ends the pending call\'s ask with ASK_ABORTED', async () => {
  let started = false;
  const s = await connect({ elicit: () => ((started = true), new Promise(() => {})) });
  let rejected;
  const ask = s.ui.ask.bind(s.ui);
  s.ui.ask = (args, o) => ask(args, o).catch((err) => ((rejected = err), Promise.reject(err)));
  s.call(DB_REQUEST).catch(() => {});
  await until(() => started);
  await s.client.close();
  await until(() => rejected !== undefined);
  assert.equal(rejected.raw, core.fail({ situation: 'aborted' }).raw);
  await s.close();
});

test('the asker is the client, by its clientInfo (askcore-mcp names it the same way)', async () => {
  for (const [info, want] of [
    [{ name: 'claude-code', title: 'Claude Code', version: '2.1.328' }, 'Claude Code 2.1.328'],
    [{ name: 'codex-mcp-client', version: '0.169.0' }, 'codex-mcp-client 0.169.0'],
  ]) {
    const ui = new UserInteraction(core);
    const server = new McpServer({ name: 'test-agent', version: '1.0.0' });
    registerAskUserQuestion(server, ui);
    const asked = [];
    const dispose = ui.register((q) => (asked.push(q.from), { form: { action: 'accept', content: { choice: 'sqlite' } } }));
    const client = new Client(info, { capabilities: {} });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    const res = await client.callTool({ name: 'ask_user_question', arguments: DB_REQUEST });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].agentId, want);
    dispose();
    await client.close();
    await server.close();
  }
});
