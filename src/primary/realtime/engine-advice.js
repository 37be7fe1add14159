// One advice line when the app long-polls with engine.io (socket.io's default first transport)
// while connections are spread round-robin over several workers: each request of a session may
// reach another worker, which answers HTTP 400 "Session ID unknown", and the client keeps
// reconnecting. The agent tells when it first sees an engine.io server (KIND.ENGINE).
import cluster from 'node:cluster';
import { ADVICE, EVENTS } from '../../constants.js';
import { isOurs, KIND } from '../../protocol.js';

export const STICKY_ADVICE = ADVICE.STICKY_SESSIONS;

/**
 * Listen for the agents' engine.io notes; advise once. Returns a function that stops listening.
 * @param {{config: () => import('../../types.js').Config, slotOf: (worker: object) => number|null, report: (level: string, fields: object, msg?: string) => void}} o
 */
export function adviseStickySessions({ config, slotOf, report }) {
  let advised = false;
  const onFork = (worker) => worker.process.on('internalMessage', (msg) => {
    if (advised || !isOurs(msg) || msg.kind !== KIND.ENGINE || !msg.polling) return;
    const c = config();
    if (c.balance === 'sticky' || c.workers < 2) return;
    advised = true;
    report('warn', { event: EVENTS.ADVICE, slot: slotOf(worker), pid: worker.process.pid, code: STICKY_ADVICE, workers: c.workers });
  });
  cluster.on('fork', onFork);
  return () => cluster.off('fork', onFork);
}
