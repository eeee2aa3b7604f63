// Load on the JS seam: many questions queued at once, answered in random
// order, some aborted; every answer reaches its own asker, none is lost,
// every promise settles exactly once, memory stays bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { load, UserInteraction, askUserQuestionTool, UserInteractionError } from '@askcore/askcore';
import { createReadlineProvider } from '@askcore/askcore/readline';

const core = await load();

/** Fisher-Yates with a seeded generator, so a failure can be replayed. */
function shuffle(arr, seed) {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [arr[i], arr[j]] = [arr[j], arr[i]];
  }
  return arr;
}

const answerFor = (id) => `answer for ${id} ✓`;

test('1000 questions queued through the tool, answered in random order, 10% aborted: none crossed, none lost', async () => {
  const N = 1000;
  const seed = Date.now() >>> 0;
  const ui = new UserInteraction(core);
  const tool = askUserQuestionTool(ui);
  const held = [];
  const dispose = ui.register({
    ask(question, { signal }) {
      return new Promise((resolve, reject) => {
        held.push({ question, signal, resolve, reject });
      });
    },
  });
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;

  const settled = new Map(); // toolCallId -> {ok, value}
  const aborts = new Map();
  const calls = [];
  for (let i = 0; i < N; i++) {
    const id = `call_${i}`;
    const ac = new AbortController();
    aborts.set(id, ac);
    const args = {
      header: 'Load',
      question: `Question ${i}?`,
      options: [{ label: 'A' }, { label: 'B', recommended: true }],
      allowCustom: true,
    };
    calls.push(
      tool.execute(args, { signal: ac.signal, toolCallId: id, sessionId: `s${i % 7}` }).then(
        (value) => {
          assert.ok(!settled.has(id), `${id} settled twice`);
          settled.set(id, { ok: true, value });
        },
        (err) => {
          assert.ok(!settled.has(id), `${id} settled twice`);
          settled.set(id, { ok: false, err });
        },
      ),
    );
  }
  // Every question reached the provider, with its own identity.
  for (let i = 0; i < 100 && held.length < N; i++) await new Promise((r) => setImmediate(r));
  assert.equal(held.length, N, 'every question reached the provider');
  const heapPeak = process.memoryUsage().heapUsed;

  // Abort 10% (chosen at random), answer the rest in random order, each
  // through the core with text derived from its own tool call id.
  const order = shuffle([...held], seed);
  const aborted = new Set(order.slice(0, N / 10).map((h) => h.question.from.toolCallId));
  for (const id of aborted) aborts.get(id).abort(new Error(`abandoned ${id}`));
  await Promise.all(
    order.map(async (h, k) => {
      if (k % 17 === 0) await new Promise((r) => setImmediate(r));
      const id = h.question.from.toolCallId;
      if (aborted.has(id)) {
        assert.ok(h.signal.aborted, `${id}: the provider's signal is aborted`);
        // A late reply after an abort must not resurrect the question.
        h.resolve({ form: { action: 'accept', content: { custom_answer: 'late' } } });
        return;
      }
      h.resolve({ form: { action: 'accept', content: { custom_answer: answerFor(id) } } });
    }),
  );
  await Promise.all(calls);

  assert.equal(settled.size, N, 'every question settled');
  let answered = 0;
  for (const [id, r] of settled) {
    if (aborted.has(id)) {
      assert.equal(r.ok, false, `${id} was aborted but answered`);
      assert.ok(r.err instanceof UserInteractionError, `${id}: ${r.err}`);
      assert.equal(r.err.code, 'ASK_ABORTED');
      assert.match(r.err.message, new RegExp(`abandoned ${id}\\b`));
    } else {
      assert.equal(r.ok, true, `${id}: ${r.err}`);
      assert.equal(r.value.answer, answerFor(id), `${id}: crossed answer (seed ${seed})`);
      answered++;
    }
  }
  assert.equal(answered, N - N / 10);
  dispose();
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  const perQuestion = (heapPeak - heapBefore) / N;
  console.log(
    `# ${N} queued questions (seed ${seed}): heap ${(heapBefore / 2 ** 20).toFixed(1)} MiB before, ` +
      `${(heapPeak / 2 ** 20).toFixed(1)} MiB with all pending (${(perQuestion / 1024).toFixed(1)} KiB each), ` +
      `${(heapAfter / 2 ** 20).toFixed(1)} MiB after`,
  );
  assert.ok(heapPeak - heapBefore < 32 * 2 ** 20 + N * 16 * 1024, `heap grew ${(heapPeak - heapBefore) / 2 ** 20} MiB for ${N} questions`);
});

test('disposing the provider with 500 questions queued rejects every one with ASK_ABORTED', async () => {
  const N = 500;
  const ui = new UserInteraction(core);
  let reached = 0;
  const dispose = ui.register({ ask: (_q, { signal }) => (reached++, new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason)))) });
  const results = await Promise.allSettled(
    Array.from({ length: N }, (_, i) => {
      const p = ui.ask({ question: `q${i}` }, { from: { toolCallId: `t${i}` } });
      if (i === N - 1) setImmediate(dispose);
      return p;
    }),
  );
  assert.equal(reached, N);
  assert.equal(results.length, N);
  for (const r of results) {
    assert.equal(r.status, 'rejected');
    assert.equal(r.reason.code, 'ASK_ABORTED');
  }
  // The seam works again with a new provider.
  ui.register(() => ({ lines: ['again'] }));
  assert.deepEqual(await ui.ask({ question: 'still there?' }), { answer: 'again' });
});

test('readline provider: 300 questions queued, lines piped ahead answer them in order', async (t) => {
  const N = 300;
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const provider = createReadlineProvider(core, { input, output, prompt: '> ' });
  t.after(() => provider.close());
  const ui = new UserInteraction(core);
  ui.register(provider);
  const asks = Array.from({ length: N }, (_, i) =>
    ui.ask({ question: `Name ${i}?` }, { from: { toolCallId: `r${i}` } }),
  );
  // All lines at once, in chunks that split lines and characters.
  const text = Array.from({ length: N }, (_, i) => `name-${i}-\u00e9\n`).join('');
  const bytes = Buffer.from(text);
  for (let off = 0; off < bytes.length; off += 97) input.write(bytes.subarray(off, off + 97));
  const got = await Promise.all(asks);
  got.forEach((a, i) => assert.equal(a.answer, `name-${i}-\u00e9`, `question ${i} got another line`));
});

test('readline provider: end of input with 200 questions queued rejects all, nothing hangs', async () => {
  const N = 200;
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const provider = createReadlineProvider(core, { input, output, prompt: '> ' });
  const ui = new UserInteraction(core);
  ui.register(provider);
  const asks = Array.from({ length: N }, (_, i) => ui.ask({ question: `q${i}?` }));
  input.write('first\n');
  input.end();
  const results = await Promise.allSettled(asks);
  assert.equal(results[0].status, 'fulfilled');
  assert.equal(results[0].value.answer, 'first');
  for (const r of results.slice(1)) {
    assert.equal(r.status, 'rejected');
    assert.equal(r.reason.code, 'ASK_ABORTED');
  }
  provider.close();
});
