// Child processes by command, from /proc/<pid>/cmdline: read by the agent for its own children on
// a full read (one small read per child), so a children leak is named by what the children are.
import { commandOf } from '../core/sites/child-commands.js';
import { readText } from './read-text.js';

/** Count pids by their command line ({"node -e …": 6}); pids gone since the listing are left out. */
export function countCommands(pids) {
  const out = {};
  for (const pid of pids) {
    let text;
    try { text = readText(`/proc/${pid}/cmdline`); } catch { continue; }
    const cmd = commandOf(text);
    if (cmd) out[cmd] = (out[cmd] ?? 0) + 1;
  }
  return out;
}
