// What the README's examples leave to the reader, typed as a user would
// write them, and scripted: the model's tool call, a terminal's show and
// readLine, a UI's form, picker and card. Each generated readme-N.ts
// imports the names its block uses from here.
import { load, UserInteraction, isUserInteractionError } from '@askcore/askcore';
import type { Elicitation, ElicitationResponse, PickerLayout, Pick, AbortSignalLike } from '@askcore/askcore';

export { isUserInteractionError };

export const MODEL_TEXT = JSON.stringify({
  header: 'Database',
  question: 'Which database should the service use?',
  options: [
    { label: 'PostgreSQL', value: 'postgres', recommended: true },
    { label: 'SQLite' },
    { label: 'MySQL' },
  ],
});

export const toolCall: { id: string; arguments: string } = { id: 'call_1', arguments: MODEL_TEXT };
export const signal: AbortSignal = new AbortController().signal;
export function sendToModel(text: string): void {
  process.stdout.write('MODEL ' + text + '\n');
}

export const core = await load();
export const ui = new UserInteraction(core);

const lines = ['purple', '3'];
export function show(text: string): void {
  process.stdout.write('SHOW ' + text + '\n');
}
export async function readLine(_signal: AbortSignalLike): Promise<string> {
  return lines.shift() ?? '';
}

export async function showForm(form: Elicitation, _signal: AbortSignalLike): Promise<ElicitationResponse> {
  const field = Object.keys(form.requestedSchema.properties as object)[0] ?? 'choice';
  return { action: 'accept', content: { [field]: 'sqlite' } };
}

export async function drawPicker(layout: PickerLayout, _signal: AbortSignalLike): Promise<Pick[] | null> {
  return layout.questions.map(() => ({ options: [2] }));
}
export function showCard(text: string): void {
  process.stdout.write('CARD ' + text + '\n');
}
