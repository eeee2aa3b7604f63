// The picker's declarations, exercised (tsc --noEmit -p tsconfig.json).
import { load, UserInteraction } from '@askcore/askcore';
import {
  openTerminal,
  createPickerProvider,
  PickerProvider,
  Picker,
  PickerDeclined,
  PickerInputEnded,
  validateLayout,
  terminalFacts,
  type PickerCheck,
  type PickerPick,
} from '@askcore/askcore/picker';
import { ReadlineProvider } from '@askcore/askcore/readline';

export async function example(): Promise<void> {
  const core = await load();
  const interaction = new UserInteraction(core);
  const provider = openTerminal(core, { input: process.stdin, output: process.stderr, env: process.env });
  const dispose = interaction.register(provider);
  if (provider instanceof PickerProvider) {
    provider.write('model text\n');
    const interrupted: boolean = provider.interrupt();
    void interrupted;
  } else {
    const rl: ReadlineProvider = provider;
    void rl;
  }
  dispose();
  provider.close();

  const p2 = createPickerProvider(core, { color: false });
  const n: number = p2.pending;
  void n;

  const layout = validateLayout(core.picker('{"question":"Which?","options":["A","B"]}'));
  const more: string = layout.more;
  const words: string = layout.notes + layout.notesHelp + layout.previewTitle + layout.previewHelp;
  void more, words;
  const check: PickerCheck = (i, pick) => (i === 0 && pick.options.length === 0 ? 'choose one' : undefined);
  const picker = new Picker({ input: process.stdin, output: process.stderr, color: false }, layout);
  try {
    const picks = await picker.run({ check, signal: AbortSignal.timeout(1000) });
    const notes: Array<string | undefined> = picks.map((p: PickerPick) => p.notes);
    void notes;
    picker.done('→ ' + picks.map((p) => p.options.join(',') + p.text).join(' '));
  } catch (err) {
    if (err instanceof PickerDeclined) picker.done(layout.declined);
    else if (err instanceof PickerInputEnded) picker.done(err.situation);
    else picker.done('');
  }
  const facts = terminalFacts(process.stdin, process.stderr, process.env, true);
  const mode = core.terminal(facts);
  const color: boolean = mode.color;
  void color;
}
