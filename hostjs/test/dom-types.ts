// Compiled by `tsc --noEmit` only (tsconfig.dom.json): exercises dom.d.ts.
import { load, UserInteraction, type Question, type PicksReply, type DeclineReply } from '@askcore/askcore';
import { createDomProvider, DomProvider, type DomProviderOptions, type DomQuestion } from '@askcore/askcore/dom';

async function main(): Promise<void> {
  const core = await load();
  const element: Element = document.createElement('div');
  const options: DomProviderOptions = {
    labels: { submit: 'Send', decline: 'Skip', notes: 'Notes' },
    submit: async (q: DomQuestion, reply: PicksReply | DeclineReply) => ('picks' in reply ? `${q.questions.length} answered` : undefined),
    focus: false,
  };
  const provider: DomProvider = createDomProvider(core, element, options);
  const ui = new UserInteraction(core);
  const dispose = ui.register(provider);
  const reply: PicksReply | DeclineReply = await provider.ask(core.normalizeRaw('{"question":"Ok?"}'), { signal: AbortSignal.timeout(10) });
  if ('picks' in reply) {
    const notes: string | undefined = reply.picks[0].notes;
    void notes;
  }
  const q: DomQuestion = {} as Question;
  void q;
  const n: number = provider.pending;
  void n;
  provider.close();
  dispose();
}
void main;
