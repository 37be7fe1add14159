// The composition root of the primary: wires the pool, the poll loop, the policies, the recycler,
// crash restarts and shutdown. Decisions come from src/core; this file only sequences them.
import { EventEmitter } from 'node:events';
import { EVENTS, REASONS, RETIRE, SPAWN_CAUSES, STATES } from '../constants.js';
import { NodesupError } from '../errors.js';
import { memoryVerdict, resolveTotalLimit, evaluateFleet } from '../core/policy.js';
import { restartDelay, crashesInWindow, shouldGiveUp } from '../core/backoff.js';
import { newPolicyState } from '../core/decide.js';
import { diffConfig } from '../core/config-diff.js';
import { DurationRing } from '../core/duration-ring.js';
import { parseSlot } from '../slot.js';
import { readCgroup, readOomKills } from '../proc/cgroup.js';
import { oomAdvice } from '../core/fit.js';
import { Pool } from './pool.js';
import { sampleOne, treeRssNow } from './poller.js';
import { Recycler } from './recycler.js';
import { runTick, servingWorkers, pollGroups } from './tick.js';
import { HeapProber } from './heap-prober.js';
import { buildSnapshot } from './snapshot.js';
import { describeHeldBy } from './held-by.js';
import { startOrphanGuard } from './orphan-guard.js';
import { startRealtime } from './realtime.js';
import { createHistory } from '../report/history.js';

const STOP = RETIRE.STOP;
// Planned exits that are not recycles: a stop's, a scale-down's, a spare's.
const NOT_RECYCLES = new Set(Object.values(RETIRE));

export class Supervisor {
  /**
   * @param {import('../types.js').Config} config
   * @param {{output?: object|null, now?: () => number}} [deps]  output: see Pool
   */
  constructor(config, { output = null, now = Date.now, loadConfig = null } = {}) {
    this.config = config;
    // Re-reads the config the way it was first read (file, flags): SIGHUP's config reload.
    this.loadConfig = loadConfig;
    this.now = now;
    /** The one event stream: ('event', fields, {level, msg, time}); the log, metrics and history listen. */
    this.events = new EventEmitter();
    this.history = createHistory(this.events, config.workers);
    this.startedAt = now();
    this.stopping = null;
    this.fatal = null;
    this.forced = false;
    this.crashTimes = [];
    this.policy = newPolicyState(config.workers);
    // The app's recent startup times (spawn → ready), newest last: what a replacement will take.
    this.startups = [];
    // The recent ticks only: a summary over startup would say little about steady cost.
    this.pollStats = new DurationRing(120);
    // The group of slots the last tick polled (tick.js: past 16 workers the groups take turns).
    this.tickGroup = -1;
    this.cgroup = readCgroup();
    // The kernel's OOM kills seen so far in our cgroup: a rise at a worker's SIGKILL names the killer.
    this.oomKills = readOomKills();
    this.totalLimit = resolveTotalLimit(config.limits.totalRss, this.cgroup.memoryLimit);
    this.slots = Array.from({ length: config.workers }, (_, slot) => ({
      slot, current: null, consecutiveCrashes: 0, restartTimer: null, cooldownUntil: 0,
    }));
    this.pool = new Pool({ config, now, output });
    this.recycler = new Recycler({
      pool: this.pool, config, slots: this.slots, now, isStopping: () => Boolean(this.stopping),
      report: (level, fields, msg) => this.emit(level, fields, msg),
      spawn: (slot, cause) => this.#spawn(slot, cause),
      sample: (h, stats, { detail }) => sampleOne(this.pool, h, stats, { detail, now }),
      treeRss: treeRssNow,
      stillOver: (h, v) => (v.reason === REASONS.TOTAL_RSS
        ? evaluateFleet(servingWorkers(this.slots, now()).map((w) => ({ slot: w.slot, sample: w.window.last() })), this.totalLimit) !== null
        : memoryVerdict(h.window, { ...this.config.limits, sustain: 0 }, now()) !== null),
    });
    this.prober = new HeapProber({ pool: this.pool });
    this.pool.on('ready', (h) => this.#onReady(h));
    this.pool.on('exit', (h, info) => this.#onExit(h, info));
    this.done = new Promise((resolve) => { this.resolveDone = resolve; });
  }

  /** Put an event (or a plain log line, without `event`) on the stream. */
  emit(level, fields, msg) {
    this.events.emit('event', fields, { level, msg, time: this.now() });
  }

  /** Fork every slot and start polling. */
  start() {
    const { config } = this;
    this.emit('info', {
      // `name` is on every line already (the logger's base).
      event: EVENTS.SUPERVISOR_START, primaryPid: process.pid, script: config.script, workers: config.workers,
      limits: config.limits, cgroupMemoryLimit: this.cgroup.memoryLimit, totalRssLimit: this.totalLimit,
      pollInterval: config.pollInterval, nodeArgs: config.nodeArgs,
    }, `nodesup ${config.name}: ${config.workers} workers of ${config.script}`);
    this.guard = startOrphanGuard({ onError: (err) => this.#guardLost(err) });
    this.realtime = startRealtime(this); // sticky balancing, socket.io's cluster adapter, their advice
    if (this.guard.pid === null) this.#guardLost(new Error('no /bin/sh or no /proc here'));
    for (const s of this.slots) this.#spawn(s.slot, SPAWN_CAUSES.INITIAL);
    this.#scheduleTick();
  }

  #spawn(slot, cause) {
    const h = this.pool.spawn(slot);
    this.#guardWorkers();
    if (cause !== SPAWN_CAUSES.REPLACE) this.slots[slot].current = h;
    this.emit('info', { event: EVENTS.WORKER_SPAWN, slot, pid: h.pid, cause }, `slot ${slot}: spawned pid ${h.pid} (${cause})`);
    if (cause !== SPAWN_CAUSES.REPLACE) {
      // A replacement's readiness is the recycler's to judge; a first start or a restart is ours.
      this.pool.whenReady(h, this.config.recycle.readyTimeout).then((ok) => {
        if (!ok && h.state === STATES.SPAWNING && !this.stopping) this.recycler.forceKill(h, { notReady: true });
      });
    }
    return h;
  }

  #onReady(h) {
    this.emit('info', { event: EVENTS.WORKER_READY, slot: h.slot, pid: h.pid, startupMs: h.readyAt - h.startedAt }, `slot ${h.slot}: pid ${h.pid} ready`);
    const s = this.slots[h.slot];
    if (s?.current === h) s.consecutiveCrashes = 0;
    this.startups.push(h.readyAt - h.startedAt);
    if (this.startups.length > 5) this.startups.shift();
  }

  #onExit(h, { code, signal }) {
    const now = this.now();
    const planned = h.retiring !== null;
    const s = this.slots[h.slot];
    const fields = {
      event: EVENTS.WORKER_EXIT, slot: h.slot, pid: h.pid, code, signal, planned, forced: h.forced,
      drainMs: h.drainStartedAt ? now - h.drainStartedAt : null,
    };
    // A recycle's exit carries its reason (and is counted as one); a stop's does not.
    if (planned && !NOT_RECYCLES.has(h.retiring.reason)) Object.assign(fields, { reason: h.retiring.reason, recycleMs: now - h.retiring.decidedAt });
    if (h.notReady) fields.notReady = true;
    if (h.heldBy) fields.heldBy = h.heldBy;
    const oomKill = this.#oomKilled(h, signal);
    if (oomKill) fields.oomKill = true;
    this.emit(planned ? 'info' : 'warn', fields, `slot ${h.slot}: pid ${h.pid} exited (${signal ?? code})${describeHeldBy(h.heldBy)}${oomKill ? ', killed by the kernel\'s OOM killer' : ''}`);
    if (oomKill) {
      const a = oomAdvice({ slot: h.slot, lastRss: h.window.last()?.treeRss ?? null, rssLimit: this.config.limits.rss, cgroupLimit: this.cgroup.memoryLimit, workers: this.config.workers });
      this.emit('warn', { event: EVENTS.ADVICE, slot: h.slot, pid: h.pid, code: a.code }, a.message);
    }
    this.#guardWorkers();
    // Children the worker left behind: the agent SIGTERMs them on a clean exit, but not on SIGKILL.
    this.recycler.reap(h.tree.filter((p) => p.pid !== h.pid));
    if (!s || s.current !== h || this.stopping) return;
    s.current = null;
    if (planned) return;
    this.#crashed(s, h, now);
  }

  // A SIGKILL we did not send, while the cgroup's oom_kill counter rose: the kernel's OOM killer.
  // Each such exit takes one from the rise, so two workers killed at once are both named; any
  // other exit re-reads the counter, so a child's OOM kill is never pinned on a later worker.
  #oomKilled(h, signal) {
    const now = readOomKills();
    if (now === null) return false;
    if (signal !== 'SIGKILL' || h.forced || this.oomKills === null || now <= this.oomKills) {
      if (signal !== 'SIGKILL') this.oomKills = now;
      else this.oomKills ??= now;
      return false;
    }
    this.oomKills++;
    return true;
  }

  #guardWorkers() {
    // A worker's start time is read once: the guard is told again on every spawn and exit.
    this.guard?.update(this.pool.handles().map((h) => ({ pid: h.pid, start: h.procStart })));
  }

  #guardLost(err) {
    if (this.stopping) return;
    this.emit('warn', { err: err ?? undefined }, 'no orphan guard: if the primary is killed, a worker whose event loop is blocked may outlive it');
  }

  #crashed(s, h, now) {
    this.crashTimes = crashesInWindow(this.crashTimes, now, this.config.restart.crashWindow);
    this.crashTimes.push(now);
    s.consecutiveCrashes++;
    if (shouldGiveUp(this.crashTimes.length, this.config.restart)) {
      const tail = h.stderrTail.trim().split('\n').slice(-20).join('\n');
      this.fatal = new NodesupError('NODESUP_ERR_CRASH_LOOP',
        `workers crashed ${this.crashTimes.length} times within ${this.config.restart.crashWindow} ms; giving up`);
      this.fatal.appError = tail;
      this.stop('crash-loop');
      return;
    }
    const delayMs = restartDelay(s.consecutiveCrashes, this.config.restart);
    this.emit('warn', { event: EVENTS.WORKER_RESTART, slot: s.slot, delayMs, crashesInWindow: this.crashTimes.length }, `slot ${s.slot}: restarting in ${delayMs} ms`);
    s.restartTimer = setTimeout(() => {
      s.restartTimer = null;
      if (!this.stopping && !s.current) this.#spawn(s.slot, SPAWN_CAUSES.RESTART);
    }, delayMs);
  }

  #scheduleTick() {
    if (this.stopping) return;
    // ±10 % jitter: a poll period drifting in lockstep against a periodic workload (a 4 s GC
    // sawtooth) keeps landing on the same phase and turns the sawtooth into a fake trend.
    const delay = (this.config.pollInterval / pollGroups(this.slots.length)) * (0.9 + 0.2 * Math.random());
    this.tickTimer = setTimeout(() => this.#tick().catch((err) => {
      this.emit('error', { err }, 'poll tick failed');
    }).finally(() => this.#scheduleTick()), delay);
  }

  async #tick() {
    const of = pollGroups(this.slots.length);
    this.tickGroup = (this.tickGroup + 1) % of;
    const { policy, pollMs } = await runTick({
      group: { index: this.tickGroup, of },
      pool: this.pool, slots: this.slots, recycler: this.recycler, prober: this.prober, config: this.config, now: this.now,
      policy: this.policy, totalLimit: this.totalLimit, cgroupLimit: this.cgroup.memoryLimit,
      // The slowest of the last few: a forecast that allows too little time overshoots the limit.
      startupMs: this.startups.length ? Math.max(...this.startups) : null,
      report: (level, fields, msg) => this.emit(level, fields, msg), isStopping: () => Boolean(this.stopping),
    });
    this.policy = policy;
    if (pollMs !== null) this.pollStats.record(pollMs);
  }

  /** Recycle one slot now (control socket, `nodesup recycle`). */
  async recycleSlot(raw, reason = REASONS.MANUAL) {
    const slot = parseSlot(raw, this.slots.length);
    this.pendingRecycles ??= new Map();
    const pending = this.pendingRecycles.get(slot);
    if (pending) return pending;
    const p = this.recycler.recycleWhenRoom(slot, { reason, value: null, limit: null })
      .then((result) => ({ slot, reason, result }))
      .finally(() => this.pendingRecycles.delete(slot));
    this.pendingRecycles.set(slot, p);
    return p;
  }

  /** Rolling restart of every slot, at most maxConcurrent at a time. */
  async reload() {
    const queue = this.slots.map((s) => s.slot);
    const results = [];
    const lanes = Array.from({ length: this.config.recycle.maxConcurrent }, async () => {
      while (queue.length && !this.stopping) results.push(await this.recycleSlot(queue.shift(), REASONS.RELOAD));
    });
    await Promise.all(lanes);
    return { reloaded: results.filter((r) => r.result === 'recycled').length, results };
  }

  /**
   * SIGHUP: re-read the config. A broken file changes nothing (config.invalid). Limits and timings
   * apply at the next tick; the app's settings (script, args, env, nodeArgs) roll the workers; a new
   * worker count adds or drains slots. With nothing changed the workers roll, as SIGHUP always did:
   * it is how a deploy of new app code is picked up (gunicorn's HUP does the same).
   */
  async reloadConfig() {
    if (this.stopping) return { applied: 'none' };
    const file = this.config.configFile;
    let next;
    try {
      next = await (this.loadConfig ?? (async () => this.config))();
    } catch (err) {
      this.emit('error', { event: EVENTS.CONFIG_INVALID, file, error: err.message }, `config not reloaded, the running one stays: ${err.message}`);
      return { applied: 'none', error: err.message };
    }
    if (this.stopping) return { applied: 'none' };
    const diff = diffConfig(this.config, next);
    const rolling = diff.rolling.length > 0 || diff.changed.length === 0;
    // Keys bound at start keep their running values; the reload says so.
    const applied = { ...next, name: this.config.name, metrics: this.config.metrics, log: this.config.log, tui: this.config.tui };
    this.#apply(applied);
    // The over-commit check runs again against the new limits and worker count.
    this.policy = { ...this.policy, advised: this.policy.advised.filter((code) => code !== 'overcommit') };
    this.emit('info', {
      event: EVENTS.CONFIG_RELOAD, file, changed: diff.changed, applied: rolling ? 'rolling' : 'live',
      ...(diff.workers ? { workers: diff.workers } : {}), ...(diff.needsRestart.length ? { needsRestart: diff.needsRestart } : {}),
    }, `config reloaded${diff.changed.length ? `: ${diff.changed.join(', ')}` : ' (unchanged)'}${rolling ? '; rolling the workers' : '; applied live'}`);
    if (diff.workers) this.#resize(diff.workers.from, diff.workers.to);
    if (rolling) await this.reload();
    return { applied: rolling ? 'rolling' : 'live', changed: diff.changed };
  }

  #apply(config) {
    this.config = config;
    this.pool.configure(config);
    this.recycler.config = config;
    this.recycler.gcMinIntervalMs = Math.max(60_000, 30 * config.pollInterval);
    this.totalLimit = resolveTotalLimit(config.limits.totalRss, this.cgroup.memoryLimit);
  }

  // More slots are forked at once; fewer drain the highest slots, which are then forgotten.
  #resize(from, to) {
    for (let slot = from; slot < to; slot++) {
      this.slots[slot] = { slot, current: null, consecutiveCrashes: 0, restartTimer: null, cooldownUntil: 0 };
      this.policy = { ...this.policy, slots: [...this.policy.slots, { streak: 0 }] };
      this.#spawn(slot, SPAWN_CAUSES.INITIAL);
    }
    if (to >= from) return;
    const gone = this.slots.slice(to);
    for (const s of gone) clearTimeout(s.restartTimer);
    this.slots.length = to;
    this.policy = { ...this.policy, slots: this.policy.slots.slice(0, to) };
    for (const s of gone) {
      for (const h of this.pool.handles().filter((x) => x.slot === s.slot)) {
        this.recycler.retire(h, { reason: STOP, decidedAt: this.now() }).catch((err) => this.emit('error', { err, slot: s.slot }, 'drain failed'));
      }
    }
  }

  /** A Snapshot for the status view, `status --json` and metrics. */
  snapshot() {
    return buildSnapshot({
      config: this.config, slots: this.slots, handles: this.pool.handles(), now: this.now(), startedAt: this.startedAt,
      totalLimit: this.totalLimit, cgroupLimit: this.cgroup.memoryLimit, history: this.history, pollStats: this.pollStats,
      stopping: Boolean(this.stopping), leakOf: (h) => this.leakOf(h),
    });
  }

  /** The latest leak the tick named in h (kind, rate, fit, sites or types), or null. */
  leakOf(h) {
    return this.policy.workers[h.pid]?.leak ?? null;
  }

  /** True while at least one worker serves. */
  isReady() {
    return this.slots.some((s) => s.current?.state === STATES.READY);
  }

  /** Drain every worker and resolve when all are gone. A second call forces. */
  stop(signal) {
    if (this.stopping) {
      this.#forceStop();
      return this.stopping;
    }
    const t0 = this.now();
    clearTimeout(this.tickTimer);
    this.realtime?.stopping(); // the sticky balancer stops accepting
    this.stopping = (async () => {
      for (const s of this.slots) clearTimeout(s.restartTimer);
      // allSettled: one worker that cannot be drained must not leave the others undrained.
      // Again until none is left: a recycle already past its checks may still fork a replacement.
      while (this.pool.live.size) {
        const retired = await Promise.allSettled(this.pool.handles().map((h) => this.recycler.retire(h, { reason: STOP, decidedAt: t0 })));
        for (const r of retired) if (r.status === 'rejected') this.emit('error', { err: r.reason }, 'drain failed; the worker was killed');
        if (retired.some((r) => r.status === 'rejected')) this.#forceStop();
      }
      await Promise.all(this.recycler.reaping);
      this.guard?.close();
      this.realtime?.stopped();
      this.emit('info', { event: EVENTS.SUPERVISOR_STOP, signal: signal ?? null, durationMs: this.now() - t0, ...(this.fatal ? { error: this.fatal.code } : {}) }, 'nodesup stopped');
      this.resolveDone();
    })();
    return this.stopping;
  }

  #forceStop() {
    this.forced = true;
    for (const h of this.pool.handles()) this.recycler.forceKill(h);
  }
}

