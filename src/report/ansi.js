// Text helpers for the terminal view: visible width that ignores ANSI escapes, ANSI-aware
// truncation and padding, and a tiny palette. Colours close with their own "off" code (39, 22, 27)
// instead of a full reset, so a cell colour inside an inverse (selected) row keeps the inverse.

const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;
const ANSI_AT = /^\x1b\[[0-9;?]*[A-Za-z]/;

const STYLES = {
  red: ['\x1b[31m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  bold: ['\x1b[1m', '\x1b[22m'],
  inverse: ['\x1b[7m', '\x1b[27m'],
};

/** Wrap text in a style when colour is on; a null style or colour off returns the text as is. */
export function paint(text, style, color) {
  if (!color || !style || !STYLES[style] || text === '') return text;
  return STYLES[style][0] + text + STYLES[style][1];
}

/** The text without ANSI escapes. */
export function stripAnsi(str) {
  return String(str).replace(ANSI_RE, '');
}

// East Asian wide and emoji ranges take two columns; combining marks take none. Close enough for
// the only untrusted text we show (app names, error messages) without a string-width dependency.
function charWidth(cp) {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Terminal columns a string takes, ignoring ANSI escapes. */
export function visibleWidth(str) {
  let w = 0;
  for (const ch of stripAnsi(str)) w += charWidth(ch.codePointAt(0));
  return w;
}

/** Cut to at most `width` columns, keeping escapes; ends with '…' when something was cut. */
export function truncate(str, width) {
  str = String(str);
  if (visibleWidth(str) <= width) return str;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  let styled = false;
  for (let i = 0; i < str.length;) {
    const esc = str[i] === '\x1b' ? ANSI_AT.exec(str.slice(i)) : null;
    if (esc) {
      out += esc[0];
      styled = true;
      i += esc[0].length;
      continue;
    }
    const ch = String.fromCodePoint(str.codePointAt(i));
    const cw = charWidth(ch.codePointAt(0));
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
    i += ch.length;
  }
  // A cut may leave a style open; \x1b[0m closes every one of ours.
  return out + '…' + (styled ? '\x1b[0m' : '');
}

/** Pad (or cut) to exactly `width` columns; align 'left' or 'right'. */
export function pad(str, width, align = 'left') {
  str = truncate(str, width);
  const fill = ' '.repeat(Math.max(0, width - visibleWidth(str)));
  return align === 'right' ? fill + str : str + fill;
}

/** One-line, printable text: control characters (newlines, escapes) become spaces. */
export function clean(text) {
  return String(text ?? '').replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
}

/** Greedy word wrap of plain text to `width` columns; a word longer than a line is cut. */
export function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of clean(text).split(/ +/)) {
    if (!line) line = word;
    else if (visibleWidth(line) + 1 + visibleWidth(word) <= width) line += ' ' + word;
    else { lines.push(line); line = word; }
  }
  if (line) lines.push(line);
  return lines.map((l) => truncate(l, width));
}
