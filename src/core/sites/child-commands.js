// What a worker's children are, by command: a leak of child processes, or of their memory, is
// named with the commands, read from /proc/<pid>/cmdline. Pure: cmdline text and counts in,
// commands with their counts and rates out (report/resource-words.js says them).

const MAX_LEN = 120; // a command line is cut here: an inline script can be kilobytes

/** A /proc/<pid>/cmdline (NUL-separated argv) as one line, cut to MAX_LEN; null for none (a zombie). */
export function commandOf(cmdline) {
  if (!cmdline) return null;
  const line = cmdline.replace(/\0+$/, '').split('\0').join(' ').replace(/\s+/g, ' ').trim();
  if (!line) return null;
  return line.length > MAX_LEN ? `${line.slice(0, MAX_LEN - 1)}…` : line;
}

/**
 * The commands of a worker's children, most numerous first, with how fast each grew between the
 * oldest and the newest reading: [{command, count, perMin}].
 * @param {{t:number, commands:Record<string, number>}|null} older
 * @param {{t:number, commands:Record<string, number>}|null} newer
 */
export function childCommands(older, newer, { top = 3 } = {}) {
  if (!newer?.commands) return [];
  const min = older && newer.t > older.t ? (newer.t - older.t) / 60_000 : null;
  return Object.entries(newer.commands)
    .map(([command, count]) => ({ command, count, perMin: min === null ? null : Math.round(((count - (older.commands?.[command] ?? 0)) / min) * 10) / 10 }))
    .sort((a, b) => (b.perMin ?? 0) - (a.perMin ?? 0) || b.count - a.count)
    .slice(0, top);
}
