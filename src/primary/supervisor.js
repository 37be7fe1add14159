// The composition root of the primary: wires the pool, the poll loop, the policies, the recycler,
// crash restarts and shutdown. Decisions come from src/core; this file only sequences them.
import { EventEmitter } from 'node:events';
import { EVENTS, REASONS, SPAWN_CAUSES, STATES, MEMORY_REASONS } from '../constants.js';
import { NodesupError } from '../errors.js';
import { evaluateWorker, evaluateFleet, memoryVerdict, resolveTotalLimit, baselineHold } from '../core/policy.js';
import { planRecycles } from '../core/recycle-plan.js';
import { restartDelay, crashesInWindow, shouldGiveUp } from '../core/backoff.js';
import { readCgroup, readCgroupMemoryCurrent } from '../config/cgroup.js';
import { Pool } from './pool.js';
import { pollOnce } from './poller.js';
import { Recycler } from './recycler.js';
import { stillAlive } from './kill-tree.js';
import { buildSnapshot } from './snapshot.js';
import { DurationRing } from '../core/duration-ring.js';
import { leakVerdict, maybeAdvise, workerTrend } from './leak-watch.js';
import { startOrphanGuard } from './orphan-guard.js';
import { startTime } from '../proc/memory.js';

export class Supervisor {
  /** @param {import('../types.js').Config} config @param {{logger: import('pino').Logger, stdout?: any}} deps */
  constructor(config, { logger, stdout = 'inherit', stderr = process.stderr, now = Date.now }) {
    this.config = config;
    this.logger = logger;
    this.now = now;
    this.events = new EventEmitter();
    this.startedAt = now();
    this.stopping = null;
    this.fatal = null;
    this.crashTimes = [];
    this.counters = { recycles: {}, restarts: 0 };
    this.recentRecycles = [];
    this.advised = new Set();
    // The recent ticks only: a summary over startup would say little about steady cost.
    this.pollStats = new DurationRing(120);
    this.cgroup = readCgroup();
    this.totalLimit = resolveTotalLimit(config.limits.totalRss, this.cgroup.memoryLimit);
    this.slots = Array.from({ length: config.workers }, (_, slot) => ({
      slot, current: null, consecutiveCrashes: 0, restartTimer: null, cooldownUntil: 0, streak: 0, recycles: 0, restarts: 0,
    }));
    this.pool = new Pool({ config, now, stdout, stderr });
    this.recycler = new Recycler({
      pool: this.pool, config, slots: this.slots, now, isStopping: () => Boolean(this.stopping),
      spawn: (slot, cause) => this.#spawn(slot, cause),
      stillOver: (h, v) => v.reason === REASONS.TOTAL_RSS ? this.#fleetVerdict() !== null : memoryVerdict(h.window, { ...config.limits, sustain: 0 }, now()) !== null,
    });
    this.recycler.on('event', (level, fields, msg) => this.emit(level, fields, msg));
    this.pool.on('ready', (h) => this.#onReady(h));
    this.pool.on('exit', (h, info) => this.#onExit(h, info));
    this.done = new Promise((resolve) => { this.resolveDone = resolve; });
  }

  /** Log an event and hand it to listeners (metrics, status). */
  emit(level, fields, msg) {
    this.logger[level](fields, msg);
    const event = { time: this.now(), ...fields };
    if (fields.event === EVENTS.WORKER_RECYCLE) {
      this.recentRecycles.push(event);
      if (this.recentRecycles.length > 20) this.recentRecycles.shift();
    }
    this.events.emit('event', event);
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
        if (!ok && h.state === STATES.SPAWNING && !this.stopping) {
          h.notReady = true;
          this.recycler.forceKill(h);
        }
      });
    }
    return h;
  }

  #onReady(h) {
    this.emit('info', { event: EVENTS.WORKER_READY, slot: h.slot, pid: h.pid, startupMs: h.readyAt - h.startedAt }, `slot ${h.slot}: pid ${h.pid} ready`);
    const s = this.slots[h.slot];
    if (s.current === h) s.consecutiveCrashes = 0;
  }

  #onExit(h, { code, signal }) {
    const now = this.now();
    const planned = h.retiring !== null;
    const s = this.slots[h.slot];
    const fields = {
      event: EVENTS.WORKER_EXIT, slot: h.slot, pid: h.pid, code, signal, planned, forced: h.forced,
      drainMs: h.drainStartedAt ? now - h.drainStartedAt : null,
    };
    if (planned) Object.assign(fields, { reason: h.retiring.reason, recycleMs: now - h.retiring.decidedAt });
    if (h.notReady) fields.notReady = true;
    this.emit(planned ? 'info' : 'warn', fields, `slot ${h.slot}: pid ${h.pid} exited (${signal ?? code})`);
    this.#guardWorkers();
    // Children the worker left behind: the agent SIGTERMs them on a clean exit, but not on SIGKILL.
    this.recycler.reap(h.tree.filter((p) => p.pid !== h.pid));
    if (planned && h.retiring.reason !== 'stop') {
      s.recycles++;
      this.counters.recycles[h.retiring.reason] = (this.counters.recycles[h.retiring.reason] ?? 0) + 1;
    }
    if (s.current !== h || this.stopping) return;
    s.current = null;
    if (planned) return;
    this.#crashed(s, h, now);
  }

  #guardWorkers() {
    // A worker's start time is read once: the guard is told again on every spawn and exit.
    this.guard?.update(this.pool.handles().map((h) => ({ pid: h.pid, start: (h.procStart ??= startTime(h.pid)) })));
  }

  #guardLost(err) {
    if (this.stopping) return;
    this.logger.warn({ err: err ?? undefined }, 'no orphan guard: if the primary is killed, a worker whose event loop is blocked may outlive it');
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
    s.restarts++;
    this.counters.restarts++;
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
    const delay = this.config.pollInterval * (0.9 + 0.2 * Math.random());
    this.tickTimer = setTimeout(() => this.#tick().catch((err) => {
      this.logger.error({ err }, 'poll tick failed');
    }).finally(() => this.#scheduleTick()), delay);
  }

  async #tick() {
    const handles = this.pool.handles().filter((h) => h.state !== STATES.EXITED);
    if (!handles.length) return;
    const t0 = performance.now();
    await pollOnce(this.pool, handles, { timeoutMs: Math.max(200, Math.min(this.config.pollInterval, 5000)), now: this.now });
    this.pollStats.record(performance.now() - t0);
    if (this.stopping) return;
    this.cgroupCurrent = readCgroupMemoryCurrent();
    const now = this.now();
    const wanted = [];
    for (const s of this.slots) {
      const h = s.current;
      if (!h || h.state !== STATES.READY || now < s.cooldownUntil) continue;
      maybeAdvise(this, h, now);
      const v = this.#workerVerdict(s, h, now);
      if (v) wanted.push({ slot: s.slot, trend: workerTrend(h, this.config, now), ...v });
    }
    const fleet = this.#fleetVerdict();
    if (fleet && !wanted.some((w) => w.slot === fleet.slot)) wanted.push(fleet);
    const { start } = planRecycles(wanted, this.recycler.busy, this.config.recycle.maxConcurrent);
    for (const v of start) {
      this.recycler.recycle(v.slot, v).catch((err) => this.logger.error({ err, slot: v.slot }, 'recycle failed'));
    }
  }

  #workerVerdict(s, h, now) {
    const v = evaluateWorker(h, this.config, now);
    if (v && MEMORY_REASONS.has(v.reason)) {
      if (h.firstOverAt === null) {
        h.firstOverAt = now;
        h.firstOverValue = v.value;
      }
      const hold = baselineHold({ ...h, value: v.value }, s, now, { pollInterval: this.config.pollInterval, baseGraceMs: Math.max(30_000, 10 * this.config.pollInterval), maxGraceMs: 30 * 60_000 });
      if (hold.hold) {
        if (!h.baselineWarned) {
          h.baselineWarned = true;
          this.emit('warn', { event: EVENTS.LIMIT_BELOW_BASELINE, slot: s.slot, pid: h.pid, reason: v.reason, value: v.value, limit: v.limit, holdMs: hold.graceMs },
            `slot ${s.slot}: over the ${v.reason} limit right after start; the limit is below the app's baseline. Holding recycles for ${hold.graceMs} ms`);
        }
        return null;
      }
      s.streak = hold.young ? s.streak + 1 : 0;
      return v;
    }
    if (v) return v;
    return leakVerdict(this, s, h, now);
  }

  #fleetVerdict() {
    const serving = this.slots.filter((s) => s.current?.state === STATES.READY).map((s) => ({ slot: s.slot, sample: s.current.window.last() }));
    return evaluateFleet(serving, this.totalLimit);
  }

  /** Recycle one slot now (control socket, `nodesup recycle`). */
  async recycleSlot(slot, reason = REASONS.MANUAL) {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.slots.length) {
      throw new NodesupError('NODESUP_ERR_USAGE', `slot: expected 0..${this.slots.length - 1}, got ${JSON.stringify(slot)}`);
    }
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

  /** A Snapshot for the status view, `status --json` and metrics. */
  snapshot() {
    return buildSnapshot(this);
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
    this.stopping = (async () => {
      for (const s of this.slots) clearTimeout(s.restartTimer);
      // allSettled: one worker that cannot be drained must not leave the others undrained.
      // Again until none is left: a recycle already past its checks may still fork a replacement.
      while (this.pool.live.size) {
        const retired = await Promise.allSettled(this.pool.handles().map((h) => this.recycler.retire(h, { reason: 'stop', decidedAt: t0 })));
        for (const r of retired) if (r.status === 'rejected') this.logger.error({ err: r.reason }, 'drain failed; the worker was killed');
        if (retired.some((r) => r.status === 'rejected')) this.#forceStop();
      }
      await Promise.all(this.recycler.reaping);
      this.guard?.close();
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

