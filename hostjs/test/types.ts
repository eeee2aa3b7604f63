// Compiled by `tsc --noEmit` only: exercises the public declarations.
import {
  load, Core, UserInteraction, askUserQuestionTool, UserInteractionError, HarnessError, HostFaultError,
  isUserInteractionError, Codes, RAW, answerText, errorText, ABI_VERSION, firstReply,
  type FormStep, type Delivery, type Surface,
  type Answer, type SingleAnswer, type MultiAnswer, type BatchAnswer, type QuestionAnswer, type Request, type Batch,
  type NormalizedCall, type Call, type CallInput, type Presentation, type Elicitation, type ToolSchema, type Provider,
  type Question, type Pick, type Input, type PickerLayout, type Failure, type Situation, type TerminalMode, type Selected,
  type Reply, type LinesReply, type PicksReply, type FormReply, type DeclineReply, type ResolvedAnswer, type ProviderFunction,
} from '@askcore/askcore';
// @ts-expect-error the brand of a resolved answer is for the type checker only: nothing to import
import { resolvedFor } from '@askcore/askcore';
import { createReadlineProvider, ReadlineProvider } from '@askcore/askcore/readline';
import { PassThrough } from 'node:stream';

/** Narrows an answer by its shape. */
function describe(a: Answer): string {
  if ('answer' in a) return a.answer + (a.selected ? ` (${a.selected.label})` : '');
  if ('selected' in a) return a.answers.join(', ') + ` (${a.selected.length} options)`;
  return a.answers.map((e) => e.question + ': ' + ('answer' in e ? e.answer : e.answers.join(', '))).join('\n');
}

/** A provider's core is the question's. */
function q0(p: Provider): Provider {
  return { ask: (q, o) => (void q.core.progress({ ms: 0 }), void q.form({ for: 'acp' }), p.ask(q, o)) };
}

async function main(): Promise<void> {
  const v: 1 = ABI_VERSION;
  const core: Core = await load();
  await load(new Uint8Array(0));
  await load(new ArrayBuffer(0));
  await load(core.module);
  await load(fetch('https://example.invalid/askcore.wasm'), { onStderr: (l: string) => void l, maxMemoryBytes: 1 << 26 });
  const out: string = core.handle('{"op":"schema"}');
  const outBytes: Uint8Array = core.handleBytes(new TextEncoder().encode(out));

  // The model's argument text goes in as a string; JS objects as objects.
  const modelText = '{"questions":[{"question":"Go?","options":["Yes","No"]},{"question":"Which?","options":["a","b"],"multiSelect":true}]}';
  const input: CallInput = { question: 'Go?', options: [{ label: 'Yes', desc: 'sure' }, 'No'], allowCustom: false, multiSelect: false };
  const normalized: NormalizedCall = core.normalize(input);
  const req: Request | undefined = 'question' in normalized ? normalized : undefined;
  const batch: Batch | undefined = 'questions' in normalized ? normalized : undefined;
  const call: Call = core.normalizeRaw(modelText);
  const { raw, questions, batch: isBatch }: { raw: string; questions: Request[]; batch: boolean } = call;
  const multi: true | undefined = questions[1]?.multiSelect;
  const tool: ToolSchema = core.schema();
  const p: Presentation = core.present(call, 1);
  const pick: Pick = { options: [0, 1], text: 'own' };
  const inputs: Input[] = ['1', pick];
  const one: QuestionAnswer = core.resolve(call, '1,2', 1);
  const all: Answer = core.resolveAll(call, inputs);
  const text: string | undefined = all[RAW];
  const sel: Selected[] | undefined = 'selected' in one && Array.isArray(one.selected) ? one.selected : undefined;
  const layout: PickerLayout = core.picker(modelText);
  const first: string = layout.questions[0].help + layout.on + layout.off + layout.recommended;
  const s1: string = core.summary(call, all);
  const s2: string = core.summary(call, one, 1);
  const e: Elicitation = core.elicitation(call);
  const eMCP: Elicitation = core.elicitation(call, { for: 'mcp', client: 'codex-mcp-client' });
  const delivery: Delivery = { ms: 2, client: 'codex-mcp-client', trigger: 'exec' };
  const printMode: Delivery = { ms: 900, client: 'claude-code', entrypoint: 'sdk-cli' };
  void core.formReply(call, { response: { action: 'cancel' }, delivery: printMode });
  const step: FormStep = core.formReply(call, { response: { action: 'decline' }, round: 0, for: 'mcp', delivery });
  if (step.next === 'ask_again') void (step.form.message + step.round + step.roundsLeft);
  else if (step.next === 'answer') void describe(step.answer);
  else void step.error.code;
  const words: string = core.progress({ ms: 65_000, url: 'http://127.0.0.1:1/a' });
  const surfaces: Surface[] = [
    {
      name: 'the form',
      provider: (q: Question) => {
        const s = q.judgeForm({ response: { action: 'cancel' }, delivery });
        if (s.next === 'answer') return s.answer;
        throw s.next === 'ask_again' ? new Error('ask again') : s.error;
      },
    },
    { name: 'the terminal', provider: { ask: () => ({ lines: ['1'] }) } },
  ];
  const both: Provider = firstReply(surfaces);
  void [eMCP, words, both, q0(both)];
  const a2: Answer = core.elicitationResult(input, { action: 'accept', content: { choice: 'Yes' } });
  const shown: string = core.sanitize('model text');
  const title: string = core.sanitize('model text', { as: 'title' }) + core.sanitizeTitle('x');
  const situation: Situation = 'timeout';
  const replySituations: Situation[] = ['not_a_reply', 'stale_answer', 'invalid_reply', 'client_disconnected'];
  void replySituations;
  const failure: Failure = { situation, ms: 120000 };
  const timeout: HarnessError = core.fail(failure);
  const raw2: string | undefined = timeout.raw;
  const mode: TerminalMode = core.terminal({ stdinTTY: true, stderrTTY: true, term: 'xterm', noColor: '' });
  answerText(a2);
  answerText(one);
  errorText(timeout);

  const ui = new UserInteraction(core, { timeoutMs: 0 });
  // A provider hands back what the person gave; the seam resolves it.
  const provider: Provider = { ask: (q: Question) => ({ lines: q.questions.map(() => '') }) };
  const dispose: () => void = ui.register(provider);
  dispose();
  const replies: Reply[] = [
    { lines: ['1'] },
    { picks: [{ options: [0] }, { text: 'own' }] },
    { form: { action: 'accept', content: { choice: 'Yes' } } },
    { form: JSON.parse('{"action":"cancel"}') },
    { decline: true },
  ];
  const lr: LinesReply = { lines: [] };
  const pr: PicksReply = { picks: [pick] };
  const fr: FormReply = { form: { action: 'decline' } };
  const dr: DeclineReply = { decline: true };
  ui.register(async (q, { signal }) => {
    signal.throwIfAborted();
    const b: boolean = q.batch;
    const r: string = q.raw;
    const from: string | undefined = q.from.toolCallId;
    // Judge each line as it is typed (the summary to echo, or INVALID_ANSWER for the person) ...
    const echo: string = q.checkLine(0, 'yes') + q.checkPick(0, { options: [1] });
    void [b, r, from, echo];
    // ... and hand back the lines, or the answer resolve made for this call.
    if (q.batch) return { lines: q.questions.map(() => '') };
    const shown: ResolvedAnswer = q.resolve({ picks: [{ text: 'own' }] });
    const plain: Answer = shown; // a resolved answer is an answer
    void plain;
    return shown;
  });
  const fn: ProviderFunction = (q) => q.resolve({ decline: true });
  // @ts-expect-error a hand-made answer is not a reply (the seam refuses it: not_a_reply)
  const handMade: Reply = { answer: 'Yes' };
  // @ts-expect-error an answer a Core helper returned is not this call's resolved answer
  const fromHelper: Reply = core.resolveAll(call, inputs);
  // @ts-expect-error decline is true or absent
  const notDecline: Reply = { decline: false };
  // @ts-expect-error lines are strings
  const notLines: Reply = { lines: [1] };
  // @ts-expect-error a provider hands back a reply, not an answer object
  const oldProvider: Provider = { ask: (q: Question) => core.resolveAll(q, ['1']) };
  void [replies, lr, pr, fr, dr, fn, handMade, fromHelper, notDecline, notLines, oldProvider, resolvedFor];
  const t = askUserQuestionTool(ui);
  const name: string = t.name;
  const answer: Answer = await t.execute(modelText, { signal: AbortSignal.timeout(10), toolCallId: 'c1' });
  const single = answer as SingleAnswer;
  const m = answer as MultiAnswer;
  const ba = answer as BatchAnswer;
  await ui.ask({ question: 'x' }, { from: { agentId: 'a' }, timeoutMs: 5 });
  describe(answer);

  const rl: ReadlineProvider = createReadlineProvider(core, { input: new PassThrough(), output: new PassThrough(), prompt: '? ' });
  const n: number = rl.pending;
  const interrupted: boolean = rl.interrupt();
  const typed: LinesReply = await rl.ask(call);
  const typedAnswer: Answer = core.resolveAll(call, typed.lines);
  await rl.ask({ raw });
  ui.register(rl); // the readline provider is a Provider
  void typedAnswer;
  rl.close();

  try {
    core.resolve(input, 'nope');
  } catch (err) {
    if (isUserInteractionError(err, 'INVALID_ANSWER')) {
      const c: string = err.code;
      const j: { name: string; code: string; message: string } = err.toJSON();
      const bytes: string = errorText(err);
      void [c, j, bytes];
    }
    if (err instanceof HarnessError && err.code === Codes.ASK_ABORTED) throw err;
    if (err instanceof HostFaultError) throw err;
  }
  const u = new UserInteractionError('ASK_FAILED', 'x');
  const fromCore: HarnessError = UserInteractionError.fromJSON({ name: 'ToolError', code: 'TOOL_FAILED', message: 'm' }, '{}');
  void [v, out, outBytes, req, batch, isBatch, multi, tool, p, text, sel, first, s1, s2, e, shown, title, raw2, mode, name, single, m, ba, n, interrupted, u, fromCore];
}
void main;
