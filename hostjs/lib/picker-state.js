// The keyboard picker's state machine and frame: a port of
// termui/picker_layout.go (Validate), picker_state.go (keys in, actions out)
// and picker_render.go (a state drawn as lines that fit the terminal). No
// I/O here; lib/picker-run.js drives it on a terminal.

import { cleanText, truncate, tail, textWidth, wrap, dropLastGrapheme, dropLastWord } from './picker-text.js';

/**
 * The core's picker op result. Unknown fields are ignored.
 * @typedef {{index: number, label: string, description?: string, preview?: string, recommended?: boolean}} LayoutEntry
 * @typedef {{position?: string, header?: string, question: string, multiSelect: boolean, entries: LayoutEntry[],
 *   custom?: string, cursor: number, toggled?: number[], help: string}} LayoutQuestion
 * @typedef {{questions: LayoutQuestion[], recommended: string, on: string, off: string, more: string,
 *   declined: string, interrupted: string}} Layout
 * @typedef {{options: number[], text: string}} Pick
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
  for (const name of ['recommended', 'on', 'off', 'more', 'declined', 'interrupted']) {
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

/** @param {Pick} p @param {Pick} o */
function samePick(p, o) {
  return p.text === o.text && p.options.length === o.options.length && p.options.every((v, i) => v === o.options[i]);
}

/** @param {LayoutQuestion} q */
function entryCount(q) {
  return q.custom ? q.entries.length + 1 : q.entries.length;
}

/**
 * @typedef {{cursor: number, toggled: boolean[], text: string, checked: Pick | null, msg: string, top: number}} QState
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
      return { cursor: q.cursor ?? 0, toggled, text: '', checked: null, msg: '', top: 0 };
    });
    /** @type {Map<string, string[]>} */
    this.descs = new Map();
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
    const n = this.entryCount();
    const text = this.onText();
    switch (k.kind) {
      case 'ctrl+c':
        return 'interrupt';
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

  /** @param {number} e @returns {Action} */
  moveTo(e) {
    e = Math.max(0, Math.min(this.entryCount() - 1, e));
    const qs = this.st();
    if (e === qs.cursor) return 'none';
    qs.cursor = e;
    qs.msg = '';
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
    let blank = 1;

    /** @type {string[]} */
    let msg = [];
    if (qs.msg !== '') msg = wrap(qs.msg, width, 2);
    /** @type {string[]} */
    let help = [];
    const h = cleanText(q.help ?? '');
    if (h !== '') help = [st.dim(truncate(h, width)[0])];

    const entries = this.entryBlocks(width, st);
    let full = 0;
    for (const e of entries) full += e.length;
    const fixed = () => tabs.length + title.length + question.length + blank + msg.length + help.length;
    if (fixed() + full > budget) {
      for (let i = 0; i < entries.length; i++) if (i !== qs.cursor) entries[i] = entries[i].slice(0, 1);
      const need = Math.min(entries[qs.cursor].length + 4, budget);
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
          const b = help.length > 0;
          help = [];
          return b;
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
        if (budget - fixed() >= need) break;
        shed();
      }
    }
    question = question.map((l) => st.question(l));
    msg = msg.map((l) => st.warn(l));

    /** @type {string[]} */
    let lines = [...tabs, ...title, ...question];
    if (blank > 0) lines.push('');
    const avail = budget - fixed();
    const [shown, page] = this.window(entries, Math.max(avail, 1), width, st);
    lines.push(...shown, ...msg, ...help);
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
   * termui: entryBlocks: every entry of the current question, its label
   * line then its description lines.
   * @param {number} width
   * @param {Style} st
   * @returns {string[][]}
   */
  entryBlocks(width, st) {
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
        blocks.push([b + this.textEntry(room, isCur, st)]);
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
