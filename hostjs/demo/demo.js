// The DOM provider demo: three calls a model could make, answered in this
// page; what the model receives is logged below them.
import { load, UserInteraction, askUserQuestionTool, answerText, errorText } from '../browser.js';
import { createDomProvider } from '../dom.js';

const core = await load();
const ui = new UserInteraction(core);
ui.register(createDomProvider(core, document.getElementById('questions')));
const tool = askUserQuestionTool(ui);
const log = document.getElementById('log');

const calls = [
  {
    header: 'Layout',
    question: 'How should the handlers be laid out?',
    options: [
      { label: 'Flat', description: 'One package', preview: 'handlers/\n  users.go\n  orders.go', recommended: true },
      { label: 'By feature', preview: 'users/\n  handler.go\n  store.go\norders/\n  handler.go' },
    ],
    allowCustom: true,
  },
  {
    header: 'Checks',
    question: 'Which checks should CI run?',
    multiSelect: true,
    options: [{ label: 'Lint', recommended: true }, { label: 'Unit tests', recommended: true }, { label: 'Fuzzing', description: 'Slow' }],
  },
  {
    questions: [
      { question: 'Deploy to which environment?', options: [{ label: 'Staging' }, { label: 'Production', recommended: true }] },
      { question: 'What should the release be called?' },
    ],
  },
];

for (const args of calls) {
  // A model sends its arguments as text: so does the demo.
  try {
    log.textContent += answerText(await tool.execute(JSON.stringify(args))) + '\n';
  } catch (err) {
    log.textContent += errorText(err) + '\n';
  }
}
