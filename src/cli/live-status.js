// `nodesup status` at a terminal: the live view of src/report/status/status-screen.js, attached to a
// running supervisor through one reused control connection. The screen polls `status` on it while
// an action (a reload takes a few seconds per slot) waits for its reply on the same socket: replies
// carry request ids, so a slow `reload` never holds a snapshot back.
import { connect } from '../control/client.js';
import { runStatusScreen } from '../report/status/status-screen.js';
import { EXIT, NodesupError } from '../errors.js';
export { recycleOutcome, reloadOutcome } from '../report/status/action-outcome.js';

// A snapshot answers in milliseconds; the screen gives up on its own after failAfterMs anyway.
const STATUS_TIMEOUT_MS = 5000;
// A reload replaces every slot in turn, each one waiting for readyTimeout and a drain: minutes.
const ACTION_TIMEOUT_MS = 10 * 60 * 1000;

/** Run the live view until the user quits; resolves with the exit code (1 when the supervisor went away). */
export async function liveStatus({ name, dir, screen = runStatusScreen, stderr = process.stderr, ...screenOptions }) {
  const conn = connect({ name, dir });
  const act = (op, args) => conn.request(op, args, { timeoutMs: ACTION_TIMEOUT_MS });
  try {
    // Ask once before taking over the terminal: "none running" or "which one?" is a plain line
    // and an exit code, not five seconds of a screen that retries.
    let first = await conn.request('status', {}, { timeoutMs: STATUS_TIMEOUT_MS });
    await screen({
      ...screenOptions,
      fetchSnapshot: () => {
        const snap = first;
        first = null;
        return snap ?? conn.request('status', {}, { timeoutMs: STATUS_TIMEOUT_MS });
      },
      fetchHistory: (slot, range) => conn.request('history', { slot, ...range }, { timeoutMs: STATUS_TIMEOUT_MS }),
      actions: {
        recycle: (slot) => act('recycle', { slot }),
        reload: () => act('reload'),
        inspect: (slot) => act('inspect', { slot }),
      },
    });
    return EXIT.OK;
  } catch (err) {
    // The screen has left the alternate screen before rejecting, so this line stays visible.
    // Ambiguous (several supervisors, none named) is a usage error: its exitCode says 2.
    if (!(err instanceof NodesupError)) throw err;
    stderr.write(`nodesup: ${err.message}\n`);
    return err.exitCode;
  } finally {
    conn.close();
  }
}
