// Text helpers for the terminal view: ANSI-aware truncation and padding, and a tiny palette.
// Widths (wide East Asian characters, emoji, combining marks) are string-width's and stripping is
// strip-ansi's: both already come with yargs. Colours close with their own "off" code (39, 22, 27)
// instead of a full reset, so a cell colour inside an inverse (selected) row keeps the inverse.
import stringWidth from 'string-width';
import stripAnsiText from 'strip-ansi';
import { clean } from '../plain-text.js';

export { clean };

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
  return stripAnsiText(String(str));
}

/** Terminal columns a string takes, ignoring ANSI escapes. */
export function visibleWidth(str) {
  return stringWidth(String(str));
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
    const cw = stringWidth(ch);
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
