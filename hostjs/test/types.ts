// Compiled by `tsc --noEmit` only: exercises the public declarations.
import {
  load, Core, UserInteraction, askUserQuestionTool, UserInteractionError, HarnessError, HostFaultError,
  isUserInteractionError, Codes, RAW, answerText, ABI_VERSION,
  type Answer, type Request, type Presentation, type Elicitation, type ToolSchema, type Provider, type Question,
} from '@askcore/askcore';
import { createReadlineProvider, ReadlineProvider } from '@askcore/askcore/readline';
import { PassThrough } from 'node:stream';

async function main(): Promise<void> {
  const v: 1 = ABI_VERSION;
  const core: Core = await load();
  await load(new Uint8Array(0));
  await load(new ArrayBuffer(0));
  await load(core.module);
  await load(fetch('https://example.invalid/askcore.wasm'), { onStderr: (l: string) => void l, maxMemoryBytes: 1 << 26 });
  const out: string = core.handle('{"op":"schema"}');
  const outBytes: Uint8Array = core.handleBytes(new TextEncoder().encode(out));
  const req: Request = core.normalize({ question: 'Go?', options: [{ label: 'Yes', desc: 'sure' }], allowCustom: false });
  const { raw }: { raw: string } = core.normalizeRaw('{"question":"Go?"}');
  const tool: ToolSchema = core.schema();
  const p: Presentation = core.present(raw);
  const a: Answer = core.resolve(req, '1');
  const text: string | undefined = a[RAW];
  const e: Elicitation = core.elicitation(req);
  const a2: Answer = core.elicitationResult(req, { action: 'accept', content: { choice: 'Yes' } });
  const shown: string = core.sanitize('model text');
  answerText(a2);

  const ui = new UserInteraction(core, { timeoutMs: 0 });
  const provider: Provider = { ask: (q: Question) => core.resolve(q.raw, '') };
  const dispose: () => void = ui.register(provider);
  dispose();
  ui.register(async (q, { signal }) => {
    signal.throwIfAborted();
    return { answer: q.request.question };
  });
  const t = askUserQuestionTool(ui);
  const name: string = t.name;
  const answer: Answer = await t.execute({ question: 'x' }, { signal: AbortSignal.timeout(10), toolCallId: 'c1' });
  await ui.ask('{"question":"x"}', { from: { agentId: 'a' }, timeoutMs: 5 });

  const rl: ReadlineProvider = createReadlineProvider(core, { input: new PassThrough(), output: new PassThrough(), prompt: '? ' });
  const n: number = rl.pending;
  rl.close();

  try {
    core.resolve(req, 'nope');
  } catch (err) {
    if (isUserInteractionError(err, 'INVALID_ANSWER')) {
      const c: string = err.code;
      const j: { name: string; code: string; message: string } = err.toJSON();
    }
    if (err instanceof HarnessError && err.code === Codes.ASK_ABORTED) throw err;
    if (err instanceof HostFaultError) throw err;
  }
  const u = new UserInteractionError('ASK_FAILED', 'x');
  void [v, out, outBytes, tool, p, text, e, name, answer, n, u];
}
void main;
