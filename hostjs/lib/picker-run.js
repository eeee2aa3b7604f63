// The keyboard picker on a terminal: a port of termui/picker.go's Run and
// Done, and of its SyncWriter overlay. It reads key bytes from a TTY stream
// in raw mode (only while it runs), draws inline (no alternate screen, the
// cursor hidden and parked at the frame's first line), draws again on every
// key that changes something and on every resize, and leaves the frame on
// screen until done(line) puts one line (the summary) in its place.

import { decodeKey } from './picker-keys.js';
import { PickerState, Style, validateLayout } from './picker-state.js';
import { cleanText } from './picker-text.js';

/** How long a lone ESC waits for the rest of a sequence before it is the Esc key (termui: escWait). */
export const ESC_WAIT_MS = 50;

const MODES_ON = '\x1b[?25l\x1b[?2004h'; // hide the cursor, bracketed paste on
const MODES_OFF = '\x1b[?2004l\x1b[?25h';

/** Run ended by Esc. */
export class PickerDeclined extends Error {
  constructor() {
    super('picker: the person declined to answer (Esc)');
    this.name = 'PickerDeclined';
  }
}

/** Run ended by Ctrl-C. */
export class PickerInterrupted extends Error {
  constructor() {
    super('picker: the person dismissed the question (Ctrl-C)');
    this.name = 'PickerInterrupted';
  }
}

/** Run ended because the input ended (or was closed). */
export class PickerInputEnded extends Error {
  /** @param {string} situation the core's situation: "eof", "input_closed" or "read_failed" */
  /** @param {string} [detail] */
  constructor(situation, detail) {
    super(`picker: the input ended (${situation}${detail ? ': ' + detail : ''})`);
    this.name = 'PickerInputEnded';
    this.situation = situation;
    this.detail = detail;
  }
}

/**
 * @typedef {import('./picker-state.js').Pick} Pick
 * @typedef {import('../picker.js').PickerCheck} Check
 */

/**
 * Where a picker runs: the input (a TTY stream, put in raw mode while a
 * picker runs), the output it draws on, and whether it may use colour.
 * @typedef {import('../picker.js').PickerTerminal} PickerTerminal
 */

/**
 * The terminal a picker draws on, shared with other writers (Screen.write):
 * their text goes above the picker, which is drawn again below it (termui:
 * SyncWriter).
 */
export class Screen {
  /** @type {Picker | null} */ overlay = null;
  /** @param {NodeJS.WritableStream} output */
  constructor(output) {
    this.output = output;
  }
  /**
   * Writes text; above the picker while one is drawn (completed to a whole
   * line then).
   * @param {string} text
   */
  write(text) {
    const ov = this.overlay;
    if (!ov || text === '') {
      if (text !== '') this.output.write(text);
      return;
    }
    this.output.write(ov.erase() + text + (text.endsWith('\n') ? '' : '\n') + ov.redraw());
  }
  /** @param {string} s */
  raw(s) {
    if (s !== '') this.output.write(s);
  }
}

/**
 * Keys typed before a picker showed, and after the last key it used, stay
 * for the next reader: given back to the stream (unshift) when run ends.
 * @param {NodeJS.ReadableStream} input
 * @returns {Buffer}
 */
function drain(input) {
  /** @type {Buffer[]} */
  const parts = [];
  const r = /** @type {any} */ (input);
  if (typeof r.read === 'function' && r.readableLength > 0) {
    for (let c = r.read(); c !== null; c = r.read()) parts.push(typeof c === 'string' ? Buffer.from(c) : c);
  }
  return Buffer.concat(parts);
}

export class Picker {
  /** @type {PickerTerminal} */ #t;
  /** @type {Screen} */ #screen;
  /** @type {Style} */ #style;
  /** @type {PickerState} */ #st;
  /** @type {string[]} */ #drawn = [];
  #active = false;
  #ran = false;
  #done = false;
  #firstPaintMs = 0;
  #painting = false;

  /**
   * @param {PickerTerminal} t
   * @param {unknown} layout the core's picker op result (see validateLayout)
   * @param {Screen} [screen] the screen shared with other writers (default: a new one on t.output)
   */
  constructor(t, layout, screen) {
    this.#t = t;
    this.#screen = screen ?? new Screen(t.output);
    this.#style = new Style(!!t.color);
    this.#st = new PickerState(validateLayout(layout));
  }

  /** Milliseconds from run's start to the first frame written. */
  get firstPaintMs() {
    return this.#firstPaintMs;
  }

  /** The layout this picker draws. */
  get layout() {
    return this.#st.l;
  }

  /**
   * Shows the picker and reads keys until every question is confirmed
   * (resolves to one pick per question, in question order) or the person
   * leaves: Esc rejects with PickerDeclined, Ctrl-C with PickerInterrupted,
   * the end of the input with PickerInputEnded, an abort with the signal's
   * reason. `check` is called on Enter (see Check). The terminal is raw only
   * while run runs; the picker stays on screen until done().
   * @param {{check?: Check, signal?: AbortSignal}} [options]
   * @returns {Promise<Pick[]>}
   */
  run(options = {}) {
    if (this.#ran) return Promise.reject(new Error('picker: run is called once per Picker'));
    this.#ran = true;
    const { check = () => undefined, signal } = options;
    const start = performance.now();
    const input = /** @type {any} */ (this.#t.input);
    const st = this.#st;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      // Keys typed before the picker showed must not answer a question the
      // person has not seen: set aside, given back when run ends.
      const early = drain(input);
      let buf = Buffer.alloc(0);
      let ended = /** @type {PickerInputEnded | null} */ (null);
      let finished = false;
      let busy = false;
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let escTimer;
      let wasRaw = false;
      const raw = typeof input.setRawMode === 'function' && input.isTTY;

      const stopTimer = () => {
        if (escTimer !== undefined) clearTimeout(escTimer);
        escTimer = undefined;
      };
      /** @param {(() => void)} settle */
      const finish = (settle) => {
        if (finished) return;
        finished = true;
        stopTimer();
        input.removeListener('data', onData);
        input.removeListener('end', onEnd);
        input.removeListener('error', onError);
        input.removeListener('close', onClose);
        /** @type {any} */ (this.#t.output).removeListener?.('resize', onResize);
        if (process.platform !== 'win32') process.removeListener('SIGWINCH', onResize);
        signal?.removeEventListener('abort', onAbort);
        if (typeof input.pause === 'function') input.pause();
        if (raw && !wasRaw) {
          try {
            input.setRawMode(false);
          } catch {
            // the terminal is gone
          }
        }
        const left = Buffer.concat([early, buf]);
        if (left.length > 0 && !ended && typeof input.unshift === 'function') input.unshift(left);
        this.#screen.raw(MODES_OFF);
        settle();
      };
      const fail = (/** @type {unknown} */ err) => finish(() => reject(err));

      const paint = () => {
        try {
          this.#paint(false);
        } catch (err) {
          fail(err);
        }
      };

      /** @param {boolean} final */
      const process_ = async (final) => {
        if (busy || finished) return;
        busy = true;
        try {
          let dirty = false;
          while (buf.length > 0 && !finished) {
            const [k, n] = decodeKey(buf, final);
            if (n === 0) break;
            buf = buf.subarray(n);
            const act = st.apply(k, this.#pageSize());
            if (act === 'redraw') dirty = true;
            else if (act === 'decline') return fail(new PickerDeclined());
            else if (act === 'interrupt') return fail(new PickerInterrupted());
            else if (act === 'confirm') {
              if (dirty) {
                this.#paint(false);
                dirty = false;
              }
              const i = st.cur;
              let msg;
              try {
                msg = await check(i, st.pick(i));
              } catch (err) {
                return fail(err);
              }
              if (finished) return;
              if (typeof msg === 'string' && msg !== '') st.reject(msg);
              else if (st.accept()) {
                const picks = st.picks();
                return finish(() => resolve(picks));
              }
              dirty = true;
            }
          }
          if (dirty) this.#paint(false);
          if (buf.length === 0) {
            stopTimer();
            if (ended) return fail(ended);
          } else if (escTimer === undefined) {
            escTimer = setTimeout(() => {
              escTimer = undefined;
              process_(true);
            }, ESC_WAIT_MS);
          }
        } catch (err) {
          fail(err);
        } finally {
          busy = false;
        }
        // Bytes that came while a check ran.
        if (!finished && buf.length > 0 && escTimer === undefined) process_(!!ended);
        else if (!finished && ended && buf.length === 0) fail(ended);
      };

      const onData = (/** @type {Buffer | string} */ chunk) => {
        buf = Buffer.concat([buf, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
        stopTimer();
        process_(false);
      };
      const onEnd = () => {
        ended ??= new PickerInputEnded('eof');
        process_(true);
      };
      const onClose = () => {
        ended ??= new PickerInputEnded('eof');
        process_(true);
      };
      const onError = (/** @type {unknown} */ err) => {
        ended = new PickerInputEnded('read_failed', err instanceof Error ? err.message : String(err));
        process_(true);
      };
      const onResize = () => {
        if (!finished) paint();
      };
      const onAbort = () => fail(signal?.reason);

      if (raw) {
        wasRaw = !!input.isRaw;
        try {
          input.setRawMode(true);
        } catch (err) {
          return reject(err);
        }
      }
      try {
        this.#paint(true);
      } catch (err) {
        if (raw && !wasRaw) input.setRawMode(false);
        return reject(err);
      }
      this.#firstPaintMs = performance.now() - start;
      signal?.addEventListener('abort', onAbort, { once: true });
      /** @type {any} */ (this.#t.output).on?.('resize', onResize);
      if (process.platform !== 'win32') process.on('SIGWINCH', onResize);
      input.on('end', onEnd);
      input.on('close', onClose);
      input.on('error', onError);
      input.on('data', onData);
      if (typeof input.resume === 'function') input.resume();
      if (input.readableEnded || input.destroyed) onEnd();
    });
  }

  /**
   * Ends the picker: erases the frame and leaves line in its place (the
   * summary of the answer, or the layout's declined or interrupted line; ""
   * leaves nothing). Call it once run settled; later calls do nothing.
   * @param {string} line
   */
  done(line) {
    if (this.#done) return;
    this.#done = true;
    let s = '';
    if (this.#active) {
      s += this.erase();
      this.#active = false;
      this.#drawn = [];
      if (this.#screen.overlay === this) this.#screen.overlay = null;
    }
    line = line.replace(/\n+$/, '');
    if (line !== '') for (const l of line.split('\n')) s += this.#style.dim(cleanText(l)) + '\n';
    this.#screen.raw(s);
  }

  /** The terminal's size now (asked again before every frame; 80x24 when unknown). */
  #size() {
    const out = /** @type {any} */ (this.#t.output);
    try {
      // A tty.WriteStream caches its size: only process.stdout and stderr
      // are refreshed by Node on SIGWINCH, not a stream on /dev/tty.
      if (typeof out._refreshSize === 'function') out._refreshSize();
    } catch {
      // not a terminal after all
    }
    if (out.columns > 0 && out.rows > 0) return [out.columns, out.rows];
    return [80, 24];
  }

  #pageSize() {
    return Math.max(this.#st.page - 1, 1);
  }

  /** @param {boolean} first */
  #paint(first) {
    if (this.#painting) return; // a 'resize' emitted by #size: this frame has the new size
    this.#painting = true;
    let cols;
    let rows;
    try {
      [cols, rows] = this.#size();
    } finally {
      this.#painting = false;
    }
    const f = this.#st.render(cols, rows, this.#style);
    this.#st.page = f.page;
    let s = '';
    if (first) {
      s += MODES_ON;
      this.#screen.overlay = this;
    }
    this.#drawn = f.lines;
    this.#active = true;
    s += this.redraw();
    this.#screen.raw(s);
  }

  /**
   * The bytes that erase the frame (the cursor is parked at its first line,
   * column 0; the clear never starts at the top-left corner, where tmux
   * would copy the screen into the scrollback).
   */
  erase() {
    return '\r\x1b[K\x1b7\x1b[B\x1b[J\x1b8';
  }

  /** The bytes that draw the frame from the cursor's line and park the cursor back at its first line. */
  redraw() {
    const d = this.#drawn;
    if (d.length === 0) return '';
    let s = '';
    // Each line is cleared whole before it is drawn (CSI 2K): tmux keeps the
    // soft-wrap mark a reflow left on a row until the row is cleared whole.
    for (let i = 0; i < d.length; i++) s += (i > 0 ? '\r\n' : '\r') + '\x1b[2K' + d[i];
    s += '\x1b[J';
    if (d.length > 1) s += `\x1b[${d.length - 1}A`;
    return s + '\r';
  }
}
