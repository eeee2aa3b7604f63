// Display width, cutting and wrapping for the Node keyboard picker: a port
// of termui/textwidth.go and of the parts of github.com/rivo/uniseg it uses
// (grapheme clusters and their widths, UAX #14 line break opportunities),
// with uniseg's own tables (lib/picker-unicode.js, generated from the
// version go.mod names), so that a frame is the same cell for cell as the Go
// picker's. Intl.Segmenter is not used: Node's ICU follows a newer Unicode
// than uniseg, and a different cluster would be a different frame.
//
// Strings are JS strings (UTF-16); Go's byte lengths appear only where
// termui decides by them (clusterWidth: a cluster over 4 UTF-8 bytes).

import { PR, GRAPHEME, LINE, EAST_ASIAN, EMOJI_PRESENTATION } from './picker-unicode.js';

/**
 * A packed table, unpacked: starts, ends and values, for a binary search.
 * @typedef {{lo: Int32Array, hi: Int32Array, v: Int32Array}} Table
 */

/** @param {string} packed */
function unpack(packed) {
  const parts = packed.split(',');
  const n = parts.length / 3;
  const t = { lo: new Int32Array(n), hi: new Int32Array(n), v: new Int32Array(n) };
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const lo = prev + 1 + parseInt(parts[3 * i], 36);
    const hi = lo + parseInt(parts[3 * i + 1], 36);
    t.lo[i] = lo;
    t.hi[i] = hi;
    t.v[i] = parseInt(parts[3 * i + 2], 36);
    prev = hi;
  }
  return t;
}

/** @type {Record<string, Table>} */
const tables = {};
/** @param {string} name @param {string} packed */
function tableOf(name, packed) {
  return (tables[name] ??= unpack(packed));
}

/**
 * The value of r in t (0 when no range holds it).
 * @param {Table} t
 * @param {number} r
 */
function lookup(t, r) {
  let from = 0;
  let to = t.lo.length;
  while (to > from) {
    const mid = (from + to) >> 1;
    if (r < t.lo[mid]) to = mid;
    else if (r > t.hi[mid]) from = mid + 1;
    else return t.v[mid];
  }
  return 0;
}

// uniseg: propertyGraphemes.
/** @param {number} r */
function propertyGraphemes(r) {
  if (r >= 0x20 && r <= 0x7e) return PR.Any;
  if (r === 0x0a) return PR.LF;
  if (r === 0x0d) return PR.CR;
  if ((r >= 0 && r <= 0x1f) || r === 0x7f) return PR.Control;
  return lookup(tableOf('g', GRAPHEME), r);
}

// uniseg: propertyLineBreak, the general category reduced to what the
// rules read.
const GC_MN = 1;
const GC_MC = 2;
const GC_CN = 3;
/** @param {number} r @returns {[number, number]} */
function propertyLineBreak(r) {
  if (r >= 0x61 && r <= 0x7a) return [PR.AL, 0];
  if (r >= 0x41 && r <= 0x5a) return [PR.AL, 0];
  if (r >= 0x30 && r <= 0x39) return [PR.NU, 0];
  const v = lookup(tableOf('l', LINE), r);
  return [v & 127, v >> 7];
}

const EA_W = 1;
const EA_F = 2;
const EA_H = 3;
// uniseg: propertyEastAsianWidth, reduced to W, F, H (0: any other).
/** @param {number} r */
function eastAsian(r) {
  if (r < 0x7f) return 0;
  return lookup(tableOf('e', EAST_ASIAN), r);
}

/** @param {number} r */
function emojiPresentation(r) {
  return lookup(tableOf('p', EMOJI_PRESENTATION), r) === 1;
}

// uniseg: runeWidth (EastAsianAmbiguousWidth 1).
/** @param {number} r @param {number} prop */
function runeWidth(r, prop) {
  switch (prop) {
    case PR.Control:
    case PR.CR:
    case PR.LF:
    case PR.Extend:
    case PR.ZWJ:
      return 0;
    case PR.RegionalIndicator:
      return 2;
    case PR.ExtendedPictographic:
      return emojiPresentation(r) ? 2 : 1;
  }
  if (r === 0x2e3a) return 3;
  if (r === 0x2e3b) return 4;
  const ea = eastAsian(r);
  return ea === EA_W || ea === EA_F ? 2 : 1;
}

// uniseg: the grapheme cluster parser (graphemerules.go).
const gr = { Any: 0, CR: 1, ControlLF: 2, L: 3, LVV: 4, LVTT: 5, Prepend: 6, ExtPic: 7, ExtPicZWJ: 8, RIOdd: 9, RIEven: 10 };
const BOUNDARY = 1;
const NO_BOUNDARY = 0;
/** @type {Map<number, [number, number, number]>} state * 256 + prop -> [state, boundary, rule] */
const grT = new Map();
for (const [s, p, ns, b, rule] of /** @type {[number, number, number, number, number][]} */ ([
  [gr.Any, PR.CR, gr.CR, BOUNDARY, 50],
  [gr.Any, PR.LF, gr.ControlLF, BOUNDARY, 50],
  [gr.Any, PR.Control, gr.ControlLF, BOUNDARY, 50],
  [gr.CR, PR.Any, gr.Any, BOUNDARY, 40],
  [gr.ControlLF, PR.Any, gr.Any, BOUNDARY, 40],
  [gr.CR, PR.LF, gr.ControlLF, NO_BOUNDARY, 30],
  [gr.Any, PR.L, gr.L, BOUNDARY, 9990],
  [gr.L, PR.L, gr.L, NO_BOUNDARY, 60],
  [gr.L, PR.V, gr.LVV, NO_BOUNDARY, 60],
  [gr.L, PR.LV, gr.LVV, NO_BOUNDARY, 60],
  [gr.L, PR.LVT, gr.LVTT, NO_BOUNDARY, 60],
  [gr.Any, PR.LV, gr.LVV, BOUNDARY, 9990],
  [gr.Any, PR.V, gr.LVV, BOUNDARY, 9990],
  [gr.LVV, PR.V, gr.LVV, NO_BOUNDARY, 70],
  [gr.LVV, PR.T, gr.LVTT, NO_BOUNDARY, 70],
  [gr.Any, PR.LVT, gr.LVTT, BOUNDARY, 9990],
  [gr.Any, PR.T, gr.LVTT, BOUNDARY, 9990],
  [gr.LVTT, PR.T, gr.LVTT, NO_BOUNDARY, 80],
  [gr.Any, PR.Extend, gr.Any, NO_BOUNDARY, 90],
  [gr.Any, PR.ZWJ, gr.Any, NO_BOUNDARY, 90],
  [gr.Any, PR.SpacingMark, gr.Any, NO_BOUNDARY, 91],
  [gr.Any, PR.Prepend, gr.Prepend, BOUNDARY, 9990],
  [gr.Prepend, PR.Any, gr.Any, NO_BOUNDARY, 92],
  [gr.Any, PR.ExtendedPictographic, gr.ExtPic, BOUNDARY, 9990],
  [gr.ExtPic, PR.Extend, gr.ExtPic, NO_BOUNDARY, 110],
  [gr.ExtPic, PR.ZWJ, gr.ExtPicZWJ, NO_BOUNDARY, 110],
  [gr.ExtPicZWJ, PR.ExtendedPictographic, gr.ExtPic, NO_BOUNDARY, 110],
  [gr.Any, PR.RegionalIndicator, gr.RIOdd, BOUNDARY, 9990],
  [gr.RIOdd, PR.RegionalIndicator, gr.RIEven, NO_BOUNDARY, 120],
  [gr.RIEven, PR.RegionalIndicator, gr.RIOdd, BOUNDARY, 120],
])) {
  grT.set(s * 256 + p, [ns, b, rule]);
}
/** @param {number} state @param {number} prop */
function grTransition(state, prop) {
  return state < 0 ? undefined : grT.get(state * 256 + prop);
}

/**
 * uniseg: transitionGraphemeState.
 * @param {number} state
 * @param {number} r
 * @returns {[number, number, boolean]} new state, r's property, a boundary before r
 */
function graphemeStep(state, r) {
  const prop = propertyGraphemes(r);
  const t = grTransition(state, prop);
  if (t) return [t[0], prop, t[1] === BOUNDARY];
  const anyProp = grTransition(state, PR.Any);
  const anyState = grTransition(gr.Any, prop);
  if (anyProp && anyState) {
    let boundary = anyState[1] === BOUNDARY;
    if (anyProp[2] < anyState[2]) boundary = anyProp[1] === BOUNDARY;
    return [anyState[0], prop, boundary];
  }
  if (anyProp) return [anyProp[0], prop, anyProp[1] === BOUNDARY];
  if (anyState) return [anyState[0], prop, anyState[1] === BOUNDARY];
  return [gr.Any, prop, true];
}

/** The code points of s (a lone surrogate is U+FFFD, as Go decodes invalid UTF-8). @param {string} s */
export function codePoints(s) {
  /** @type {number[]} */
  const cps = [];
  for (const ch of s) {
    const c = /** @type {number} */ (ch.codePointAt(0));
    cps.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
  }
  return cps;
}

/**
 * The grapheme clusters of s with their uniseg widths (uniseg:
 * FirstGraphemeClusterInString, called over the whole string).
 * @param {string} s
 * @returns {{text: string, width: number, bytes: number}[]}
 */
export function clusters(s) {
  /** @type {{text: string, width: number, bytes: number}[]} */
  const out = [];
  const cps = codePoints(s);
  let i = 0;
  let state = -1;
  let firstProp = 0;
  while (i < cps.length) {
    const start = i;
    let r = cps[i];
    if (state < 0) {
      const [ns, p] = graphemeStep(-1, r);
      state = ns;
      firstProp = p;
    }
    let width = runeWidth(r, firstProp);
    i++;
    let nextFirst = firstProp;
    while (i < cps.length) {
      r = cps[i];
      const [ns, prop, boundary] = graphemeStep(state, r);
      state = ns;
      if (boundary) {
        nextFirst = prop;
        break;
      }
      if (firstProp === PR.ExtendedPictographic) {
        if (r === 0xfe0e) width = 1;
        else if (r === 0xfe0f) width = 2;
      } else if (firstProp !== PR.RegionalIndicator && firstProp !== PR.L) {
        width += runeWidth(r, prop);
      }
      i++;
    }
    const part = cps.slice(start, i);
    out.push({ text: String.fromCodePoint(...part), width, bytes: utf8Len(part) });
    firstProp = nextFirst;
  }
  return out;
}

/** @param {number[]} cps */
function utf8Len(cps) {
  let n = 0;
  for (const c of cps) n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  return n;
}

/**
 * termui: printable, the core's rule for what may be drawn (core.Shown).
 * @param {number} r
 */
export function printable(r) {
  return r >= 0x20 && !(r >= 0x7f && r < 0xa0) && !isBidiControl(r);
}

/** @param {number} r */
function isBidiControl(r) {
  return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r === 0x200e || r === 0x200f || r === 0x061c;
}

export const ELLIPSIS = '…';

/** @param {string} s */
function plainASCII(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

/**
 * termui: cleanText: one line of the frame (a line break or tab becomes a
 * space, what the core would not show is dropped).
 * @param {string} s
 */
export function cleanText(s) {
  if (plainASCII(s)) return s;
  let out = '';
  for (const ch of s) {
    let c = /** @type {number} */ (ch.codePointAt(0));
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c === 0x0a || c === 0x09 || c === 0x0d) out += ' ';
    else if (printable(c)) out += String.fromCodePoint(c);
  }
  return out;
}

/**
 * termui: clusterWidth: a cluster joining several pictographs (ZWJ
 * sequences, an emoji with a skin tone modifier) counts as wide as its parts
 * drawn apart (tmux draws 👍🏽 in 4 cells).
 * @param {{text: string, width: number, bytes: number}} c
 */
function clusterWidth(c) {
  if (c.bytes <= 4 || c.width === 0) return c.width;
  let sum = 0;
  for (const r of codePoints(c.text)) {
    if (r === 0x200d || (r >= 0xfe00 && r <= 0xfe0f)) continue; // joiner, variation selector
    if (r >= 0x1f3fb && r <= 0x1f3ff) {
      sum += 2; // a skin tone modifier drawn apart (uniseg counts it 0)
      continue;
    }
    sum += runeWidth(r, propertyGraphemes(r));
  }
  return Math.max(c.width, sum);
}

/** Clusters with termui's widths. @param {string} s */
function cells(s) {
  return clusters(s).map((c) => ({ text: c.text, width: clusterWidth(c) }));
}

/**
 * termui: textWidth, the display width of s (one line, clean).
 * @param {string} s
 */
export function textWidth(s) {
  if (plainASCII(s)) return s.length;
  let n = 0;
  for (const c of cells(s)) n += c.width;
  return n;
}

/**
 * termui: truncate: s cut to at most width cells, ending with "…" when cut.
 * @param {string} s
 * @param {number} width
 * @returns {[string, number]} the text and its width
 */
export function truncate(s, width) {
  if (width <= 0) return ['', 0];
  const total = textWidth(s);
  if (total <= width) return [s, total];
  if (plainASCII(s)) return [s.slice(0, width - 1) + ELLIPSIS, width];
  const limit = width - 1;
  let n = 0;
  let cut = '';
  for (const c of cells(s)) {
    if (n + c.width > limit) break;
    n += c.width;
    cut += c.text;
  }
  return [cut + ELLIPSIS, n + 1];
}

/**
 * termui: tail: the end of s that fits in width cells, starting with "…"
 * when the beginning was cut.
 * @param {string} s
 * @param {number} width
 * @returns {[string, number]}
 */
export function tail(s, width) {
  if (width <= 0) return ['', 0];
  const total = textWidth(s);
  if (total <= width) return [s, total];
  const cs = cells(s);
  let n = 0;
  let start = cs.length;
  for (let i = cs.length - 1; i >= 0; i--) {
    if (n + cs[i].width > width - 1) break;
    n += cs[i].width;
    start = i;
  }
  return [ELLIPSIS + cs.slice(start).map((c) => c.text).join(''), n + 1];
}

/**
 * termui: wrap: s broken into lines of at most width cells at UAX #14 break
 * opportunities; at most maxLines lines (0: no limit), the last then ending
 * with "…". Each line is clean.
 * @param {string} s
 * @param {number} width
 * @param {number} maxLines
 * @returns {string[]}
 */
export function wrap(s, width, maxLines) {
  if (width <= 0) return [];
  /** @type {string[]} */
  let out = [];
  for (const para of s.split('\n')) {
    out.push(...wrapLine(cleanText(para), width));
    if (maxLines > 0 && out.length > maxLines) break;
  }
  if (maxLines > 0 && out.length > maxLines) {
    out = out.slice(0, maxLines);
    let last = out[maxLines - 1];
    if (textWidth(last) + 1 > width) last = truncate(last + ' ' + ELLIPSIS, width)[0];
    else last += ELLIPSIS;
    out[maxLines - 1] = last;
  }
  return out;
}

/** @param {string} s */
function trimRightSpaces(s) {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 0x20) e--;
  return s.slice(0, e);
}

/**
 * termui: wrapLine, one paragraph (no "\n").
 * @param {string} s
 * @param {number} width
 */
export function wrapLine(s, width) {
  /** @type {string[]} */
  const lines = [];
  let line = '';
  let lineW = 0;
  const flush = () => {
    lines.push(trimRightSpaces(line));
    line = '';
    lineW = 0;
  };
  for (const seg of lineSegments(s)) {
    const segW = textWidth(seg);
    const ink = segW - (seg.length - trimRightSpaces(seg).length);
    if (lineW > 0 && lineW + ink > width) flush();
    if (ink <= width) {
      line += seg;
      lineW += segW;
      continue;
    }
    // A word too wide alone: cut it between clusters.
    for (const c of cells(seg)) {
      if (lineW + c.width > width && c.text !== ' ') flush();
      line += c.text;
      lineW += c.width;
    }
  }
  if (line.length > 0 || lines.length === 0) flush();
  return lines;
}

// uniseg: the line break parser (linerules.go, Unicode 15.0.0).
const lb = {
  Any: 0, BK: 1, CR: 2, LF: 3, NL: 4, SP: 5, ZW: 6, WJ: 7, GL: 8, BA: 9, HY: 10, CL: 11, CP: 12, EX: 13, IS: 14,
  SY: 15, OP: 16, QU: 17, QUSP: 18, NS: 19, CLCPSP: 20, B2: 21, B2SP: 22, CB: 23, BB: 24, LB21a: 25, HL: 26, AL: 27,
  NU: 28, PR: 29, EB: 30, IDEM: 31, NUNU: 32, NUSY: 33, NUIS: 34, NUCL: 35, NUCP: 36, PO: 37, JL: 38, JV: 39, JT: 40,
  H2: 41, H3: 42, OddRI: 43, EvenRI: 44, ExtPicCn: 45,
};
const LB_ZWJ_BIT = 64;
const LB_CP_EA_BIT = 128;
const DONT = 0;
const CAN = 1;
const MUST = 2;

/** @type {Map<number, [number, number, number]>} state * 256 + prop -> [state, break, rule] */
const lbT = new Map();
{
  const P = PR;
  /** @type {[number, number, number, number, number][]} */
  const rows = [
    // LB4
    [lb.BK, P.Any, lb.Any, MUST, 40],
    // LB5
    [lb.CR, P.LF, lb.LF, DONT, 50], [lb.CR, P.Any, lb.Any, MUST, 50], [lb.LF, P.Any, lb.Any, MUST, 50],
    [lb.NL, P.Any, lb.Any, MUST, 50],
    // LB6
    [lb.Any, P.BK, lb.BK, DONT, 60], [lb.Any, P.CR, lb.CR, DONT, 60], [lb.Any, P.LF, lb.LF, DONT, 60],
    [lb.Any, P.NL, lb.NL, DONT, 60],
    // LB7
    [lb.Any, P.SP, lb.SP, DONT, 70], [lb.Any, P.ZW, lb.ZW, DONT, 70],
    // LB8
    [lb.ZW, P.SP, lb.ZW, DONT, 70], [lb.ZW, P.Any, lb.Any, CAN, 80],
    // LB11
    [lb.Any, P.WJ, lb.WJ, DONT, 110], [lb.WJ, P.Any, lb.Any, DONT, 110],
    // LB12
    [lb.Any, P.GL, lb.GL, CAN, 310], [lb.GL, P.Any, lb.Any, DONT, 120],
    // LB13
    [lb.Any, P.CL, lb.CL, CAN, 310], [lb.Any, P.CP, lb.CP, CAN, 310], [lb.Any, P.EX, lb.EX, DONT, 130],
    [lb.Any, P.IS, lb.IS, CAN, 310], [lb.Any, P.SY, lb.SY, CAN, 310],
    // LB14
    [lb.Any, P.OP, lb.OP, CAN, 310], [lb.OP, P.SP, lb.OP, DONT, 70], [lb.OP, P.Any, lb.Any, DONT, 140],
    // LB15
    [lb.QU, P.SP, lb.QUSP, DONT, 70], [lb.QU, P.OP, lb.OP, DONT, 150], [lb.QUSP, P.OP, lb.OP, DONT, 150],
    // LB16
    [lb.CL, P.SP, lb.CLCPSP, DONT, 70], [lb.NUCL, P.SP, lb.CLCPSP, DONT, 70], [lb.CP, P.SP, lb.CLCPSP, DONT, 70],
    [lb.NUCP, P.SP, lb.CLCPSP, DONT, 70], [lb.CL, P.NS, lb.NS, DONT, 160], [lb.NUCL, P.NS, lb.NS, DONT, 160],
    [lb.CP, P.NS, lb.NS, DONT, 160], [lb.NUCP, P.NS, lb.NS, DONT, 160], [lb.CLCPSP, P.NS, lb.NS, DONT, 160],
    // LB17
    [lb.Any, P.B2, lb.B2, CAN, 310], [lb.B2, P.SP, lb.B2SP, DONT, 70], [lb.B2, P.B2, lb.B2, DONT, 170],
    [lb.B2SP, P.B2, lb.B2, DONT, 170],
    // LB18
    [lb.SP, P.Any, lb.Any, CAN, 180], [lb.QUSP, P.Any, lb.Any, CAN, 180], [lb.CLCPSP, P.Any, lb.Any, CAN, 180],
    [lb.B2SP, P.Any, lb.Any, CAN, 180],
    // LB19
    [lb.Any, P.QU, lb.QU, DONT, 190], [lb.QU, P.Any, lb.Any, DONT, 190],
    // LB20
    [lb.Any, P.CB, lb.CB, CAN, 200], [lb.CB, P.Any, lb.Any, CAN, 200],
    // LB21
    [lb.Any, P.BA, lb.BA, DONT, 210], [lb.Any, P.HY, lb.HY, DONT, 210], [lb.Any, P.NS, lb.NS, DONT, 210],
    [lb.Any, P.BB, lb.BB, CAN, 310], [lb.BB, P.Any, lb.Any, DONT, 210],
    // LB21a
    [lb.Any, P.HL, lb.HL, CAN, 310], [lb.HL, P.HY, lb.LB21a, DONT, 210], [lb.HL, P.BA, lb.LB21a, DONT, 210],
    [lb.LB21a, P.Any, lb.Any, DONT, 211],
    // LB21b
    [lb.SY, P.HL, lb.HL, DONT, 212], [lb.NUSY, P.HL, lb.HL, DONT, 212],
    // LB22
    [lb.Any, P.IN, lb.Any, DONT, 220],
    // LB23
    [lb.Any, P.AL, lb.AL, CAN, 310], [lb.Any, P.NU, lb.NU, CAN, 310], [lb.AL, P.NU, lb.NU, DONT, 230],
    [lb.HL, P.NU, lb.NU, DONT, 230], [lb.NU, P.AL, lb.AL, DONT, 230], [lb.NU, P.HL, lb.HL, DONT, 230],
    [lb.NUNU, P.AL, lb.AL, DONT, 230], [lb.NUNU, P.HL, lb.HL, DONT, 230],
    // LB23a
    [lb.Any, P.PR, lb.PR, CAN, 310], [lb.Any, P.ID, lb.IDEM, CAN, 310], [lb.Any, P.EB, lb.EB, CAN, 310],
    [lb.Any, P.EM, lb.IDEM, CAN, 310], [lb.PR, P.ID, lb.IDEM, DONT, 231], [lb.PR, P.EB, lb.EB, DONT, 231],
    [lb.PR, P.EM, lb.IDEM, DONT, 231], [lb.IDEM, P.PO, lb.PO, DONT, 231], [lb.EB, P.PO, lb.PO, DONT, 231],
    // LB24
    [lb.Any, P.PO, lb.PO, CAN, 310], [lb.PR, P.AL, lb.AL, DONT, 240], [lb.PR, P.HL, lb.HL, DONT, 240],
    [lb.PO, P.AL, lb.AL, DONT, 240], [lb.PO, P.HL, lb.HL, DONT, 240], [lb.AL, P.PR, lb.PR, DONT, 240],
    [lb.AL, P.PO, lb.PO, DONT, 240], [lb.HL, P.PR, lb.PR, DONT, 240], [lb.HL, P.PO, lb.PO, DONT, 240],
    // LB25
    [lb.PR, P.NU, lb.NU, DONT, 250], [lb.PO, P.NU, lb.NU, DONT, 250], [lb.OP, P.NU, lb.NU, DONT, 250],
    [lb.HY, P.NU, lb.NU, DONT, 250], [lb.NU, P.NU, lb.NUNU, DONT, 250], [lb.NU, P.SY, lb.NUSY, DONT, 250],
    [lb.NU, P.IS, lb.NUIS, DONT, 250], [lb.NUNU, P.NU, lb.NUNU, DONT, 250], [lb.NUNU, P.SY, lb.NUSY, DONT, 250],
    [lb.NUNU, P.IS, lb.NUIS, DONT, 250], [lb.NUSY, P.NU, lb.NUNU, DONT, 250], [lb.NUSY, P.SY, lb.NUSY, DONT, 250],
    [lb.NUSY, P.IS, lb.NUIS, DONT, 250], [lb.NUIS, P.NU, lb.NUNU, DONT, 250], [lb.NUIS, P.SY, lb.NUSY, DONT, 250],
    [lb.NUIS, P.IS, lb.NUIS, DONT, 250], [lb.NU, P.CL, lb.NUCL, DONT, 250], [lb.NU, P.CP, lb.NUCP, DONT, 250],
    [lb.NUNU, P.CL, lb.NUCL, DONT, 250], [lb.NUNU, P.CP, lb.NUCP, DONT, 250], [lb.NUSY, P.CL, lb.NUCL, DONT, 250],
    [lb.NUSY, P.CP, lb.NUCP, DONT, 250], [lb.NUIS, P.CL, lb.NUCL, DONT, 250], [lb.NUIS, P.CP, lb.NUCP, DONT, 250],
    [lb.NU, P.PO, lb.PO, DONT, 250], [lb.NUNU, P.PO, lb.PO, DONT, 250], [lb.NUSY, P.PO, lb.PO, DONT, 250],
    [lb.NUIS, P.PO, lb.PO, DONT, 250], [lb.NUCL, P.PO, lb.PO, DONT, 250], [lb.NUCP, P.PO, lb.PO, DONT, 250],
    [lb.NU, P.PR, lb.PR, DONT, 250], [lb.NUNU, P.PR, lb.PR, DONT, 250], [lb.NUSY, P.PR, lb.PR, DONT, 250],
    [lb.NUIS, P.PR, lb.PR, DONT, 250], [lb.NUCL, P.PR, lb.PR, DONT, 250], [lb.NUCP, P.PR, lb.PR, DONT, 250],
    // LB26
    [lb.Any, P.JL, lb.JL, CAN, 310], [lb.Any, P.JV, lb.JV, CAN, 310], [lb.Any, P.JT, lb.JT, CAN, 310],
    [lb.Any, P.H2, lb.H2, CAN, 310], [lb.Any, P.H3, lb.H3, CAN, 310], [lb.JL, P.JL, lb.JL, DONT, 260],
    [lb.JL, P.JV, lb.JV, DONT, 260], [lb.JL, P.H2, lb.H2, DONT, 260], [lb.JL, P.H3, lb.H3, DONT, 260],
    [lb.JV, P.JV, lb.JV, DONT, 260], [lb.JV, P.JT, lb.JT, DONT, 260], [lb.H2, P.JV, lb.JV, DONT, 260],
    [lb.H2, P.JT, lb.JT, DONT, 260], [lb.JT, P.JT, lb.JT, DONT, 260], [lb.H3, P.JT, lb.JT, DONT, 260],
    // LB27
    [lb.JL, P.PO, lb.PO, DONT, 270], [lb.JV, P.PO, lb.PO, DONT, 270], [lb.JT, P.PO, lb.PO, DONT, 270],
    [lb.H2, P.PO, lb.PO, DONT, 270], [lb.H3, P.PO, lb.PO, DONT, 270], [lb.PR, P.JL, lb.JL, DONT, 270],
    [lb.PR, P.JV, lb.JV, DONT, 270], [lb.PR, P.JT, lb.JT, DONT, 270], [lb.PR, P.H2, lb.H2, DONT, 270],
    [lb.PR, P.H3, lb.H3, DONT, 270],
    // LB28
    [lb.AL, P.AL, lb.AL, DONT, 280], [lb.AL, P.HL, lb.HL, DONT, 280], [lb.HL, P.AL, lb.AL, DONT, 280],
    [lb.HL, P.HL, lb.HL, DONT, 280],
    // LB29
    [lb.IS, P.AL, lb.AL, DONT, 290], [lb.IS, P.HL, lb.HL, DONT, 290], [lb.NUIS, P.AL, lb.AL, DONT, 290],
    [lb.NUIS, P.HL, lb.HL, DONT, 290],
  ];
  for (const [s, p, ns, b, rule] of rows) lbT.set(s * 256 + p, [ns, b, rule]);
}
/** @param {number} state @param {number} prop */
function lbTransition(state, prop) {
  return state < 0 ? undefined : lbT.get(state * 256 + prop);
}

/**
 * uniseg: transitionLineBreakState.
 * @param {number} state
 * @param {number} r the next code point
 * @param {number | undefined} after the code point after r (LB25's look-ahead)
 * @returns {[number, number]} the new state, the break before r
 */
function lineStep(state, r, after) {
  let forceNoBreak = false;
  let isCPeaFWH = false;
  if (state >= 0 && state & LB_CP_EA_BIT) {
    isCPeaFWH = true;
    state &= ~LB_CP_EA_BIT;
  }
  if (state >= 0 && state & LB_ZWJ_BIT) {
    state &= ~LB_ZWJ_BIT;
    forceNoBreak = true;
  }
  let [newState, lineBreak] = lineStepInner(state, r, after, isCPeaFWH);
  // Go's deferred function: the transition into LB30, LB8a's override.
  if (newState === lb.CP || newState === lb.NUCP) {
    const ea = eastAsian(r);
    if (ea !== EA_F && ea !== EA_W && ea !== EA_H) newState |= LB_CP_EA_BIT;
  }
  if (forceNoBreak) lineBreak = DONT;
  return [newState, lineBreak];
}

/**
 * @param {number} state
 * @param {number} r
 * @param {number | undefined} after
 * @param {boolean} isCPeaFWH
 * @returns {[number, number]}
 */
function lineStepInner(state, r, after, isCPeaFWH) {
  let [next, gc] = propertyLineBreak(r);
  // LB1
  if (next === PR.AI || next === PR.SG || next === PR.XX) next = PR.AL;
  else if (next === PR.SA) next = gc === GC_MN || gc === GC_MC ? PR.CM : PR.AL;
  else if (next === PR.CJ) next = PR.NS;

  // Combining marks.
  if (next === PR.ZWJ || next === PR.CM) {
    const bit = next === PR.ZWJ ? LB_ZWJ_BIT : 0;
    const mustBreakState = state < 0 || state === lb.BK || state === lb.CR || state === lb.LF || state === lb.NL;
    if (!mustBreakState && state !== lb.SP && state !== lb.ZW && state !== lb.QUSP && state !== lb.CLCPSP && state !== lb.B2SP) {
      return [state | bit, DONT]; // LB9
    }
    return [lb.AL | bit, mustBreakState ? MUST : CAN]; // LB10
  }

  let newState;
  let lineBreak;
  let rule;
  const t = lbTransition(state, next);
  if (t) {
    [newState, lineBreak, rule] = t;
  } else {
    const anyProp = lbTransition(state, PR.Any);
    const anyState = lbTransition(lb.Any, next);
    if (anyProp && anyState) {
      [newState, lineBreak, rule] = anyState;
      if (anyProp[2] < anyState[2]) [, lineBreak, rule] = anyProp;
    } else if (anyProp) {
      [newState, lineBreak, rule] = anyProp;
    } else if (anyState) {
      [newState, lineBreak, rule] = anyState;
    } else {
      [newState, lineBreak, rule] = [lb.Any, CAN, 310]; // LB31
    }
  }

  // LB12a
  if (
    rule > 121 &&
    next === PR.GL &&
    state !== lb.SP && state !== lb.BA && state !== lb.HY && state !== lb.LB21a && state !== lb.QUSP &&
    state !== lb.CLCPSP && state !== lb.B2SP
  ) {
    return [lb.GL, DONT];
  }

  // LB13
  if (rule > 130 && state !== lb.NU && state !== lb.NUNU) {
    switch (next) {
      case PR.CL:
        return [lb.CL, DONT];
      case PR.CP:
        return [lb.CP, DONT];
      case PR.IS:
        return [lb.IS, DONT];
      case PR.SY:
        return [lb.SY, DONT];
    }
  }

  // LB25 (look ahead), with Go's precedence: (a && b && c) || d.
  if ((rule > 250 && (state === lb.PR || state === lb.PO) && next === PR.OP) || next === PR.HY) {
    if (after !== undefined && after !== 0xfffd) {
      if (propertyLineBreak(after)[0] === PR.NU) return [lb.NU, DONT];
    }
  }

  // LB30 (part one)
  if (rule > 300) {
    if ((state === lb.AL || state === lb.HL || state === lb.NU || state === lb.NUNU) && next === PR.OP) {
      const ea = eastAsian(r);
      if (ea !== EA_F && ea !== EA_W && ea !== EA_H) return [lb.OP, DONT];
    } else if (isCPeaFWH) {
      switch (next) {
        case PR.AL:
          return [lb.AL, DONT];
        case PR.HL:
          return [lb.HL, DONT];
        case PR.NU:
          return [lb.NU, DONT];
      }
    }
  }

  // LB30a
  if (newState === lb.Any && next === PR.RI) {
    if (state !== lb.OddRI && state !== lb.EvenRI) return [lb.OddRI, lineBreak];
    if (state === lb.OddRI) return [lb.EvenRI, DONT];
    return [lb.OddRI, lineBreak];
  }

  // LB30b
  if (rule > 302) {
    if (next === PR.EM && (state === lb.EB || state === lb.ExtPicCn)) {
      return [PR.Any, DONT]; // sic: uniseg returns prAny (1) as the state
    }
    if (propertyGraphemes(r) === PR.ExtendedPictographic && gc === GC_CN) return [lb.ExtPicCn, CAN];
  }

  return [newState, lineBreak];
}

/**
 * uniseg: FirstLineSegmentInString called over the whole string: the
 * segments of s between line break opportunities.
 * @param {string} s
 * @returns {string[]}
 */
export function lineSegments(s) {
  const cps = codePoints(s);
  /** @type {string[]} */
  const segs = [];
  let i = 0;
  let state = -1;
  while (i < cps.length) {
    const start = i;
    if (i + 1 >= cps.length) {
      segs.push(String.fromCodePoint(...cps.slice(start)));
      break;
    }
    if (state < 0) state = lineStep(state, cps[i], cps[i + 1])[0];
    i++;
    for (;;) {
      const [ns, brk] = lineStep(state, cps[i], cps[i + 1]);
      state = ns;
      if (brk !== DONT) break;
      i++;
      if (i >= cps.length) {
        state = lb.Any;
        break;
      }
    }
    segs.push(String.fromCodePoint(...cps.slice(start, i)));
  }
  return segs;
}

/**
 * termui: dropLastGrapheme: the text without its last user-perceived
 * character.
 * @param {string} t
 */
export function dropLastGrapheme(t) {
  const cs = clusters(t);
  cs.pop();
  return cs.map((c) => c.text).join('');
}

/** Go's unicode.IsSpace. @param {number} c */
function isSpace(c) {
  switch (c) {
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x20: case 0x85: case 0xa0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
      return true;
  }
  return c >= 0x2000 && c <= 0x200a;
}

/**
 * termui: dropLastWord: trailing spaces and the word before them removed.
 * @param {string} t
 */
export function dropLastWord(t) {
  const cps = [...t];
  let e = cps.length;
  while (e > 0 && isSpace(/** @type {number} */ (cps[e - 1].codePointAt(0)))) e--;
  let i = e;
  while (i > 0 && !isSpace(/** @type {number} */ (cps[i - 1].codePointAt(0)))) i--;
  return cps.slice(0, i).join('');
}
