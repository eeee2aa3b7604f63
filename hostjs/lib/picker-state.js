// The keyboard picker's state machine and frame: a port of
// termui/picker_layout.go (Validate), picker_state.go (keys in, actions out)
// and picker_render.go (a state drawn as lines that fit the terminal). No
// I/O here; lib/picker-run.js drives it on a terminal.

import { cleanText, truncate, tail, textWidth, wrap, wrapLine, dropLastGrapheme, dropLastWord } from './picker-text.js';

/**
 * The core's picker op result. Unknown fields are ignored.
 * @typedef {{index: number, label: string, description?: string, preview?: string, recommended?: boolean}} LayoutEntry
 * @typedef {{position?: string, header?: string, question: string, multiSelect: boolean, entries: LayoutEntry[],
 *   custom?: string, cursor: number, toggled?: number[], help: string}} LayoutQuestion
 * @typedef {import('../index.js').PickerLayout} Layout
 * @typedef {import('../picker.js').PickerPick} Pick
 * @typedef {'none'|'redraw'|'confirm'|'decline'|'interrupt'} Action
 */

/**
 * termui: Layout.Validate. Throws a TypeError for a layout the picker cannot
 * show (it has no words of its own: a layout without them is not the core's).
 * @param {any} l
 * @returns {Layout}
 */
export function validateLayout(l) {
  if (!l || typeof l !== 'object' || !Array.isArray(l.questions) || l.questions.length === 0) {
    throw new TypeError('picker: the picker layout has no questions');
  }
  for (const name of ['recommended', 'on', 'off', 'more', 'declined', 'interrupted', 'notes', 'notesHelp', 'previewTitle', 'previewHelp']) {
    if (typeof l[name] !== 'string' || l[name] === '') throw new TypeError(`picker: the picker layout has no "${name}" text`);
  }
  l.questions.forEach((/** @type {any} */ q, /** @type {number} */ i) => {
    if (!q || typeof q !== 'object' || !Array.isArray(q.entries)) throw new TypeError(`picker: picker layout question ${i + 1} has no entries`);
    const n = q.entries.length + (q.custom ? 1 : 0);
    if (n === 0) throw new TypeError(`picker: picker layout question ${i + 1} has no entries and no own-answer entry`);
    const cursor = q.cursor ?? 0;
    if (!Number.isInteger(cursor) || cursor < 0 || cursor >= n) {
      throw new TypeError(`picker: picker layout question ${i + 1}: cursor ${cursor} is not an entry (0..${n - 1})`);
    }
    const seen = new Set();
    for (const e of q.entries) {
      if (seen.has(e.index)) throw new TypeError(`picker: picker layout question ${i + 1}: two entries with index ${e.index}`);
      seen.add(e.index);
    }
    for (const t of q.toggled ?? []) {
      if (!seen.has(t)) throw new TypeError(`picker: picker layout question ${i + 1}: toggled index ${t} is no entry's`);
    }
  });
  return l;
}

// Style (termui/style.go): colour only when the core's terminal op says so.
const SGR_RESET = '\x1b[0m';
const SGR_BOLD = '\x1b[1m';
const SGR_DIM = '\x1b[2m';
const SGR_YELLOW = '\x1b[33m';
const SGR_CYAN = '\x1b[36m';
const SGR_GREEN = '\x1b[32m';
const SGR_REVERSE = '\x1b[7m';

export class Style {
  /** @param {boolean} color */
  constructor(color) {
    this.color = color;
  }
  /** @param {string} sgr @param {string} text */
  wrap(sgr, text) {
    return !this.color || text === '' ? text : sgr + text + SGR_RESET;
  }
  /** @param {string} t */
  question(t) {
    return this.wrap(SGR_BOLD + SGR_CYAN, t);
  }
  /** @param {string} t */
  dim(t) {
    return this.wrap(SGR_DIM, t);
  }
  /** @param {string} t */
  warn(t) {
    return this.wrap(SGR_YELLOW, t);
  }
}

const GLYPH_CURSOR = '❯ ';
const GLYPH_NO_CUR = '  ';
const GLYPH_OWN = '✎';
const GLYPH_DONE = '✓ ';
const GLYPH_UP = '↑ ';
const GLYPH_DOWN = '↓ ';
const MAX_DESC_LINES = 3;

/** Whether p and o chose the same, with the same notes. @param {Pick} p @param {Pick} o */
function samePick(p, o) {
  return p.text === o.text && (p.notes ?? '') === (o.notes ?? '') && p.options.length === o.options.length && p.options.every((v, i) => v === o.options[i]);
}

/** @param {LayoutQuestion} q */
function entryCount(q) {
  return q.custom ? q.entries.length + 1 : q.entries.length;
}

/**
 * @typedef {{cursor: number, toggled: boolean[], text: string, checked: Pick | null, msg: string, top: number,
 *   notes: string, editing: boolean, notesWas: string, pvTop: number, pvMax: number, pvMaxOf: number}} QState
 *   notes: typed so far (sent with the pick); editing: the notes line has
 *   the keys (Ctrl-N); notesWas: the notes before this edit, restored by Esc;
 *   pvTop: the first preview line shown; pvMax: the largest pvTop of entry
 *   pvMaxOf's box in the last frame (-1: none)
 */

export class PickerState {
  /** @param {Layout} l */
  constructor(l) {
    this.l = l;
    this.cur = 0;
    this.page = 0;
    /** @type {QState[]} */
    this.qs = l.questions.map((q) => {
      const toggled = q.entries.map((e) => (q.toggled ?? []).includes(e.index));
      return { cursor: q.cursor ?? 0, toggled, text: '', checked: null, msg: '', top: 0, notes: '', editing: false, notesWas: '', pvTop: 0, pvMax: 0, pvMaxOf: -1 };
    });
    /** Preview lines the last frame's box showed at once. */
    this.pvPage = 0;
    /** @type {Map<string, string[]>} */
    this.descs = new Map();
    /** @type {Map<string, string[]>} */
    this.previews = new Map();
    /** @type {Map<string, number>} */
    this.listWs = new Map();
  }

  q() {
    return this.l.questions[this.cur];
  }
  st() {
    return this.qs[this.cur];
  }
  entryCount() {
    return entryCount(this.q());
  }
  onText() {
    const q = this.q();
    return !!q.custom && this.st().cursor === q.entries.length;
  }

  /** Question i's pick as it stands. @param {number} i @returns {Pick} */
  pick(i) {
    const q = this.l.questions[i];
    const qs = this.qs[i];
    /** @type {Pick} */
    const p = { options: [], text: '' };
    if (qs.notes !== '') p.notes = qs.notes;
    if (!q.multiSelect) {
      if (q.custom && qs.cursor === q.entries.length) p.text = qs.text;
      else p.options.push(q.entries[qs.cursor].index);
      return p;
    }
    qs.toggled.forEach((on, e) => {
      if (on) p.options.push(q.entries[e].index);
    });
    p.options.sort((a, b) => a - b);
    p.text = qs.text;
    return p;
  }

  /** @param {number} i */
  confirmed(i) {
    const c = this.qs[i].checked;
    return c !== null && samePick(c, this.pick(i));
  }

  /** The host accepted the current pick: on to the next question not confirmed yet; true once none is left. */
  accept() {
    const st = this.st();
    st.checked = this.pick(this.cur);
    st.msg = '';
    const n = this.qs.length;
    for (let d = 1; d <= n; d++) {
      const i = (this.cur + d) % n;
      if (!this.confirmed(i)) {
        this.cur = i;
        return false;
      }
    }
    return true;
  }

  /** @param {string} msg */
  reject(msg) {
    this.st().msg = msg;
  }

  picks() {
    return this.qs.map((_, i) => this.pick(i));
  }

  /**
   * Handles one key; page is how many entries a page key moves.
   * @param {import('./picker-keys.js').Key} k
   * @param {number} page
   * @returns {Action}
   */
  apply(k, page) {
    const q = this.q();
    const qs = this.st();
    if (qs.editing) return this.applyNotes(k);
    const n = this.entryCount();
    const text = this.onText();
    switch (k.kind) {
      case 'ctrl+c':
        return 'interrupt';
      case 'ctrl+n':
        qs.editing = true;
        qs.notesWas = qs.notes;
        qs.msg = '';
        return 'redraw';
      case 'shift+up':
      case 'shift+down':
      case 'shift+pgup':
      case 'shift+pgdown':
        if (this.preview() === '') {
          // Nothing to scroll: Shift-↑/↓ move as ↑/↓ do.
          if (k.kind === 'shift+up') return this.moveTo(qs.cursor - 1);
          if (k.kind === 'shift+down') return this.moveTo(qs.cursor + 1);
          if (k.kind === 'shift+pgup') return this.moveTo(Math.max(0, qs.cursor - Math.max(1, page)));
          return this.moveTo(Math.min(n - 1, qs.cursor + Math.max(1, page)));
        }
        return this.scrollPreview(k.kind);
      case 'esc':
        return 'decline';
      case 'enter':
        return 'confirm';
      case 'tab':
        return this.switchTo(this.cur + 1);
      case 'backtab':
        return this.switchTo(this.cur - 1);
      case 'up':
        return this.moveTo(qs.cursor - 1);
      case 'down':
        return this.moveTo(qs.cursor + 1);
      case 'pgup':
        return this.moveTo(Math.max(0, qs.cursor - Math.max(1, page)));
      case 'pgdown':
        return this.moveTo(Math.min(n - 1, qs.cursor + Math.max(1, page)));
      case 'home':
        if (text && qs.text !== '') return 'none';
        return this.moveTo(0);
      case 'end':
        if (text && qs.text !== '') return 'none';
        return this.moveTo(n - 1);
      case 'backspace':
        if (!text || qs.text === '') return 'none';
        qs.text = dropLastGrapheme(qs.text);
        return this.edited();
      case 'ctrl+u':
        if (!text || qs.text === '') return 'none';
        qs.text = '';
        return this.edited();
      case 'ctrl+w':
        if (!text || qs.text === '') return 'none';
        qs.text = dropLastWord(qs.text);
        return this.edited();
      case 'paste':
        if (!text || !k.text) return 'none';
        qs.text += k.text;
        return this.edited();
      case 'rune': {
        const r = /** @type {string} */ (k.r);
        if (text) {
          qs.text += r;
          return this.edited();
        }
        if (r === 'k') return this.moveTo(qs.cursor - 1);
        if (r === 'j') return this.moveTo(qs.cursor + 1);
        if (r >= '1' && r <= '9' && r.length === 1) {
          const d = r.charCodeAt(0) - 0x31;
          if (d >= q.entries.length) return 'none';
          return this.moveTo(d);
        }
        if (r === ' ' && q.multiSelect) {
          qs.toggled[qs.cursor] = !qs.toggled[qs.cursor];
          qs.msg = '';
          return 'redraw';
        }
      }
    }
    return 'none';
  }

  /**
   * A key while the notes line has the keys: typing edits the notes, Enter
   * keeps them, Esc restores what they were before (it cancels the edit
   * only), Ctrl-C still interrupts; other keys do nothing.
   * @param {import('./picker-keys.js').Key} k
   * @returns {Action}
   */
  applyNotes(k) {
    const qs = this.st();
    switch (k.kind) {
      case 'ctrl+c':
        return 'interrupt';
      case 'enter':
        qs.editing = false;
        return this.edited();
      case 'esc':
        qs.editing = false;
        qs.notes = qs.notesWas;
        return this.edited();
      case 'backspace':
        if (qs.notes === '') return 'none';
        qs.notes = dropLastGrapheme(qs.notes);
        break;
      case 'ctrl+u':
        if (qs.notes === '') return 'none';
        qs.notes = '';
        break;
      case 'ctrl+w':
        if (qs.notes === '') return 'none';
        qs.notes = dropLastWord(qs.notes);
        break;
      case 'paste':
        if (!k.text) return 'none';
        qs.notes += k.text;
        break;
      case 'rune':
        qs.notes += /** @type {string} */ (k.r);
        break;
      default:
        return 'none';
    }
    return this.edited();
  }

  /** The preview of the entry under the cursor ("" for none, and on the own-answer entry). */
  preview() {
    const q = this.q();
    const qs = this.st();
    if (qs.cursor >= q.entries.length) return '';
    return q.entries[qs.cursor].preview ?? '';
  }

  /**
   * Moves the preview of the cursor's entry by a line or a page (of the
   * last frame's box, which also says where the preview ends).
   * @param {string} kind
   * @returns {Action}
   */
  scrollPreview(kind) {
    const qs = this.st();
    let limit = this.preview().length;
    if (qs.pvMaxOf === qs.cursor) limit = qs.pvMax;
    let step = 1;
    if (kind === 'shift+pgup' || kind === 'shift+pgdown') step = Math.max(this.pvPage - 1, 1);
    if (kind === 'shift+up' || kind === 'shift+pgup') step = -step;
    const top = Math.max(Math.min(qs.pvTop + step, limit), 0);
    if (top === qs.pvTop) return 'none';
    qs.pvTop = top;
    return 'redraw';
  }

  /** Puts the cursor on entry e (clamped); a preview shown for it starts at its top. @param {number} e @returns {Action} */
  moveTo(e) {
    e = Math.max(0, Math.min(this.entryCount() - 1, e));
    const qs = this.st();
    if (e === qs.cursor) return 'none';
    qs.cursor = e;
    qs.msg = '';
    qs.pvTop = 0;
    return 'redraw';
  }

  /** @param {number} i @returns {Action} */
  switchTo(i) {
    i = Math.max(0, Math.min(this.qs.length - 1, i));
    if (i === this.cur) return 'none';
    this.cur = i;
    return 'redraw';
  }

  /** @returns {Action} */
  edited() {
    this.st().msg = '';
    return 'redraw';
  }

  /**
   * termui: render: the state drawn for a terminal of cols x rows: at most
   * rows-1 lines, each at most cols-1 cells.
   * @param {number} cols
   * @param {number} rows
   * @param {Style} st
   * @returns {{lines: string[], page: number}}
   */
  render(cols, rows, st) {
    const width = Math.max(cols - 1, 4);
    const budget = Math.max(rows - 1, 1);
    const q = this.q();
    const qs = this.st();

    /** @type {string[]} */
    let tabs = [];
    if (this.l.questions.length > 1) tabs = [this.tabsLine(width, st)];
    /** @type {string[]} */
    let title = [];
    const pos = cleanText(q.position ?? '');
    if (pos !== '') title = [st.dim(truncate(pos, width)[0])];
    let qtext = q.question;
    if (q.header) qtext = '[' + q.header + '] ' + qtext;
    let question = wrap(qtext, width, 0);
    const notes = this.notesLine(width, st);
    let blank = 1;

    /** @type {string[]} */
    let msg = [];
    if (qs.msg !== '') msg = wrap(qs.msg, width, 2);
    // The key help (the notes' own while they are edited), wrapped at its
    // " · " separators to at most 2 lines; not dim (termui draws it plain).
    const helpText = qs.editing ? this.l.notesHelp : q.help ?? '';
    let help = helpLines(helpText, width, 2);

    // Previews: the box of the entry under the cursor beside the list on a
    // terminal at least SIDE_BY_SIDE_COLS wide, below it otherwise.
    const previews = hasPreviews(q);
    const side = previews && cols >= SIDE_BY_SIDE_COLS;
    let listW = width;
    let boxW = 0;
    if (side) {
      listW = this.listWidth(width);
      boxW = width - listW - SIDE_GAP.length;
    } else if (previews) {
      boxW = width;
    }
    let boxNeed = 0;
    let tallest = 0;
    if (previews) {
      if (!side) tallest = this.tallestPreview() + 2;
      if (this.preview() !== '') boxNeed = this.previewLines(qs.cursor, boxW - 4).length + 2;
    }
    const ownW = side && this.onText() ? width : listW;
    const entries = this.entryBlocks(listW, ownW, st);
    let full = 0;
    for (const e of entries) full += e.length;
    const fixed = () => tabs.length + title.length + question.length + notes.length + blank + msg.length + help.length;
    let reserve = 0;
    if (previews && !side) {
      const avail = budget - fixed();
      reserve = Math.min(tallest, Math.max(avail - full, Math.trunc(avail / 2)));
      if (reserve < MIN_BOX_ROWS) reserve = 0;
    }
    if (fixed() + full + reserve > budget) {
      for (let i = 0; i < entries.length; i++) if (i !== qs.cursor) entries[i] = entries[i].slice(0, 1);
      const need = Math.min(entries[qs.cursor].length + 4, budget - reserve);
      const sheds = [
        () => {
          const b = blank > 0;
          blank = 0;
          return b;
        },
        () => {
          const b = title.length > 0;
          title = [];
          return b;
        },
        () => {
          if (question.length > 3) {
            question = wrap(qtext, width, 3);
            return true;
          }
          return false;
        },
        () => {
          const b = tabs.length > 0;
          tabs = [];
          return b;
        },
        () => {
          if (help.length > 1) {
            help = helpLines(helpText, width, 1);
            return true;
          }
          return false;
        },
        () => {
          // While notes are edited their key help stays: it says how to
          // leave the edit.
          if (help.length === 0 || qs.editing) return false;
          help = [];
          return true;
        },
        () => {
          if (question.length > 1) {
            question = wrap(qtext, width, 1);
            return true;
          }
          return false;
        },
        () => {
          const b = msg.length > 1;
          msg = msg.slice(0, Math.min(msg.length, 1));
          return b;
        },
      ];
      for (const shed of sheds) {
        if (budget - reserve - fixed() >= need) break;
        shed();
      }
    }
    question = question.map((l) => st.question(l));
    msg = msg.map((l) => st.warn(l));

    /** @type {string[]} */
    let lines = [...tabs, ...title, ...question, ...notes];
    if (blank > 0) lines.push('');
    const avail = budget - fixed() - reserve;
    const [shown, page] = this.window(entries, Math.max(avail, 1), listW, st);

    /** @type {string[]} */
    let box = [];
    qs.pvMaxOf = -1;
    if (previews) {
      let boxH = Math.min(boxNeed, budget - fixed());
      if (!side) boxH = Math.min(boxNeed, budget - fixed() - shown.length);
      if (boxH >= MIN_BOX_ROWS && this.preview() !== '') box = this.previewBox(boxW, boxH, st);
    }
    let body = shown;
    if (side && box.length > 0) {
      body = [];
      for (let i = 0; i < Math.max(shown.length, box.length); i++) {
        let l = i < shown.length ? fitLine(shown[i], listW) : '';
        l += ' '.repeat(Math.max(0, listW - textWidth(stripStyle(l)))) + SIDE_GAP;
        if (i < box.length) l += box[i];
        body.push(trimRightSpaces(l));
      }
    } else if (box.length > 0) {
      body = [...shown, ...box];
    }
    lines.push(...body, ...msg, ...help);
    if (lines.length > budget) {
      lines = shown;
      if (lines.length > budget) lines = lines.slice(0, budget);
    }
    return { lines: lines.map((l) => fitLine(l, width)), page };
  }

  /**
   * termui: window: the entries shown in avail lines, scrolled so that the
   * cursor is visible, with a ↑/↓ count line where entries are hidden.
   * @param {string[][]} entries
   * @param {number} avail
   * @param {number} width
   * @param {Style} st
   * @returns {[string[], number]}
   */
  window(entries, avail, width, st) {
    const qs = this.st();
    const n = entries.length;
    const cur = qs.cursor;
    let total = 0;
    for (const e of entries) total += e.length;
    if (total <= avail) {
      qs.top = 0;
      return [entries.flat(), n];
    }
    if (avail < 3) {
      qs.top = cur;
      return [entries[cur].slice(0, Math.min(entries[cur].length, avail)), 1];
    }
    /** @param {number} top */
    const fill = (top) => {
      let used = top > 0 ? 1 : 0;
      let e = top;
      while (e < n) {
        const more = e + 1 < n ? 1 : 0;
        if (used + entries[e].length + more > avail) break;
        used += entries[e].length;
        e++;
      }
      return e;
    };
    let top = Math.min(qs.top, cur);
    while (top < cur && fill(top) <= cur) top++;
    let end = fill(top);
    if (end <= cur) {
      end = cur + 1;
      top = cur;
    }
    qs.top = top;
    /** @type {string[]} */
    let out = [];
    if (top > 0) out.push(this.moreLine(GLYPH_UP, top, width, st));
    for (let e = top; e < end; e++) out.push(...entries[e]);
    if (end < n) out.push(this.moreLine(GLYPH_DOWN, n - end, width, st));
    if (out.length > avail) {
      let keep = avail;
      if (end < n) keep--;
      const last = out[out.length - 1];
      out = out.slice(0, keep);
      if (end < n) out.push(last);
    }
    return [out, Math.max(end - top, 1)];
  }

  /** @param {string} glyph @param {number} count @param {number} width @param {Style} st */
  moreLine(glyph, count, width, st) {
    return st.dim(truncate('  ' + glyph + String(count) + ' ' + cleanText(this.l.more), width)[0]);
  }

  /**
   * termui: tabsLine: the questions of a batch, ✓ on a confirmed one, the
   * shown one in brackets.
   * @param {number} width
   * @param {Style} st
   */
  tabsLine(width, st) {
    let out = '';
    let w = 0;
    for (let i = 0; i < this.l.questions.length; i++) {
      let name = cleanText(this.l.questions[i].header ?? '');
      if (name === '') name = String(i + 1);
      name = truncate(name, 16)[0];
      if (this.confirmed(i)) name = GLYPH_DONE + name;
      name = i === this.cur ? '[' + name + ']' : ' ' + name + ' ';
      if (i > 0) name = ' ' + name;
      const nw = textWidth(name);
      if (w + nw > width) {
        out += st.dim(truncate(name, width - w)[0]);
        break;
      }
      w += nw;
      if (i === this.cur) out += st.wrap(SGR_BOLD + SGR_CYAN, name);
      else if (this.confirmed(i)) out += st.wrap(SGR_GREEN, name);
      else out += st.dim(name);
    }
    return out;
  }

  /**
   * termui: entryBlocks: every entry of the current question in width
   * cells (the own-answer entry in ownWidth), its label line then its
   * description lines.
   * @param {number} width
   * @param {number} ownWidth
   * @param {Style} st
   * @returns {string[][]}
   */
  entryBlocks(width, ownWidth, st) {
    const q = this.q();
    const qs = this.st();
    const numW = q.entries.length === 0 ? 0 : String(q.entries.length).length;
    const on = cleanText(this.l.on);
    const off = cleanText(this.l.off);
    const boxW = q.multiSelect ? Math.max(textWidth(on), textWidth(off)) : 0;
    const indent = 2 + boxW + Math.max(numW + 1, 1) + 1;
    /** @type {string[][]} */
    const blocks = [];
    for (let e = 0; e < entryCount(q); e++) {
      const isCur = e === qs.cursor;
      const own = e === q.entries.length;
      let b = isCur ? st.wrap(SGR_BOLD + SGR_CYAN, GLYPH_CURSOR) : GLYPH_NO_CUR;
      if (q.multiSelect) {
        const toggled = (own && qs.text !== '') || (!own && qs.toggled[e]);
        let box = toggled ? on : off;
        box += ' '.repeat(Math.max(0, boxW - textWidth(box)));
        if (toggled) box = st.wrap(SGR_CYAN, box);
        b += box;
      }
      if (own) {
        b += ' '.repeat(Math.max(numW + 1, 1) - 1) + GLYPH_OWN + ' ';
      } else {
        const num = String(e + 1) + '.';
        b += ' '.repeat(numW + 1 - num.length) + num + ' ';
      }
      const room = width - indent;
      if (own) {
        blocks.push([b + this.textEntry(ownWidth - indent, isCur, st)]);
        continue;
      }
      const ent = q.entries[e];
      let [label, lw] = truncate(cleanText(ent.label), room);
      if (isCur) label = st.wrap(SGR_BOLD, label);
      b += label;
      const note = cleanText(this.l.recommended);
      if (ent.recommended && room - lw > 3) b += '  ' + st.dim(truncate(note, room - lw - 2)[0]);
      const block = [b];
      if (ent.description) {
        const pad = ' '.repeat(indent);
        for (const d of this.descLines(e, room)) block.push(pad + st.dim(d));
      }
      blocks.push(block);
    }
    return blocks;
  }

  /**
   * termui: textEntry: the own-answer entry in room cells.
   * @param {number} room
   * @param {boolean} focused
   * @param {Style} st
   */
  textEntry(room, focused, st) {
    const q = this.q();
    const qs = this.st();
    const label = cleanText(q.custom ?? '');
    if (qs.text === '' && !focused) return st.dim(truncate(label, room)[0]);
    let cursor = '';
    let cursorStyled = '';
    if (focused) {
      cursor = cursorStyled = '_';
      if (st.color) {
        cursor = ' ';
        cursorStyled = SGR_REVERSE + ' ' + SGR_RESET;
      }
    }
    let [lab, lw] = truncate(label, Math.max(Math.trunc(room / 2) - 2, 1));
    lab += ': ';
    lw += 2;
    const rest = room - lw - textWidth(cursor);
    const [text] = tail(qs.text, Math.max(rest, 0));
    lab = focused ? st.wrap(SGR_BOLD, lab) : st.dim(lab);
    return lab + text + cursorStyled;
  }

  /**
   * The width of the list column beside the previews: what its entries need,
   * at most 2/5 of the width and at least MIN_LIST_COLS (or half the width);
   * it stays put while the cursor moves.
   * @param {number} width
   */
  listWidth(width) {
    const key = `${this.cur},${width}`;
    const known = this.listWs.get(key);
    if (known !== undefined) return known;
    const q = this.q();
    const indent = this.indent();
    let need = 0;
    const rec = textWidth(cleanText(this.l.recommended));
    for (const e of q.entries) {
      let w = textWidth(cleanText(e.label));
      if (e.recommended) w += 2 + rec;
      need = Math.max(need, w);
      for (const para of (e.description ?? '').split('\n')) need = Math.max(need, textWidth(cleanText(para)));
    }
    if (q.custom) need = Math.max(need, textWidth(cleanText(q.custom)) + 2 + TEXT_ROOM);
    const w = Math.max(Math.min(indent + need, Math.trunc((width * 2) / 5)), Math.min(MIN_LIST_COLS, Math.trunc(width / 2)));
    this.listWs.set(key, w);
    return w;
  }

  /** Where the entries' labels start: after the cursor glyph, the box, the number and a space. */
  indent() {
    const q = this.q();
    const numW = q.entries.length === 0 ? 0 : String(q.entries.length).length;
    const boxW = q.multiSelect ? Math.max(textWidth(cleanText(this.l.on)), textWidth(cleanText(this.l.off))) : 0;
    return 2 + boxW + Math.max(numW + 1, 1) + 1;
  }

  /** Entry e's preview in lines of at most width cells. @param {number} e @param {number} width */
  previewLines(e, width) {
    const key = `${this.cur},${e},${width}`;
    let d = this.previews.get(key);
    if (!d) {
      d = wrapPreview(this.q().entries[e].preview ?? '', width);
      this.previews.set(key, d);
    }
    return d;
  }

  /** The line count of the question's tallest preview, before wrapping. */
  tallestPreview() {
    let n = 0;
    for (const e of this.q().entries) if (e.preview) n = Math.max(n, e.preview.split('\n').length);
    return n;
  }

  /**
   * The preview of the entry under the cursor in a box of w x h cells: the
   * layout's title on the top border, the lines scrolled from pvTop; when
   * taller than the box, "↑ N more" on the top border, "↓ N more" and the
   * layout's scroll help on the bottom one.
   * @param {number} w
   * @param {number} h
   * @param {Style} st
   */
  previewBox(w, h, st) {
    const qs = this.st();
    const inner = w - 4;
    const lines = this.previewLines(qs.cursor, inner);
    const rows = h - 2;
    const maxTop = Math.max(lines.length - rows, 0);
    qs.pvTop = Math.max(Math.min(qs.pvTop, maxTop), 0);
    qs.pvMax = maxTop;
    qs.pvMaxOf = qs.cursor;
    this.pvPage = rows;
    const more = cleanText(this.l.more);
    let upLabel = '';
    let downLabel = '';
    let helpLabel = '';
    if (qs.pvTop > 0) upLabel = GLYPH_UP + String(qs.pvTop) + ' ' + more;
    const below = lines.length - qs.pvTop - rows;
    if (below > 0) downLabel = GLYPH_DOWN + String(below) + ' ' + more;
    if (maxTop > 0) helpLabel = cleanText(this.l.previewHelp);
    const out = [st.dim(boxBorder('╭', '╮', cleanText(this.l.previewTitle), upLabel, w))];
    for (let i = 0; i < rows; i++) {
      const j = qs.pvTop + i;
      const l = j < lines.length ? lines[j] : '';
      out.push(st.dim('│') + ' ' + l + ' '.repeat(Math.max(inner - textWidth(l), 0)) + ' ' + st.dim('│'));
    }
    out.push(st.dim(boxBorder('╰', '╯', downLabel, helpLabel, w)));
    return out;
  }

  /**
   * termui: notesLine: the line under the question showing its notes: the
   * layout's label, a colon and the text, with a cursor while they are
   * edited (the end of a long text shown, after "…"); nothing while there
   * are none and they are not edited.
   * @param {number} width
   * @param {Style} st
   * @returns {string[]}
   */
  notesLine(width, st) {
    const qs = this.st();
    if (!qs.editing && qs.notes === '') return [];
    const indent = '  ';
    const room = width - indent.length;
    const label = cleanText(this.l.notes);
    const notes = cleanText(qs.notes);
    if (!qs.editing) return [indent + st.dim(truncate(label + ': ' + notes, room)[0])];
    let cursor = '_';
    let cursorStyled = '_';
    if (st.color) {
      cursor = ' ';
      cursorStyled = SGR_REVERSE + ' ' + SGR_RESET;
    }
    let [lab, lw] = truncate(label, Math.max(Math.trunc(room / 2) - 2, 1));
    lab += ': ';
    lw += 2;
    const [text] = tail(notes, Math.max(room - lw - textWidth(cursor), 0));
    return [indent + st.wrap(SGR_BOLD, lab) + text + cursorStyled];
  }

  /** @param {number} e @param {number} width */
  descLines(e, width) {
    const key = `${this.cur},${e},${width}`;
    let d = this.descs.get(key);
    if (!d) {
      d = wrap(/** @type {string} */ (this.q().entries[e].description), width, MAX_DESC_LINES);
      this.descs.set(key, d);
    }
    return d;
  }
}

// Previews (see render).
const SIDE_BY_SIDE_COLS = 100; // the narrowest terminal with the previews beside the list
const SIDE_GAP = ' ';
const MIN_BOX_ROWS = 3;
const MIN_LIST_COLS = 30;
const TEXT_ROOM = 16; // what the list column keeps for typing on the own-answer entry

const HELP_SEP = ' · ';

/**
 * The key help in at most maxLines lines of width cells, broken between its
 * parts (the core separates them with " · "); the last line is cut with "…"
 * when the rest does not fit. One line: the help cut to the width.
 * @param {string} text
 * @param {number} width
 * @param {number} maxLines
 */
function helpLines(text, width, maxLines) {
  const h = cleanText(text);
  if (h === '' || maxLines <= 0) return [];
  if (textWidth(h) <= width) return [h];
  const parts = h.split(HELP_SEP);
  /** @type {string[]} */
  const out = [];
  let line = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (line === '') line = p;
    else if (textWidth(line + HELP_SEP + p) <= width) line += HELP_SEP + p;
    else {
      if (out.length === maxLines - 1) {
        line += HELP_SEP + parts.slice(i).join(HELP_SEP);
        out.push(truncate(line, width)[0]);
        return out;
      }
      out.push(truncate(line, width)[0]);
      line = p;
    }
  }
  out.push(truncate(line, width)[0]);
  return out;
}

/** @param {LayoutQuestion} q */
function hasPreviews(q) {
  return q.entries.some((e) => !!e.preview);
}

/**
 * A preview in lines of at most width cells: a line too wide is wrapped at
 * its break opportunities, each part keeping the line's indentation (when
 * that leaves room); nothing is dropped.
 * @param {string} p
 * @param {number} width
 */
function wrapPreview(p, width) {
  if (width <= 0) return [];
  /** @type {string[]} */
  const out = [];
  for (let line of p.split('\n')) {
    line = trimRightSpaces(cleanText(line));
    if (textWidth(line) <= width) {
      out.push(line);
      continue;
    }
    const body = line.replace(/^ +/, '');
    let ind = line.length - body.length;
    if (ind > Math.trunc(width / 2)) ind = 0;
    const pad = ' '.repeat(ind);
    for (const part of wrapLine(body, width - ind)) out.push(pad + part);
  }
  return out;
}

/**
 * A border line of w cells between the corners: the left label after "─ ",
 * the right one before " ─", the rest "─"; labels that do not fit are cut
 * (the right one first).
 * @param {string} left
 * @param {string} right
 * @param {string} llabel
 * @param {string} rlabel
 * @param {number} w
 */
function boxBorder(left, right, llabel, rlabel, w) {
  const room = w - 2 - 2;
  if (room <= 0) return left + '─'.repeat(Math.max(w - 2, 0)) + right;
  /** @param {string} t @param {number} r @returns {[string, number]} */
  const label = (t, r) => {
    if (t === '' || r < 3) return ['', 0];
    const [c, cw] = truncate(t, r - 2);
    return [' ' + c + ' ', cw + 2];
  };
  const [ll, lw] = label(llabel, room);
  const [rl, rw] = label(rlabel, room - lw);
  return left + '─' + ll + '─'.repeat(room - lw - rw) + rl + '─' + right;
}

/** @param {string} s */
function trimRightSpaces(s) {
  return s.replace(/ +$/, '');
}

/**
 * termui: fitLine: a drawn line at most width cells wide (on a terminal too
 * narrow for the entries' own prefixes the line is cut and loses its colour).
 * @param {string} line
 * @param {number} width
 */
function fitLine(line, width) {
  const plain = line.includes('\x1b') ? stripStyle(line) : line;
  if (textWidth(plain) <= width) return line;
  return truncate(plain, width)[0];
}

/** @param {string} s */
function stripStyle(s) {
  let out = '';
  for (;;) {
    const i = s.indexOf('\x1b[');
    if (i < 0) return out + s;
    out += s.slice(0, i);
    const j = s.indexOf('m', i);
    if (j < 0) return out;
    s = s.slice(j + 1);
  }
}
