// What real-time apps (socket.io) need from the primary, wired in one place: the sticky balancer
// (balance: 'sticky') or the workers' own listens (balance: 'reuse-port'), the relay of @socket.io/cluster-adapter's messages, and the advice when the
// app long-polls without stickiness. The supervisor starts it and tells it when the stop begins.
import { startBalancer } from './balancer.js';
import { relayAdapterMessages } from './adapter-relay.js';
import { adviseStickySessions } from './engine-advice.js';

/**
 * @param {object} o
 * @param {import('../../types.js').Config} o.config  as the supervisor started
 * @param {import('../lifecycle/pool.js').Pool} o.pool
 * @param {() => import('../../types.js').Config} o.currentConfig  as a reload left it
 * @param {(level:string, fields:object, msg?:string) => void} o.report
 * @returns {{workerEnv: Record<string,string>, balancer: object|null, stopping: () => void, stopped: () => void}}
 *   workerEnv: what the workers' environment must carry for these to work
 */
export function startRealtime({ config, pool, currentConfig, report }) {
  let balancer = null;
  const workerEnv = {};
  if (config.balance === 'sticky') {
    workerEnv.NODESUP_BALANCE = 'sticky';
    balancer = startBalancer({ slots: pool.slots, header: config.stickyHeader?.toLowerCase() ?? null, report });
  }
  // Each worker listens on the port itself (worker/balance/reuse-port.js): nothing to run here.
  if (config.balance === 'reuse-port') workerEnv.NODESUP_BALANCE = 'reuse-port';
  const stopRelay = relayAdapterMessages(pool);
  // The balancer runs as started: a SIGHUP that changes `balance` takes a restart (config-diff.js).
  const slotOf = (worker) => pool.records().find((rec) => rec.worker === worker)?.slot ?? null;
  const stopAdvice = adviseStickySessions({ config: () => ({ ...currentConfig(), balance: config.balance }), slotOf, report });
  return {
    workerEnv,
    balancer,
    /** The stop began: no new connection is accepted. */
    stopping() {
      balancer?.close();
    },
    /** Every worker is gone. */
    stopped() {
      balancer?.close();
      stopRelay();
      stopAdvice();
    },
  };
}
