// @askcore/askcore/ai-sdk against the real AI SDK (`ai` v6): generateText
// and streamText with the SDK's MockLanguageModelV3 making a tool call; the
// model's next prompt holds what the SDK sent back, which must be the
// core's bytes: its answer, or its error object {name, code, message}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, streamText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { load, UserInteraction, HarnessError, answerText } from '@askcore/askcore';
import { askUserQuestion, AskUserQuestionError } from '@askcore/askcore/ai-sdk';
import { DB_REQUEST } from './helpers.mjs';

const core = await load();
const MODEL_TEXT = JSON.stringify(DB_REQUEST, null, 1); // spaced, as a model may write it
const strictSupported = JSON.stringify(/** @type {any} */ (core.schema)({ strict: true })) !== JSON.stringify(core.schema());
const NO_STRICT = 'skipped: this core writes no strict schema yet (op schema with "strict": true)';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that calls ask_user_question with `text` once, then says "done". */
function mockModel(text, id = 'call-1') {
  return new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: 'tool-call', toolCallId: id, toolName: 'ask_user_question', input: text }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

/** The same, streaming. */
function mockStreamModel(text, id = 'call-1') {
  const finish = (unified) => ({ type: 'finish', finishReason: { unified, raw: unified }, usage });
  return new MockLanguageModelV3({
    doStream: [
      { stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, { type: 'tool-call', toolCallId: id, toolName: 'ask_user_question', input: text }, finish('tool-calls')]) },
      { stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, finish('stop')]) },
    ],
  });
}

/** What the SDK sent the model for the tool call: the output part of the last prompt's tool message. */
function sentBack(model, calls = model.doGenerateCalls) {
  const last = calls.at(-1).prompt.at(-1);
  assert.equal(last.role, 'tool');
  assert.equal(last.content.length, 1);
  return last.content[0].output;
}

/** A UserInteraction whose provider hands back `reply` (or throws it, when a function throws). */
function uiWith(provider) {
  const ui = new UserInteraction(core);
  const seen = [];
  ui.register(async (q, o) => {
    seen.push(q);
    return provider(q, o);
  });
  return { ui, seen };
}

/** The core's error for a call text, as normalize gives it. */
function requestError(text) {
  try {
    core.normalizeRaw(text);
  } catch (err) {
    return err;
  }
  assert.fail('expected the core to refuse ' + text);
}

test('ai-sdk: the tool the model sees is the core\'s: name, description, input schema', async () => {
  const { ui } = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(ui);
  const model = mockModel(MODEL_TEXT);
  await generateText({ model, tools: { [ask.name]: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  const [sent] = model.doGenerateCalls[0].tools;
  const schema = core.schema();
  assert.equal(ask.name, schema.name);
  assert.equal(sent.type, 'function');
  assert.equal(sent.name, schema.name);
  assert.equal(sent.description, schema.description);
  assert.deepEqual(sent.inputSchema, schema.parameters);
  assert.equal(sent.strict, undefined);
});

test('ai-sdk: a tool call is answered with the core\'s answer bytes', async () => {
  const { ui, seen } = uiWith(() => ({ lines: ['3'] }));
  const ask = askUserQuestion(ui);
  const model = mockModel(MODEL_TEXT);
  const result = await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.equal(result.text, 'done');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].raw, core.normalizeRaw(MODEL_TEXT).raw);
  assert.equal(seen[0].from.toolCallId, 'call-1');
  const expected = answerText(core.resolveAll(MODEL_TEXT, ['3']));
  assert.deepEqual(sentBack(model), { type: 'text', value: expected });
  // The step's result is the core's answer object.
  const [tr] = result.steps[0].toolResults;
  assert.equal(answerText(tr.output), expected);
});

test('ai-sdk: a failed ask reaches the model as the core\'s {name, code, message}, and stays a tool error', async (t) => {
  const cases = [
    ['a decline', () => ({ decline: true }), core.fail({ situation: 'declined' }).raw],
    ['a HarnessError built in JS', () => { throw new HarnessError('ASK_FAILED', 'the form broke'); }, core.fail({ situation: 'provider_failed', detail: 'ASK_FAILED: the form broke' }).raw],
    ['an error the core wrote', () => { throw core.fail({ situation: 'interrupted' }); }, core.fail({ situation: 'interrupted' }).raw],
    ['no reply', () => undefined, core.fail({ situation: 'no_answer' }).raw],
  ];
  for (const [name, provider, raw] of cases) {
    await t.test(name, async () => {
      const { ui } = uiWith(provider);
      const ask = askUserQuestion(ui);
      const model = mockModel(MODEL_TEXT);
      const result = await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
      assert.deepEqual(sentBack(model), { type: 'error-text', value: raw });
      const errors = result.steps[0].content.filter((p) => p.type === 'tool-error');
      assert.equal(errors.length, 1);
      const err = errors[0].error;
      assert.ok(err instanceof AskUserQuestionError);
      assert.equal(err.name, 'AskUserQuestionError');
      assert.equal(err.message, raw);
      assert.equal(err.code, JSON.parse(raw).code);
      assert.ok(err.cause instanceof HarnessError);
      assert.equal(err.cause.raw, raw);
    });
  }
});

test('ai-sdk: a call the core refuses is its INVALID_REQUEST, and nobody is asked', async () => {
  const { ui, seen } = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(ui);
  const text = '{"question":"Which one?","options":"PostgreSQL"}';
  const model = mockModel(text);
  await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.deepEqual(sentBack(model), { type: 'error-text', value: requestError(text).raw });
  assert.equal(seen.length, 0);
});

test('ai-sdk: invalid JSON is the SDK\'s parse message without repairToolCall, the core\'s verdict with it', async () => {
  const text = '{"question":"Which database?","options":["PostgreSQL"'; // cut off
  const expected = requestError(text).raw;
  assert.match(JSON.parse(expected).message, /not valid JSON .*at byte \d+ of \d+/);

  const plain = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(plain.ui);
  const model = mockModel(text);
  await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  const out = sentBack(model);
  assert.equal(out.type, 'error-text');
  assert.match(out.value, /^Invalid input for tool ask_user_question: JSON parsing failed/); // the SDK's words
  assert.equal(plain.seen.length, 0);

  const repaired = uiWith(() => ({ lines: ['1'] }));
  const ask2 = askUserQuestion(repaired.ui);
  const model2 = mockModel(text);
  await generateText({ model: model2, tools: { ask_user_question: ask2.tool }, experimental_repairToolCall: ask2.repairToolCall, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.deepEqual(sentBack(model2), { type: 'error-text', value: expected });
  assert.equal(repaired.seen.length, 0);
});

test('ai-sdk: repairToolCall leaves other tools\' calls and errors alone', async () => {
  const { ui } = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(ui);
  const toolCall = { type: 'tool-call', toolCallId: 'c', toolName: 'other', input: '{' };
  assert.equal(await ask.repairToolCall({ toolCall, tools: { other: {}, ask_user_question: ask.tool }, error: new Error('x'), messages: [], system: undefined, inputSchema: async () => ({}) }), null);
  assert.equal(await ask.repairToolCall({ toolCall: { ...toolCall, toolName: 'ask_user_question' }, tools: { ask_user_question: ask.tool }, error: new Error('not an InvalidToolInputError'), messages: [], system: undefined, inputSchema: async () => ({}) }), null);
});

test('ai-sdk: with the middleware the core reads the text the model wrote (a key sent twice), without it what the SDK parsed', async () => {
  const text = '{"question":"Which database?","question":"Which cache?","options":["Redis","Memcached"]}';
  const expected = requestError(text).raw;
  assert.match(JSON.parse(expected).message, /2 times/);

  const wrapped = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(wrapped.ui);
  const model = mockModel(text);
  await generateText({ model: wrapLanguageModel({ model, middleware: ask.middleware }), tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.deepEqual(sentBack(model), { type: 'error-text', value: expected });
  assert.equal(wrapped.seen.length, 0);

  // Without it, JSON.parse kept the last key: the person is asked "Which cache?".
  const plain = uiWith(() => ({ lines: ['1'] }));
  const ask2 = askUserQuestion(plain.ui);
  const model2 = mockModel(text);
  await generateText({ model: model2, tools: { ask_user_question: ask2.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.equal(plain.seen.length, 1);
  assert.equal(plain.seen[0].questions[0].question, 'Which cache?');
  assert.equal(sentBack(model2).type, 'text');
});

test('ai-sdk: streamText with the middleware: the core\'s answer bytes for the model\'s text', async () => {
  const { ui, seen } = uiWith(() => ({ lines: ['postgres'] }));
  const ask = askUserQuestion(ui);
  const model = mockStreamModel(MODEL_TEXT);
  const result = streamText({ model: wrapLanguageModel({ model, middleware: ask.middleware }), tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  assert.equal(await result.text, 'done');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].raw, core.normalizeRaw(MODEL_TEXT).raw);
  assert.deepEqual(sentBack(model, model.doStreamCalls), { type: 'text', value: answerText(core.resolveAll(MODEL_TEXT, ['postgres'])) });
});

test('ai-sdk: the SDK\'s abort signal aborts the ask (ASK_ABORTED) and the provider\'s signal', async () => {
  const controller = new AbortController();
  let providerSignal;
  const { ui } = uiWith((_q, { signal }) => {
    providerSignal = signal;
    controller.abort();
    return new Promise(() => {});
  });
  const ask = askUserQuestion(ui);
  const model = mockModel(MODEL_TEXT);
  await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi', abortSignal: controller.signal }).catch(() => {});
  assert.ok(providerSignal?.aborted);
  assert.equal(providerSignal.reason.code, 'ASK_ABORTED');
});

test('ai-sdk: strict: the core\'s strict schema and strict: true on the tool', { skip: strictSupported ? false : NO_STRICT }, async () => {
  const { ui } = uiWith(() => ({ lines: ['1'] }));
  const ask = askUserQuestion(ui, { strict: true });
  const model = mockModel(MODEL_TEXT);
  await generateText({ model, tools: { ask_user_question: ask.tool }, stopWhen: stepCountIs(3), prompt: 'hi' });
  const [sent] = model.doGenerateCalls[0].tools;
  assert.equal(sent.strict, true);
  assert.deepEqual(sent.inputSchema, /** @type {any} */ (core.schema)({ strict: true }).parameters);
});
