// @askcore/askcore/openai against the real `openai` package, with a local
// HTTP server standing in for the API (baseURL): the model makes one
// ask_user_question call, the glue answers it, the model sends its final
// message. The request that follows the call must carry the core's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import OpenAI from 'openai';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { load, UserInteraction, answerText } from '@askcore/askcore';
import { askUserQuestion } from '@askcore/askcore/openai';
import { DB_REQUEST } from './helpers.mjs';

const core = await load();
const MODEL_TEXT = JSON.stringify(DB_REQUEST, null, 2); // spaced, as a model may write it
const strictSupported = JSON.stringify(/** @type {any} */ (core.schema)({ strict: true })) !== JSON.stringify(core.schema());
const NO_STRICT = 'skipped: this core writes no strict schema yet (op schema with "strict": true)';

/**
 * A local stand-in for the API: `respond(path, body, n)` answers the n-th
 * request (0-based) with a JSON body. Resolves to {baseURL, requests, close}.
 */
async function fakeAPI(respond) {
  const requests = [];
  const server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      const body = JSON.parse(data);
      requests.push({ path: req.url, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(respond(req.url, body, requests.length - 1)));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

/** A chat completion holding `message`. */
function completion(message, finish) {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'test-model', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null }] };
}

/** A response holding `output`. */
function response(id, output) {
  return { id, object: 'response', created_at: 1, status: 'completed', model: 'test-model', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], error: null, incomplete_details: null, instructions: null, metadata: {}, temperature: 1, top_p: 1 };
}

/** A UserInteraction whose provider answers with `reply`; `seen` holds the questions. */
function uiWith(reply) {
  const ui = new UserInteraction(core);
  const seen = [];
  ui.register(async (q) => (seen.push(q), typeof reply === 'function' ? reply(q) : reply));
  return { ui, seen };
}

/**
 * Runs a chat completions loop against the stand-in: one tool call with
 * `args`, answered by the glue, then the final message. Returns the tool
 * message the second request carried, and the first request's tools.
 */
async function chatRound(ask, args) {
  const api = await fakeAPI((_path, _body, n) =>
    n === 0
      ? completion({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ask_user_question', arguments: args } }] }, 'tool_calls')
      : completion({ content: 'All set.' }, 'stop'),
  );
  try {
    const client = new OpenAI({ apiKey: 'test', baseURL: api.baseURL, maxRetries: 0 });
    const messages = [{ role: 'user', content: 'Set up the service.' }];
    let final;
    for (let i = 0; i < 4; i++) {
      const { choices } = await client.chat.completions.create({ model: 'test-model', messages, tools: [ask.chatTool] });
      const message = choices[0].message;
      messages.push(message);
      if (!message.tool_calls?.length) {
        final = message.content;
        break;
      }
      for (const call of message.tool_calls) if (call.type === 'function' && call.function.name === ask.name) messages.push(await ask.toolMessage(call));
    }
    assert.equal(final, 'All set.');
    assert.equal(api.requests.length, 2);
    assert.ok(api.requests.every((r) => r.path === '/v1/chat/completions'));
    const sent = api.requests[1].body.messages;
    assert.equal(sent[1].tool_calls[0].function.arguments, args); // the model's text, sent back as it was
    return { toolMessage: sent[2], tools: api.requests[0].body.tools };
  } finally {
    await api.close();
  }
}

/** The same through the Responses API, continuing with previous_response_id. */
async function responsesRound(ask, args) {
  const api = await fakeAPI((_path, _body, n) =>
    n === 0
      ? response('resp_1', [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'ask_user_question', arguments: args, status: 'completed' }])
      : response('resp_2', [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'All set.', annotations: [] }] }]),
  );
  try {
    const client = new OpenAI({ apiKey: 'test', baseURL: api.baseURL, maxRetries: 0 });
    let res = await client.responses.create({ model: 'test-model', input: 'Set up the service.', tools: [ask.responsesTool] });
    for (let i = 0; i < 4; i++) {
      const calls = res.output.filter((item) => item.type === 'function_call');
      if (calls.length === 0) break;
      const outputs = [];
      for (const call of calls) if (call.name === ask.name) outputs.push(await ask.functionCallOutput(call));
      res = await client.responses.create({ model: 'test-model', previous_response_id: res.id, input: outputs, tools: [ask.responsesTool] });
    }
    assert.equal(res.output_text, 'All set.');
    assert.equal(api.requests.length, 2);
    assert.ok(api.requests.every((r) => r.path === '/v1/responses'));
    assert.equal(api.requests[1].body.previous_response_id, 'resp_1');
    assert.equal(api.requests[1].body.input.length, 1);
    return { output: api.requests[1].body.input[0], tools: api.requests[0].body.tools };
  } finally {
    await api.close();
  }
}

test('openai: the tools are the core\'s name, description and schema; strict false unless asked', () => {
  const { ui } = uiWith({ lines: ['1'] });
  const ask = askUserQuestion(ui);
  const schema = core.schema();
  assert.equal(ask.name, schema.name);
  assert.deepEqual(ask.chatTool, { type: 'function', function: { name: schema.name, description: schema.description, parameters: schema.parameters, strict: false } });
  assert.deepEqual(ask.responsesTool, { type: 'function', name: schema.name, description: schema.description, parameters: schema.parameters, strict: false });
});

test('openai: chat completions: one tool call answered with the core\'s bytes, then the final message', async () => {
  const { ui, seen } = uiWith({ lines: ['2'] });
  const ask = askUserQuestion(ui);
  const { toolMessage, tools } = await chatRound(ask, MODEL_TEXT);
  assert.deepEqual(tools, [ask.chatTool]);
  assert.deepEqual(toolMessage, { role: 'tool', tool_call_id: 'call_1', content: answerText(core.resolveAll(MODEL_TEXT, ['2'])) });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].raw, core.normalizeRaw(MODEL_TEXT).raw);
  assert.equal(seen[0].from.toolCallId, 'call_1');
});

test('openai: responses: one function call answered with the core\'s bytes, then the final message', async () => {
  const { ui, seen } = uiWith({ lines: ['mongo'] });
  const ask = askUserQuestion(ui);
  const { output, tools } = await responsesRound(ask, MODEL_TEXT);
  assert.deepEqual(tools, [ask.responsesTool]);
  assert.deepEqual(output, { type: 'function_call_output', call_id: 'call_1', output: answerText(core.resolveAll(MODEL_TEXT, ['mongo'])) });
  assert.equal(seen[0].from.toolCallId, 'call_1');
});

test('openai: the core\'s verdict on the model\'s text reaches the model as its error bytes', async (t) => {
  const cases = [
    ['invalid JSON', '{"question":"Which database?", "options":['],
    ['a key sent twice', '{"question":"Which?","question":"Which one?"}'],
    ['not an object', '["PostgreSQL"]'],
  ];
  for (const [name, args] of cases) {
    await t.test(name, async () => {
      const { ui, seen } = uiWith({ lines: ['1'] });
      const ask = askUserQuestion(ui);
      let expected;
      try {
        core.normalizeRaw(args);
      } catch (err) {
        expected = err.raw;
      }
      assert.ok(expected);
      const { toolMessage } = await chatRound(ask, args);
      assert.equal(toolMessage.content, expected);
      const { output } = await responsesRound(ask, args);
      assert.equal(output.output, expected);
      assert.equal(seen.length, 0);
    });
  }
});

test('openai: a failed ask is the core\'s error object in the message', async () => {
  const { ui } = uiWith({ decline: true });
  const ask = askUserQuestion(ui);
  const { toolMessage } = await chatRound(ask, MODEL_TEXT);
  assert.equal(toolMessage.content, core.fail({ situation: 'declined' }).raw);
  const { output } = await responsesRound(ask, MODEL_TEXT);
  assert.equal(output.output, core.fail({ situation: 'declined' }).raw);
});

test('openai: the signal and timeout reach the ask', async () => {
  const { ui } = uiWith(() => new Promise(() => {}));
  const ask = askUserQuestion(ui, { timeoutMs: 5 });
  const msg = await ask.toolMessage({ id: 'c1', function: { arguments: MODEL_TEXT } });
  assert.equal(msg.content, core.fail({ situation: 'timeout', ms: 5 }).raw);
  const controller = new AbortController();
  const pending = ask.functionCallOutput({ call_id: 'c2', arguments: MODEL_TEXT }, { signal: controller.signal, timeoutMs: 0 });
  controller.abort();
  assert.equal((await pending).output, core.fail({ situation: 'aborted' }).raw);
});

test('openai: strict: true on a core without a strict schema says so, rather than sending a schema strict mode refuses', () => {
  const { ui } = uiWith({ lines: ['1'] });
  if (strictSupported) assert.doesNotThrow(() => askUserQuestion(ui, { strict: true }));
  else assert.throws(() => askUserQuestion(ui, { strict: true }), /no strict schema/);
});

test('openai: strict: the core\'s strict schema, which openai\'s strict rules accept, and strict: true', { skip: strictSupported ? false : NO_STRICT }, async () => {
  const { ui, seen } = uiWith({ lines: ['2'] });
  const ask = askUserQuestion(ui, { strict: true });
  const strict = /** @type {any} */ (core.schema)({ strict: true });
  assert.deepEqual(ask.chatTool, { type: 'function', function: { name: strict.name, description: strict.description, parameters: strict.parameters, strict: true } });
  assert.deepEqual(ask.responsesTool, { type: 'function', name: strict.name, description: strict.description, parameters: strict.parameters, strict: true });
  toStrictJsonSchema(strict.parameters); // throws on what OpenAI's strict mode refuses
  // A strict model sends every field, null for those it leaves out: the
  // core reads them as absent, so the answer is the one for the request.
  const withNulls = JSON.stringify(fillNulls(strict.parameters, structuredClone(DB_REQUEST), strict.parameters));
  const { toolMessage } = await chatRound(ask, withNulls);
  assert.equal(toolMessage.content, answerText(core.resolveAll(MODEL_TEXT, ['2'])));
  assert.equal(seen[0].raw, core.normalizeRaw(MODEL_TEXT).raw);
});

/**
 * `value` with every property of `schema` it lacks set to null, where the
 * property's schema allows null (what a model under strict mode sends).
 */
function fillNulls(schema, value, root) {
  schema = deref(schema, root);
  if (Array.isArray(value)) {
    const items = deref(schema.items ?? (schema.anyOf ?? []).find((s) => deref(s, root).items)?.items, root);
    return items ? value.map((v) => fillNulls(items, v, root)) : value;
  }
  if (!value || typeof value !== 'object') return value;
  const obj = schema.properties ? schema : (schema.anyOf ?? []).map((s) => deref(s, root)).find((s) => s.properties);
  if (!obj) return value;
  for (const [k, s] of Object.entries(obj.properties)) {
    if (k in value) value[k] = fillNulls(s, value[k], root);
    else if (allowsNull(deref(s, root), root)) value[k] = null;
  }
  return value;
}

function deref(s, root) {
  if (s && typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    return s.$ref.slice(2).split('/').reduce((o, k) => o[k], root);
  }
  return s;
}

function allowsNull(s, root) {
  if (!s) return false;
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  return (s.anyOf ?? []).some((b) => allowsNull(deref(b, root), root));
}
