// What real-time apps (socket.io) need from the primary, wired in one place: the sticky balancer
// (balance: 'sticky'), the relay of @socket.io/cluster-adapter's messages, and the advice when the
// app long-polls without stickiness. The supervisor starts it and tells it when the stop begins.
import { startBalancer } from './balancer.js';
import { relayAdapterMessages } from './adapter-relay.js';
import { adviseStickySessions } from './engine-advice.js';

/** @param {import('../supervisor.js').Supervisor} sup */
export function startRealtime(sup) {
  const { config } = sup;
  const report = (level, fields, msg) => sup.log(level, fields, msg);
  let balancer = null;
  if (config.balance === 'sticky') {
    sup.pool.workerEnv = { ...sup.pool.workerEnv, NODESUP_BALANCE: 'sticky' };
    balancer = startBalancer({ slots: sup.pool.slots, header: config.stickyHeader?.toLowerCase() ?? null, report });
  }
  const stopRelay = relayAdapterMessages(sup.pool);
  // The balancer runs as started: a SIGHUP that changes `balance` takes a restart (config-diff.js).
  const slotOf = (worker) => sup.pool.handles().find((h) => h.worker === worker)?.slot ?? null;
  const stopAdvice = adviseStickySessions({ config: () => ({ ...sup.config, balance: config.balance }), slotOf, report });
  return {
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
