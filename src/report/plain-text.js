// Text made safe for one line of a log or a screen, with no terminal-width library behind it: the
// log's words load in the primary, where string-width and strip-ansi would cost ~3 MiB for nothing.

/** One-line, printable text: control characters (newlines, escapes) become spaces. */
export function clean(text) {
  return String(text ?? '').replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
}
