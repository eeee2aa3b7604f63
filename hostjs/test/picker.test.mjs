// The Node keyboard picker (@askcore/askcore/picker) on a fake terminal:
// a PassThrough with isTTY and setRawMode for the keys, a writable with a
// size for the frames, read back through a small screen model (the frame
// as a person sees it). Every expected text is the core's (layout,
// messages, summaries, errors), never restated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { load, UserInteraction, answerText, errorText } from '@askcore/askcore';
import { createPickerProvider, openTerminal, PickerProvider, Picker, PickerDeclined, PickerInterrupted, PickerInputEnded } from '@askcore/askcore/picker';
import { ReadlineProvider } from '@askcore/askcore/readline';
import { DB_REQUEST, until } from './helpers.mjs';

const core = await load();

class FakeInput extends PassThrough {
  isTTY = true;
  isRaw = false;
  /** @type {boolean[]} */ modes = [];
  /** @param {boolean} raw */
  setRawMode(raw) {
    this.isRaw = raw;
    this.modes.push(raw);
    return this;
  }
}

class FakeOutput extends Writable {
  isTTY = true;
  columns = 80;
  rows = 24;
  raw = '';
  constructor() {
    super({ decodeStrings: false });
  }
  /** @param {any} chunk @param {string} _enc @param {() => void} cb */
  _write(chunk, _enc, cb) {
    this.raw += String(chunk);
    cb();
  }
  /** The screen as a person sees it (see screen()). */
  get screen() {
    return screen(this.raw, this.columns);
  }
  /** @param {number} cols @param {number} rows */
  resize(cols, rows) {
    this.columns = cols;
    this.rows = rows;
    this.emit('resize');
  }
}

/**
 * What a terminal shows for the bytes: text, \r, \n, CSI K/J/A/B, ESC 7/8;
 * other sequences (SGR, modes) are dropped. Lines trimmed on the right,
 * trailing empty lines removed.
 * @param {string} bytes
 * @param {number} cols
 */
function screen(bytes, cols) {
  /** @type {string[][]} */
  const lines = [[]];
  let row = 0;
  let col = 0;
  let saved = [0, 0];
  const line = () => (lines[row] ??= []);
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i];
    if (c === '\x1b') {
      if (bytes[i + 1] === '7') {
        saved = [row, col];
        i += 2;
        continue;
      }
      if (bytes[i + 1] === '8') {
        [row, col] = saved;
        i += 2;
        continue;
      }
      const m = /^\x1b\[([?0-9;]*)([A-Za-z~])/.exec(bytes.slice(i, i + 16));
      if (!m) {
        i++;
        continue;
      }
      const n = Number(m[1] || '1');
      switch (m[2]) {
        case 'K':
          line().length = Math.min(line().length, col);
          break;
        case 'J':
          line().length = Math.min(line().length, col);
          lines.length = row + 1;
          break;
        case 'A':
          row = Math.max(0, row - n);
          break;
        case 'B':
          row += n;
          line();
          break;
      }
      i += m[0].length;
      continue;
    }
    if (c === '\r') col = 0;
    else if (c === '\n') {
      row++;
      col = 0;
      line();
    } else {
      const ch = String.fromCodePoint(/** @type {number} */ (bytes.codePointAt(i)));
      const l = line();
      while (l.length < col) l.push(' ');
      l[col++] = ch;
      if (col >= cols) col = cols - 1;
      i += ch.length;
      continue;
    }
    i++;
  }
  const text = lines.map((l) => (l ?? []).join('').trimEnd());
  while (text.length > 0 && text[text.length - 1] === '') text.pop();
  return text.join('\n');
}

/** The entry line under the cursor, without "❯ " ("" when none). @param {string} scr */
const cursorLine = (scr) => scr.split('\n').find((l) => l.startsWith('❯ '))?.slice(2).trim() ?? '';

const ESC_WAIT = 50;

/** A provider on a fake terminal, registered on a UserInteraction. */
function setup({ color = false, cols = 80, rows = 24 } = {}) {
  const input = new FakeInput();
  const output = new FakeOutput();
  output.columns = cols;
  output.rows = rows;
  const provider = createPickerProvider(core, { input, output, color });
  const interaction = new UserInteraction(core);
  interaction.register(provider);
  /** @param {string} s */
  const keys = (s) => input.write(s);
  return { input, output, provider, interaction, keys };
}

/** The answer text and summary line the core gives for picks. @param {unknown} args @param {object[]} picks */
function expected(args, picks) {
  const call = core.normalizeRaw(args);
  const answer = core.resolveAll(call, picks);
  return { text: answerText(answer), summary: '→ ' + core.summary(call, answer).replaceAll('\n', '\n→ ') };
}

const DEPLOY = {
  header: 'Deploy',
  question: 'Deploy to which environment?',
  options: [
    { label: 'Staging', value: 'staging', description: 'Safe to break.' },
    { label: 'Production', value: 'prod', description: 'Real users.', recommended: true },
  ],
  allowCustom: true,
};
const FEATURES = {
  header: 'Features',
  question: 'Which features?',
  options: [{ label: 'Auth', value: 'auth', recommended: true }, { label: 'Billing', value: 'billing' }, { label: 'Search', value: 'search' }],
  multiSelect: true,
  allowCustom: true,
};
const BATCH = {
  questions: [
    { header: 'Colour', question: 'Which colour?', options: [{ label: 'Red', value: 'red' }, { label: 'Blue', value: 'blue', recommended: true }, { label: 'Green', value: 'green' }] },
    { question: 'Which checks?', options: [{ label: 'Lint', value: 'lint' }, { label: 'Tests', value: 'tests' }, { label: 'Fuzz', value: 'fuzz' }], multiSelect: true },
    { question: 'What should the release be called?' },
  ],
};

test('draws the core\'s layout inline, raw only while it runs; Enter answers and one summary line stays', async () => {
  const { input, output, interaction, keys } = setup();
  output.write('before\n');
  const asked = interaction.ask(JSON.stringify(DEPLOY));
  await until(() => cursorLine(output.screen) !== '');
  const layout = core.picker(core.normalizeRaw(DEPLOY));
  assert.equal(
    output.screen,
    [
      'before',
      `[${layout.questions[0].header}] ${layout.questions[0].question}`,
      '',
      `❯ 1. Production  ${layout.recommended}`,
      '     Real users.',
      '  2. Staging',
      '     Safe to break.',
      `   ✎ ${layout.questions[0].custom}`,
      layout.questions[0].help,
    ].join('\n'),
  );
  assert.deepEqual(input.modes, [true], 'raw while the picker runs');
  assert.ok(output.raw.includes('\x1b[?25l\x1b[?2004h'), 'cursor hidden, bracketed paste on');
  assert.ok(!output.raw.includes('\x1b[?1049h'), 'no alternate screen');
  assert.ok(!/\x1b\[[0-9;]*m/.test(output.raw), 'no colour unless the core says so');
  for (const [k, want] of [['\x1b[B', '2. Staging'], ['k', '1. Production'], ['j', '2. Staging'], ['\x1b[A', '1. Production'],
    ['2', '2. Staging'], ['\x1b[F', '✎'], ['\x1b[H', '1. Production'], ['j', '2. Staging'], ['\x10', '1. Production'], ['9', '1. Production'], ['2', '2. Staging']]) {
    keys(k);
    await until(() => cursorLine(output.screen).startsWith(want));
  }
  keys('\r');
  const answer = await asked;
  const want = expected(DEPLOY, [{ options: [0] }]);
  assert.equal(answerText(answer), want.text);
  assert.equal(output.screen, 'before\n' + want.summary);
  assert.deepEqual(input.modes, [true, false], 'the terminal is given back');
  assert.ok(output.raw.endsWith('\x1b[?2004l\x1b[?25h\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8' + want.summary + '\n'));
});

test('multi-select: Space toggles, an empty pick shows the core\'s INVALID_ANSWER and stays, own text typed', async () => {
  const { output, interaction, keys } = setup({ cols: 120 });
  const asked = interaction.ask(FEATURES);
  await until(() => cursorLine(output.screen).startsWith('[x] 1. Auth'));
  keys(' ');
  await until(() => cursorLine(output.screen).startsWith('[ ] 1. Auth'));
  keys('\r');
  let msg = '';
  try {
    core.normalizeRaw(FEATURES).questions && core.resolve(core.normalizeRaw(FEATURES), { options: [], text: '' }, 0);
  } catch (err) {
    msg = /** @type {Error} */ (err).message;
  }
  assert.ok(msg.includes('Space toggles'), msg);
  await until(() => output.screen.includes(msg));
  keys('j ');
  await until(() => cursorLine(output.screen).startsWith('[x] 2. Billing'));
  assert.ok(!output.screen.includes(msg), 'a change clears the message');
  keys('\x1b[Fjk 1 '); // End, then typed: j, k, digits and Space are text on the own-answer entry
  await until(() => cursorLine(output.screen).endsWith(': jk 1 _'));
  keys('\x7f\x17'); // Backspace, Ctrl-W
  await until(() => cursorLine(output.screen).endsWith(': jk _'));
  keys('\x1b[200~ne\r\nw\x1b[201~'); // a paste: its line break does not confirm
  await until(() => cursorLine(output.screen).endsWith(': jk ne w_'));
  keys('\r');
  const want = expected(FEATURES, [{ options: [1], text: 'jk ne w' }]);
  assert.equal(answerText(await asked), want.text);
  assert.ok(output.screen.endsWith(want.summary));
});

test('a batch: Tab/Shift-Tab keep every choice, Enter confirms and goes on, ✓ on confirmed questions', async () => {
  const { output, interaction, keys } = setup({ cols: 120, rows: 40 });
  const asked = interaction.ask(BATCH);
  await until(() => cursorLine(output.screen).startsWith('1. Blue'));
  assert.ok(output.screen.includes('[Colour]  2   3'), output.screen);
  keys('\x1b[B\t');
  await until(() => output.screen.includes('Question 2 of 3'));
  keys(' jj \t');
  await until(() => output.screen.includes('Question 3 of 3'));
  keys('Aurora\x1b[Z\x1b[Z');
  await until(() => output.screen.includes('Question 1 of 3'));
  assert.ok(cursorLine(output.screen).startsWith('2. Red'), 'Tab kept the choice');
  keys('\r');
  await until(() => output.screen.includes('Question 2 of 3') && output.screen.includes('✓ Colour'));
  keys('\r');
  await until(() => output.screen.includes('Question 3 of 3') && output.screen.includes('✓ 2'));
  keys('\r');
  const want = expected(BATCH, [{ options: [0] }, { options: [0, 2] }, { text: 'Aurora' }]);
  assert.equal(answerText(await asked), want.text);
  assert.ok(output.screen.endsWith(want.summary), output.screen);
  assert.equal(want.summary.split('\n').length, 3, 'one line per question');
});

test('Esc declines (ASK_DECLINED) after the escape wait; an escape sequence split across reads is one key', async () => {
  const { output, interaction, keys } = setup();
  const asked = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen) !== '');
  keys('\x1b');
  await new Promise((r) => setTimeout(r, 10));
  keys('[B'); // the rest of Down, within the wait
  await until(() => cursorLine(output.screen).startsWith('2. Staging'));
  const t0 = performance.now();
  keys('\x1b');
  await assert.rejects(asked, (err) => errorText(err) === errorText(core.fail({ situation: 'declined' })));
  assert.ok(performance.now() - t0 >= ESC_WAIT - 5, 'a lone ESC waits for the rest of a sequence');
  assert.ok(output.screen.endsWith(core.picker(core.normalizeRaw(DEPLOY)).declined));
  assert.ok(!output.screen.includes('❯'));
});

test('Ctrl-C and interrupt() dismiss the question: the core\'s "interrupted" (ASK_ABORTED), its line stays', async () => {
  const { output, interaction, keys, provider } = setup();
  const want = errorText(core.fail({ situation: 'interrupted' }));
  const interrupted = core.picker(core.normalizeRaw(DEPLOY)).interrupted;
  const a = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen) !== '');
  keys('\x03');
  await assert.rejects(a, (err) => errorText(err) === want);
  assert.ok(output.screen.endsWith(interrupted));
  const b = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen) !== '');
  assert.equal(provider.interrupt(), true);
  await assert.rejects(b, (err) => errorText(err) === want);
  assert.equal(output.screen.split('\n').filter((l) => l === interrupted).length, 2);
  assert.equal(provider.interrupt(), false, 'nothing on screen');
});

test('the input\'s end is the core\'s "eof"; close() withdraws every pending call; an abort erases the picker', async () => {
  {
    const { input, output, interaction } = setup();
    const a = interaction.ask(DEPLOY);
    await until(() => cursorLine(output.screen) !== '');
    input.end();
    await assert.rejects(a, (err) => errorText(err) === errorText(core.fail({ situation: 'eof' })));
    assert.equal(output.screen, '', 'erased, nothing left');
  }
  {
    const { output, interaction, provider } = setup();
    const a = interaction.ask(DEPLOY);
    const b = interaction.ask(DEPLOY);
    await until(() => cursorLine(output.screen) !== '');
    assert.equal(provider.pending, 2);
    provider.close();
    const withdrawn = errorText(core.fail({ situation: 'withdrawn' }));
    await assert.rejects(a, (err) => errorText(err) === withdrawn);
    await assert.rejects(b, (err) => errorText(err) === withdrawn);
    assert.equal(output.screen, '');
    await assert.rejects(provider.ask(core.normalizeRaw(DEPLOY)), (err) => errorText(err) === withdrawn);
  }
  {
    const { input, output, interaction } = setup();
    const ac = new AbortController();
    const a = interaction.ask(DEPLOY, { signal: ac.signal });
    await until(() => cursorLine(output.screen) !== '');
    ac.abort();
    await assert.rejects(a, (err) => errorText(err) === errorText(core.fail({ situation: 'aborted' })));
    await until(() => output.screen === '');
    assert.deepEqual(input.modes, [true, false]);
  }
});

test('calls wait their turn; keys typed before a picker showed are not applied, and stay for the next reader', async () => {
  const { input, output, provider, keys } = setup();
  const call = core.normalizeRaw(DEPLOY);
  const a = provider.ask(call);
  const b = provider.ask(call);
  await until(() => cursorLine(output.screen) !== '');
  keys('\x1b[B\r\x1b[B'); // answers a; the last Down came before b showed: b does not take it
  await a;
  await until(() => cursorLine(output.screen).startsWith('1. Production'));
  await new Promise((r) => setTimeout(r, 2 * ESC_WAIT));
  assert.ok(cursorLine(output.screen).startsWith('1. Production'), 'the early Down was set aside');
  keys('\x1b[B');
  await until(() => cursorLine(output.screen).startsWith('2. Staging'));
  keys('\r');
  assert.equal(answerText(await b), expected(DEPLOY, [{ options: [0] }]).text);
  // Typed while nobody asks: the next picker does not take it as an answer...
  keys('\r');
  await until(() => input.readableLength > 0);
  const c = provider.ask(call);
  await until(() => cursorLine(output.screen) !== '');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(provider.pending, 1, 'the early Enter did not answer');
  keys('\x03');
  await assert.rejects(c);
  // ...and every key set aside goes back to the stream, in order, for the next reader.
  assert.equal(String(input.read()), '\x1b[B\r');
});

test('resize: drawn again for the new size, every line fits', async () => {
  const { output, interaction, keys } = setup({ cols: 100, rows: 30 });
  const long = { ...DEPLOY, question: 'A question long enough to wrap over several lines of a narrow terminal, and then some more.' };
  const a = interaction.ask(long);
  await until(() => cursorLine(output.screen) !== '');
  for (const [c, r] of [[40, 15], [24, 8], [120, 40]]) {
    output.resize(c, r);
    const scr = output.screen;
    const frame = scr.split('\n');
    assert.ok(frame.length <= r - 1, `${c}x${r}:\n${scr}`);
    for (const l of frame) assert.ok([...l].length <= c - 1, `${c}x${r}: ${l}`);
  }
  keys('\r');
  await a;
});

test('write() puts text above a pending picker, which is drawn again below it', async () => {
  const { output, interaction, provider, keys } = setup();
  const a = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen) !== '');
  provider.write('model text');
  assert.ok(output.screen.startsWith('model text\n[Deploy]'), output.screen);
  keys('\r');
  await a;
  assert.ok(output.screen.startsWith('model text\n→ '), output.screen);
  provider.write('after\n');
  assert.ok(output.screen.endsWith('\nafter'));
});

test('colour only when allowed: the core\'s terminal op decides, NO_COLOR never has SGR', async () => {
  {
    const { output, interaction, keys } = setup({ color: true });
    const a = interaction.ask(DEPLOY);
    await until(() => cursorLine(output.screen) !== '');
    assert.ok(output.raw.includes('\x1b[1m\x1b[36m❯ \x1b[0m'), 'the cursor in bold cyan');
    keys('\r');
    await a;
  }
  const input = new FakeInput();
  const output = new FakeOutput();
  const mk = (/** @type {Record<string, string>} */ env) => createPickerProvider(core, { input, output, env });
  assert.equal(core.terminal({ stdinTTY: true, stderrTTY: true, outTTY: true, term: 'xterm', noColor: '1' }).color, false);
  const p = mk({ TERM: 'xterm-256color', NO_COLOR: '1' });
  const interaction = new UserInteraction(core);
  interaction.register(p);
  const a = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen) !== '');
  input.write('\x1b[F');
  await until(() => cursorLine(output.screen).startsWith('✎'));
  assert.ok(!/\x1b\[[0-9;]*m/.test(output.raw), 'no SGR at all');
  assert.ok(cursorLine(output.screen).endsWith(': _'), 'the drawn cursor without colour');
  input.write('\x03');
  await assert.rejects(a);
});

test('openTerminal: the keyboard picker where the core says so, the readline line mode everywhere else', () => {
  const tty = () => ({ input: new FakeInput(), output: new FakeOutput() });
  assert.ok(openTerminal(core, { ...tty(), env: { TERM: 'xterm-256color' } }) instanceof PickerProvider);
  for (const [what, opts] of /** @type {[string, any][]} */ ([
    ['TERM=dumb', { ...tty(), env: { TERM: 'dumb' } }],
    ['plain', { ...tty(), env: { TERM: 'xterm' }, plain: true }],
    ['ASKCORE_PLAIN=1', { ...tty(), env: { TERM: 'xterm', ASKCORE_PLAIN: '1' } }],
    ['a pipe', { input: new PassThrough(), output: new FakeOutput(), env: { TERM: 'xterm' } }],
    ['output not a terminal', { input: new FakeInput(), output: new PassThrough(), env: { TERM: 'xterm' } }],
  ])) {
    const p = openTerminal(core, opts);
    assert.ok(p instanceof ReadlineProvider, what);
    p.close();
  }
});

test('Picker: the low-level API runs a layout with a check of the host\'s own', async () => {
  const input = new FakeInput();
  const output = new FakeOutput();
  const layout = core.picker(core.normalizeRaw(BATCH));
  const seen = [];
  const p = new Picker({ input, output, color: false }, layout);
  const run = p.run({
    check: (i, pick) => {
      seen.push([i, pick]);
      return i === 2 && pick.text !== 'ok' ? 'say ok' : null;
    },
  });
  await until(() => cursorLine(output.screen) !== '');
  input.write('\r\r\r');
  await until(() => output.screen.includes('say ok'));
  input.write('ok\r');
  const picks = await run;
  assert.deepEqual(picks, [{ options: [1], text: '' }, { options: [], text: '' }, { options: [], text: 'ok' }]);
  assert.deepEqual(seen.map(([i]) => i), [0, 1, 2, 2]);
  assert.ok(p.firstPaintMs >= 0);
  assert.ok(output.screen.includes('✓ Colour'), 'the picker stays until done()');
  p.done('chosen');
  assert.equal(output.screen, 'chosen');
  await assert.rejects(p.run(), /once/);
  for (const [k, E] of /** @type {[string, any][]} */ ([['\x03', PickerInterrupted], ['\x1b', PickerDeclined]])) {
    const q = new Picker({ input, output, color: false }, layout);
    const r = q.run();
    input.write(k);
    await assert.rejects(r, E);
    q.done('');
  }
  const q = new Picker({ input, output, color: false }, layout);
  const r = q.run({ check: () => { throw new Error('the host is gone'); } });
  input.write('\r');
  await assert.rejects(r, /the host is gone/);
  q.done('');
  const e = new Picker({ input, output, color: false }, layout);
  const er = e.run();
  input.end();
  await assert.rejects(er, (err) => err instanceof PickerInputEnded && err.situation === 'eof');
  assert.throws(() => new Picker({ input, output, color: false }, { ...layout, more: '' }), /"more"/);
  assert.throws(() => new Picker({ input, output, color: false }, { ...layout, questions: [] }), /no questions/);
});

test('the answer is byte for byte the core\'s for the same picks (DB_REQUEST on a narrow terminal)', async () => {
  const { output, interaction, keys } = setup({ cols: 30, rows: 10 });
  const asked = interaction.ask(DB_REQUEST);
  await until(() => cursorLine(output.screen) !== '');
  for (const l of output.screen.split('\n')) assert.ok([...l].length <= 29, l);
  keys('3\r');
  const layout = core.picker(core.normalizeRaw(DB_REQUEST));
  const want = expected(DB_REQUEST, [{ options: [layout.questions[0].entries[2].index] }]);
  assert.equal(answerText(await asked), want.text);
});

test('README: the picker example runs as written (on pipes the core chooses the line mode)', async () => {
  const { readFileSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const { hostjsDir } = await import('./helpers.mjs');
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.includes('openTerminal(core'));
  assert.equal(blocks.length, 1);
  const text = JSON.stringify(DB_REQUEST);
  const preamble = [
    `const toolCall = { id: 'call_1', arguments: ${JSON.stringify(text)} };`,
    "const sendToModel = (t) => process.stdout.write('MODEL ' + t + '\\n');",
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', preamble + '\n' + blocks[0]], { cwd: hostjsDir, input: '3\n', encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /Which database should the service use\?/);
  assert.equal(r.stdout, `MODEL ${answerText(core.resolveAll(text, ['3']))}\n`);
});

test('previews: the box of the entry under the cursor, beside the list from 100 columns, below it otherwise; Shift-↓ scrolls it', async () => {
  const code = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
  const args = {
    question: 'Which layout?',
    options: [
      { label: 'Sidebar', preview: '┌──┬────┐\n│ N│ C  │\n└──┴────┘', recommended: true },
      { label: 'Code', preview: code },
      { label: 'Plain' },
    ],
  };
  for (const [cols, beside] of [[120, true], [80, false]]) {
    const { output, interaction, keys } = setup({ cols, rows: 20 });
    const a = interaction.ask(args);
    await until(() => cursorLine(output.screen) !== '');
    let scr = output.screen;
    const top = scr.split('\n').findIndex((l) => l.includes('╭'));
    assert.ok(top >= 0, scr);
    if (beside) assert.ok(scr.split('\n')[top].startsWith('❯ 1. Sidebar'), `beside the list:\n${scr}`);
    else assert.ok(scr.split('\n')[top].startsWith('╭'), `below the list:\n${scr}`);
    assert.ok(scr.includes('│ ┌──┬────┐'), scr);
    for (const l of scr.split('\n')) assert.ok([...l].length <= cols - 1, l);
    keys('\x1b[B');
    await until(() => output.screen.includes('line 1 '));
    scr = output.screen;
    assert.match(scr, /↓ \d+ more/);
    keys('\x1b[1;2B\x1b[1;2B'); // Shift-↓ twice: the preview scrolls, the cursor stays
    await until(() => /↑ 2 more/.test(output.screen));
    assert.ok(cursorLine(output.screen).startsWith('2. Code'));
    keys('\x1b[B');
    await until(() => cursorLine(output.screen).startsWith('3. Plain'));
    assert.ok(!output.screen.includes('╭'), 'no box for an entry without a preview');
    keys('\x1b[1;2A'); // Shift-↑ with nothing to scroll moves as ↑ does
    await until(() => cursorLine(output.screen).startsWith('2. Code'));
    assert.ok(!/↑ \d+ more/.test(output.screen), 'a preview shown again starts at its top');
    keys('\r');
    assert.equal(answerText(await a), expected(args, [{ options: [1] }]).text);
  }
});

test('notes: Ctrl-N edits the question\'s notes under it (its own key help), Enter keeps them, Esc cancels the edit only; the pick carries them', async () => {
  const { output, interaction, keys } = setup({ cols: 100 });
  const asked = interaction.ask(DEPLOY);
  await until(() => cursorLine(output.screen).startsWith('1. Production'));
  const layout = core.picker(core.normalizeRaw(DEPLOY));
  const q = layout.questions[0];
  assert.ok(q.help.includes('Ctrl-N'), q.help);
  keys('\x1b[B\x0e');
  await until(() => output.screen.includes(layout.notesHelp));
  let lines = output.screen.split('\n');
  assert.equal(lines[1], `  ${layout.notes}: _`, 'the notes line under the question, a drawn cursor');
  assert.equal(lines[lines.length - 1], layout.notesHelp, 'the notes\' key help replaces the question\'s');
  keys('jk 12 x');
  await until(() => output.screen.includes(`${layout.notes}: jk 12 x_`));
  assert.ok(cursorLine(output.screen).startsWith('2. Staging'), 'j, k and digits are written, not keys');
  keys('\x7f\x17'); // Backspace, Ctrl-W
  await until(() => output.screen.includes(`${layout.notes}: jk _`));
  keys('\x1b[200~a\nb\x1b[201~\r');
  await until(() => output.screen.includes(q.help));
  lines = output.screen.split('\n');
  assert.equal(lines[1], `  ${layout.notes}: jk a b`, 'kept: the line stays, without the cursor');
  keys('\x0e more');
  await until(() => output.screen.includes(`jk a b more_`));
  keys('\x1b');
  await until(() => output.screen.includes(q.help));
  assert.equal(output.screen.split('\n')[1], `  ${layout.notes}: jk a b`, 'Esc restores the notes as they were');
  assert.ok(output.raw.includes('\r\x1b[2K'), 'each frame line is cleared whole before it is drawn');
  keys('\r');
  const answer = await asked;
  const want = expected(DEPLOY, [{ options: [0], notes: 'jk a b' }]);
  assert.equal(answerText(answer), want.text);
  assert.ok(want.text.includes('"notes":"jk a b"'), want.text);
  assert.equal(output.screen, want.summary);
});

test('notes in a batch: each question has its own; the low-level Picker hands them over; a layout without the notes words is refused', async () => {
  const input = new FakeInput();
  const output = new FakeOutput();
  const layout = core.picker(core.normalizeRaw(BATCH));
  const p = new Picker({ input, output, color: false }, layout);
  const run = p.run();
  await until(() => cursorLine(output.screen) !== '');
  input.write('\x0eone\r');
  await until(() => output.screen.includes(`  ${layout.notes}: one`));
  input.write('\t');
  await until(() => output.screen.includes(layout.questions[1].position ?? ''));
  assert.ok(!output.screen.includes(`${layout.notes}:`), 'question 2 has no notes yet');
  input.write('\t\x0ename note\r');
  await until(() => output.screen.includes(`  ${layout.notes}: name note`));
  input.write('Aurora\r\r\r');
  const picks = await run;
  assert.deepEqual(picks, [{ options: [1], text: '', notes: 'one' }, { options: [], text: '' }, { options: [], text: 'Aurora', notes: 'name note' }]);
  p.done('');
  for (const word of ['notes', 'notesHelp', 'previewTitle', 'previewHelp']) {
    assert.throws(() => new Picker({ input, output, color: false }, { ...layout, [word]: undefined }), new RegExp(`"${word}"`));
  }
});

test('the key help wraps between its parts to at most two lines, the second cut with …', async () => {
  const { output, interaction, keys } = setup({ cols: 40, rows: 24 });
  const asked = interaction.ask(FEATURES);
  await until(() => cursorLine(output.screen) !== '');
  const help = core.picker(core.normalizeRaw(FEATURES)).questions[0].help;
  const lines = output.screen.split('\n');
  const [a, b] = lines.slice(-2);
  assert.ok(help.startsWith(a + ' · '), `${a} | ${help}`);
  assert.ok(b.endsWith('…') || help.endsWith(b), b);
  for (const l of lines) assert.ok([...l].length <= 39, l);
  keys('\x1b');
  await assert.rejects(asked, (err) => errorText(err) === errorText(core.fail({ situation: 'declined' })));
});

test('keys: the decoder reads what terminals send', async () => {
  const { decodeKey } = await import('../lib/picker-keys.js');
  const enc = new TextEncoder();
  /** @param {string} s @param {boolean} [final] */
  const d = (s, final = false) => {
    const [key, n] = decodeKey(enc.encode(s), final);
    return [key.kind + (key.r ? ':' + key.r : '') + (key.text !== undefined ? ':' + key.text : ''), n];
  };
  for (const [s, want] of /** @type {[string, [string, number]][]} */ ([
    ['\x1b[A', ['up', 3]], ['\x1bOB', ['down', 3]], ['\x1b[1;5A', ['up', 6]], ['\x1b[1;2A', ['shift+up', 6]],
    ['\x1b[a', ['shift+up', 3]], ['\x1b[5~', ['pgup', 4]], ['\x1b[6;2~', ['shift+pgdown', 6]], ['\x1b[H', ['home', 3]],
    ['\x1b[4~', ['end', 4]], ['\x1b[Z', ['backtab', 3]], ['\x1b[3~', ['delete', 4]], ['\r\n', ['enter', 2]], ['\n', ['enter', 1]],
    ['\t', ['tab', 1]], ['\x7f', ['backspace', 1]], ['\x08', ['backspace', 1]], ['\x03', ['ctrl+c', 1]], ['\x15', ['ctrl+u', 1]],
    ['\x17', ['ctrl+w', 1]], ['\x10', ['up', 1]], ['\x0e', ['ctrl+n', 1]], ['\x04', ['none', 1]], ['é', ['rune:é', 2]],
    ['👍', ['rune:👍', 4]], ['\x1b[200~a\r\nb\tc\x1b[201~', ['paste:a b c', 18]], ['\x1bx', ['esc', 1]],
  ])) {
    assert.deepEqual(d(s), want, JSON.stringify(s));
  }
  assert.deepEqual(d('\x1b'), ['none', 0], 'a lone ESC waits');
  assert.deepEqual(d('\x1b', true), ['esc', 1], 'then it is Esc');
  assert.deepEqual(d('\x1b[1;'), ['none', 0], 'a cut sequence waits');
  assert.deepEqual(d('\x1b[1;', true), ['none', 4], 'then it is dropped');
  assert.deepEqual(decodeKey(new Uint8Array([0xe6, 0x97]), false)[1], 0, 'a cut UTF-8 character waits');
  assert.deepEqual(decodeKey(new Uint8Array([0xff]), false)[1], 1, 'an invalid byte is dropped');
});
