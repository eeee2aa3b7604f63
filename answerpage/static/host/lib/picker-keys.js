// The keyboard picker's key decoder: a port of termui/keys.go. Bytes in
// (what a raw terminal sends), one key out. Sequences understood: CSI and
// SS3 cursor keys, Home, End, PgUp, PgDn, Delete, Shift-Tab (CSI Z),
// bracketed paste; modifiers are ignored except Shift on ↑, ↓, PgUp and
// PgDn (CSI 1;2A, CSI 5;2~, rxvt's CSI a / CSI b), which scroll a preview;
// C0 keys: Enter (CR, LF, CR LF), Tab, Backspace (DEL, BS), Ctrl-C, Ctrl-U,
// Ctrl-W, Ctrl-P (up), Ctrl-N (notes). ESC
// followed by anything but "[" or "O" is the Esc key (no Alt bindings); a
// lone ESC is the Esc key once no more bytes came in time (final).

import { printable } from './picker-text.js';

/**
 * @typedef {'none'|'rune'|'up'|'down'|'left'|'right'|'home'|'end'|'pgup'|'pgdown'|'enter'|'tab'|'backtab'|'esc'|'ctrl+c'|'backspace'|'delete'|'ctrl+u'|'ctrl+w'|'paste'|'shift+up'|'shift+down'|'shift+pgup'|'shift+pgdown'|'ctrl+n'} KeyKind
 * @typedef {{kind: KeyKind, r?: string, text?: string}} Key
 */

const NONE = /** @type {Key} */ ({ kind: 'none' });
/** @param {KeyKind} kind @returns {Key} */
const k = (kind) => ({ kind });

const PASTE_END = [0x1b, 0x5b, 0x32, 0x30, 0x31, 0x7e]; // ESC [ 2 0 1 ~

/**
 * Decodes the key at the start of b; returns it with the number of bytes it
 * took. n == 0: b starts with an incomplete sequence (call again with more
 * bytes, or with final once no more came in time). b must not be empty.
 * @param {Uint8Array} b
 * @param {boolean} final
 * @returns {[Key, number]}
 */
export function decodeKey(b, final) {
  const c = b[0];
  if (c === 0x1b) return decodeEsc(b, final);
  if (c === 0x0d) return [k('enter'), b.length > 1 && b[1] === 0x0a ? 2 : 1];
  if (c === 0x0a) return [k('enter'), 1];
  if (c === 0x09) return [k('tab'), 1];
  if (c === 0x7f || c === 0x08) return [k('backspace'), 1];
  if (c === 0x03) return [k('ctrl+c'), 1];
  if (c === 0x15) return [k('ctrl+u'), 1];
  if (c === 0x17) return [k('ctrl+w'), 1];
  if (c === 0x10) return [k('up'), 1];
  if (c === 0x0e) return [k('ctrl+n'), 1]; // the question's notes
  if (c < 0x20) return [NONE, 1];
  if (c < 0x80) return [{ kind: 'rune', r: String.fromCharCode(c) }, 1];
  if (!fullRune(b)) return final ? [NONE, b.length] : [NONE, 0];
  const [r, n] = decodeRune(b);
  if (r < 0 || !printable(r)) return [NONE, n];
  return [{ kind: 'rune', r: String.fromCodePoint(r) }, n];
}

/**
 * @param {Uint8Array} b
 * @param {boolean} final
 * @returns {[Key, number]}
 */
function decodeEsc(b, final) {
  if (b.length === 1) return final ? [k('esc'), 1] : [NONE, 0];
  if (b[1] === 0x4f) {
    // SS3: ESC O <final>
    if (b.length < 3) return final ? [k('esc'), 1] : [NONE, 0];
    return [k(cursorKey(b[2])), 3];
  }
  if (b[1] !== 0x5b) return [k('esc'), 1];
  // CSI: ESC [ parameters (0x30-0x3F) intermediates (0x20-0x2F) final (0x40-0x7E)
  let i = 2;
  while (i < b.length && b[i] >= 0x30 && b[i] <= 0x3f) i++;
  while (i < b.length && b[i] >= 0x20 && b[i] <= 0x2f) i++;
  if (i === b.length) return final ? [NONE, b.length] : [NONE, 0];
  const fin = b[i];
  if (fin < 0x40 || fin > 0x7e) return [NONE, i];
  const n = i + 1;
  const params = String.fromCharCode(...b.subarray(2, i));
  const [num, mod] = params.split(';');
  const shift = shifted(mod);
  if (fin === 0x5a) return [k('backtab'), n];
  if (fin === 0x61) return [k('shift+up'), n]; // rxvt
  if (fin === 0x62) return [k('shift+down'), n];
  if (fin === 0x41 && shift) return [k('shift+up'), n];
  if (fin === 0x42 && shift) return [k('shift+down'), n];
  if (fin === 0x7e) {
    switch (num) {
      case '1':
      case '7':
        return [k('home'), n];
      case '4':
      case '8':
        return [k('end'), n];
      case '5':
        return [k(shift ? 'shift+pgup' : 'pgup'), n];
      case '6':
        return [k(shift ? 'shift+pgdown' : 'pgdown'), n];
      case '3':
        return [k('delete'), n];
      case '200':
        return decodePaste(b, n, final);
    }
    return [NONE, n];
  }
  return [k(cursorKey(fin)), n];
}

/**
 * Whether a CSI modifier parameter (1 + a bit mask: 1 Shift, 2 Alt, 4 Ctrl)
 * includes Shift.
 * @param {string | undefined} mod
 */
function shifted(mod) {
  if (mod === undefined || !/^[0-9]+$/.test(mod)) return false;
  const m = Number(mod);
  return m >= 2 && ((m - 1) & 1) !== 0;
}

/** @param {number} fin @returns {KeyKind} */
function cursorKey(fin) {
  switch (fin) {
    case 0x41:
      return 'up';
    case 0x42:
      return 'down';
    case 0x43:
      return 'right';
    case 0x44:
      return 'left';
    case 0x48:
      return 'home';
    case 0x46:
      return 'end';
  }
  return 'none';
}

/**
 * A bracketed paste whose start marker ends at start.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {boolean} final
 * @returns {[Key, number]}
 */
function decodePaste(b, start, final) {
  const end = indexOf(b, PASTE_END, start);
  if (end < 0) {
    if (!final) return [NONE, 0];
    return [{ kind: 'paste', text: foldText(b.subarray(start)) }, b.length];
  }
  return [{ kind: 'paste', text: foldText(b.subarray(start, end)) }, end + PASTE_END.length];
}

/** @param {Uint8Array} b @param {number[]} pat @param {number} from */
function indexOf(b, pat, from) {
  outer: for (let i = from; i + pat.length <= b.length; i++) {
    for (let j = 0; j < pat.length; j++) if (b[i + j] !== pat[j]) continue outer;
    return i;
  }
  return -1;
}

const utf8 = new TextDecoder('utf-8');

/**
 * Pasted text as one line: line breaks and tabs become spaces, other
 * controls and invalid bytes are dropped.
 * @param {Uint8Array} bytes
 */
export function foldText(bytes) {
  const s = utf8.decode(bytes).replaceAll('\r\n', '\n');
  let out = '';
  for (const ch of s) {
    const c = /** @type {number} */ (ch.codePointAt(0));
    if (c === 0x0a || c === 0x0d || c === 0x09) out += ' ';
    else if (c !== 0xfffd && printable(c)) out += ch;
  }
  return out;
}

/**
 * Go's utf8.FullRune: whether b starts with a whole encoding (or with bytes
 * that can be no encoding's start, which decode as one error).
 * @param {Uint8Array} b
 */
function fullRune(b) {
  const need = seqLen(b[0]);
  if (need <= 1 || b.length >= need) return true;
  for (let i = 1; i < b.length; i++) if (!continuation(b[0], i, b[i])) return true;
  return false;
}

/** @param {number} c */
function seqLen(c) {
  if (c >= 0xc2 && c <= 0xdf) return 2;
  if (c >= 0xe0 && c <= 0xef) return 3;
  if (c >= 0xf0 && c <= 0xf4) return 4;
  return 1;
}

/** Whether c may be byte i (1..3) of a sequence led by lead. @param {number} lead @param {number} i @param {number} c */
function continuation(lead, i, c) {
  if (i === 1) {
    if (lead === 0xe0) return c >= 0xa0 && c <= 0xbf;
    if (lead === 0xed) return c >= 0x80 && c <= 0x9f;
    if (lead === 0xf0) return c >= 0x90 && c <= 0xbf;
    if (lead === 0xf4) return c >= 0x80 && c <= 0x8f;
  }
  return c >= 0x80 && c <= 0xbf;
}

/**
 * Go's utf8.DecodeRune: the code point at the start of b and its length;
 * -1 (RuneError) and 1 for an invalid encoding.
 * @param {Uint8Array} b
 * @returns {[number, number]}
 */
function decodeRune(b) {
  const need = seqLen(b[0]);
  if (need === 1 || b.length < need) return [-1, 1];
  for (let i = 1; i < need; i++) if (!continuation(b[0], i, b[i])) return [-1, 1];
  const mask = need === 2 ? 0x1f : need === 3 ? 0x0f : 0x07;
  let r = b[0] & mask;
  for (let i = 1; i < need; i++) r = (r << 6) | (b[i] & 0x3f);
  return [r, need];
}
