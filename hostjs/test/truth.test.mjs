// Telling the model the truth: firstReply (Go: askcore.FirstReply), the form
// loop (question.judgeForm, Go: Call.JudgeForm) and progress words. The seam
// corpus (testdata/seam: notshown-*, reask-*, nosurface-*, firstreply-*)
// pins the bytes against Go's; these tests pin what the corpus cannot see:
// the withdrawn surfaces' abort reasons, the outer abort, the types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, UserInteraction, askUserQuestionTool, firstReply, errorText, answerText } from '@askcore/askcore';
import { DB_REQUEST, rejectsWith } from './helpers.mjs';

const core = await load();

/** A surface that waits for its signal and records the reason it was withdrawn with. */
function waitingSurface() {
  const s = {
    /** @type {unknown} */ reason: undefined,
    /** @type {(v?: unknown) => void} */ reached: () => {},
  };
  const reachedP = new Promise((r) => (s.reached = r));
  return {
    state: s,
    reachedP,
    /** @param {any} _q @param {{signal: AbortSignal}} o */
    ask(_q, { signal }) {
      s.reached();
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          s.reason = signal.reason;
          reject(signal.reason);
        }, { once: true });
      });
    },
  };
}

function ask(provider, options) {
  const ui = new UserInteraction(core);
  ui.register(provider);
  return askUserQuestionTool(ui).execute(JSON.stringify(DB_REQUEST), options);
}

test('the first reply wins; the others are withdrawn with answered_elsewhere naming the winner', async () => {
  const terminal = waitingSurface();
  const hub = waitingSurface();
  const answer = await ask(firstReply([
    { name: 'the terminal', provider: terminal },
    { name: 'the answer page', provider: () => ({ lines: ['2'] }) },
    { name: 'the hub', provider: hub },
  ]));
  assert.equal(answerText(answer), '{"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}');
  const want = core.fail({ situation: 'answered_elsewhere', detail: 'the answer page' }).raw;
  assert.equal(errorText(terminal.state.reason), want);
  assert.equal(errorText(hub.state.reason), want);
  assert.match(/** @type {Error} */ (terminal.state.reason).message, /answered elsewhere \(the answer page\)/);
});

test('a surface that could not show the question drops out; the others wait', async () => {
  const notShown = (q) => {
    const step = q.judgeForm({ response: { action: 'decline' }, delivery: { ms: 2, client: 'codex-mcp-client', trigger: 'exec' } });
    assert.equal(step.next, 'next_surface');
    throw step.error;
  };
  const page = waitingSurface();
  const pending = ask(firstReply([
    { name: 'the form', provider: notShown },
    { name: 'the terminal', provider: (q) => { throw q.core.fail({ situation: 'no_terminal' }); } },
    { name: 'the answer page', provider: page },
  ]), {});
  await page.reachedP;
  // Only the page is left: it is still waiting, so the ask is too.
  const settled = await Promise.race([pending.then(() => 'settled', () => 'settled'), new Promise((r) => setImmediate(() => r('waiting')))]);
  assert.equal(settled, 'waiting');
  pending.catch(() => {});
});

test('when every surface dropped out, no_surface lists why each could not, in surface order', async () => {
  const err = await rejectsWith(assert, ask(firstReply([
    { name: 'the form', provider: (q) => { throw q.core.fail({ situation: 'not_shown', detail: 'the client cancelled in 12 ms' }); } },
    { name: 'the answer page', provider: async (q) => { await null; throw q.core.fail({ situation: 'no_form_support' }); } },
    { provider: null },
  ])), 'ASK_FAILED');
  const want = core.fail({ situation: 'no_surface', reasons: [
    'the form: the client cancelled in 12 ms',
    'the answer page: ' + core.fail({ situation: 'no_form_support' }).message,
    'surface 3: ' + core.fail({ situation: 'no_provider' }).message,
  ] });
  assert.equal(err.raw, want.raw);
});

test('an abort of the ask withdraws every surface with its reason', async () => {
  const a = waitingSurface();
  const b = waitingSurface();
  const controller = new AbortController();
  const pending = ask(firstReply([{ name: 'a', provider: a }, { name: 'b', provider: b }]), { signal: controller.signal });
  await Promise.all([a.reachedP, b.reachedP]);
  controller.abort(new Error('the run was stopped'));
  const err = await rejectsWith(assert, pending, 'ASK_ABORTED');
  assert.match(err.message, /the run was stopped/);
  assert.equal(errorText(a.state.reason), err.raw, "the seam's abort error is every surface's reason");
  assert.equal(errorText(b.state.reason), err.raw);
});

test('judgeForm loops: ask again up to three times, then the model hears invalid_reply once', async () => {
  const ui = new UserInteraction(core);
  const person = { ms: 4000, client: 'claude-code' };
  ui.register((q) => {
    let round = 0;
    for (;;) {
      const step = q.judgeForm({ response: { action: 'accept', content: {} }, round, for: 'mcp', delivery: person });
      if (step.next !== 'ask_again') throw step.error;
      assert.match(step.form.message, /^The form was accepted without an answer\. Please choose an option or type your own answer\.\n\n/);
      assert.equal(step.roundsLeft, 2 - round);
      round = step.round;
    }
  });
  const err = await rejectsWith(assert, ui.ask(DB_REQUEST), 'INVALID_ANSWER');
  assert.equal(err.message, 'the reply given did not answer the question, so nothing was chosen; the person was told: The form was accepted without an answer. Please choose an option or type your own answer.');
});

test('judgeForm answer is accepted for its own question only', async () => {
  const ui = new UserInteraction(core);
  ui.register((q) => q.judgeForm({ response: { action: 'accept', content: { choice: 'SQLite' } } }).answer);
  assert.equal(answerText(await ui.ask(DB_REQUEST)), '{"answer":"SQLite","selected":{"index":1,"label":"SQLite","value":"SQLite"}}');
});

test('progress words and the form for a known client', () => {
  assert.equal(core.progress({ ms: 65_400 }), 'Waiting for your answer… (1 minute 5 seconds so far)');
  assert.equal(core.progress({ ms: 12_000.7, url: 'http://127.0.0.1:8080/a' }), 'Waiting for your answer… (12 seconds so far). Answer at http://127.0.0.1:8080/a');
  assert.throws(() => core.progress({ ms: 1, url: 'file:///etc/passwd' }), (e) => e.code === 'INVALID_REQUEST');
  const codex = core.elicitation(DB_REQUEST, { for: 'mcp', client: 'codex-mcp-client' });
  assert.equal('notes' in codex.requestedSchema.properties, false);
  const claude = core.elicitation(DB_REQUEST, { for: 'mcp', client: 'claude-code' });
  assert.equal('notes' in claude.requestedSchema.properties, true);
  assert.match(claude.requestedSchema.properties.choice.oneOf[0].title, /\(recommended\)/);
});
