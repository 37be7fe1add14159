// The composition root of the primary: it builds the parts, wires them to the one event stream and
// to each other, and sequences start, reload and stop. Each part owns its own side effect: the pool
// the workers' records, the recycler the recycle procedure, the drain every planned exit,
// crash-restarts the restart timers, exit-report the exit events and OOM reading, the tick loop the
// poll schedule. What people and scripts may ask of it is one surface, `api` (api.js).
import { EventEmitter } from 'node:events';
import { ADVICE, EVENTS, REASONS, SPAWN_CAUSES } from '../constants.js';
import { resolveTotalLimit } from '../core/policy/policy.js';
import { defaultTotalLimit } from '../core/policy/memory-budget.js';
import { oomGroupAdvice } from '../core/policy/fit.js';
import { newPolicyState } from '../core/policy/decide.js';
import { readCgroup, readOomKills, memoryHeadroom } from '../proc/cgroup.js';
import { DrainSnapshots } from './recycle/drain-snapshots.js';
import { Pool } from './lifecycle/pool.js';
import { sampler } from './tick/poller.js';
import { Recycler } from './recycle/recycler.js';
import { runTick } from './tick/tick.js';
import { TickLoop } from './tick/tick-loop.js';
import { HeapProber } from './recycle/heap-prober.js';
import { Inbox } from './tick/inbox.js';
import { CrashRestarts } from './lifecycle/crash-restarts.js';
import { ExitReport } from './lifecycle/exit-report.js';
import { ManualRecycles } from './recycle/manual-recycles.js';
import { reloadConfig } from './config-reload.js';
import { inspectWorker } from './inspect.js';
import { supervisorApi } from './api.js';
import { guardPool } from './lifecycle/orphan-guard.js';
import { watchStarts } from './lifecycle/starts.js';
import { resizeSlots } from './lifecycle/scale.js';
import { startRealtime } from './realtime/realtime.js';
import { createHistory } from '../report/history/history.js';
import { createSlotHistory } from '../report/history/slot-history.js';
import { createReadModel } from '../report/read-model.js';
import { createProfileWriter, READ_TIMEOUT_MS } from '../report/profiles/profile-writer.js';
import { diagnoseDir, diagnoseDirOf } from '../report/profiles/diagnose-dir.js';
import { readLiveSites } from './worker-profile.js';

export class Supervisor {
  /**
   * @param {import('../types.js').Config} config
   * @param {{output?: object|null, now?: () => number, loadConfig?: (() => Promise<object>)|null}} [deps]
   *   output: see Pool; loadConfig: re-reads the config the way it was first read (SIGHUP)
   */
  constructor(config, { output = null, now = Date.now, loadConfig = null } = {}) {
    this.config = config;
    this.loadConfig = loadConfig;
    this.now = now;
    /** The one event stream: ('event', fields, {level, msg, time}); the log, metrics and history listen. */
    this.events = new EventEmitter();
    this.history = createHistory(this.events, config.workers);
    this.slotHistory = createSlotHistory(this.events, { pollInterval: config.pollInterval });
    this.startedAt = now();
    this.stopping = null;
    this.fatal = null;
    this.forced = false;
    this.policy = newPolicyState(config.workers);
    this.cgroup = readCgroup();
    // Before any worker: the default memory limit leaves the primary what it takes (memory-budget.js).
    this.primaryRss = process.memoryUsage.rss();
    const report = (level, fields, msg) => this.log(level, fields, msg);
    this.pool = new Pool({ config, now, output });
    this.readModel = createReadModel({ workers: this.pool, events: this.events, history: this.history, slotHistory: this.slotHistory, run: { name: config.name, startedAt: this.startedAt }, now });
    // A pprof profile at each named leak and memory recycle, into diagnose.dir and for /debug/pprof/heap.
    const evidence = diagnoseDir(diagnoseDirOf(config), { privateParent: !config.diagnose?.dir });
    this.profiles = createProfileWriter({
      events: this.events, name: config.name, now, report,
      dir: evidence,
      readLive: ({ pid, kind }) => readLiveSites(this.pool, pid, kind, READ_TIMEOUT_MS),
    });
    // The slot history keeps the samples of each slot's serving worker.
    this.pool.on('sample', (x) => { if (x.current) this.events.emit('sample', x); });
    this.inbox = new Inbox();
    // What holds a leak: the heap snapshot a worker replaced for memory writes once drained.
    this.snapshots = new DrainSnapshots({ dir: evidence, config: () => this.config, report, oomGroup: this.cgroup.oomGroup, now });
    this.recycler = new Recycler({ pool: this.pool, sampler: sampler(this.pool, now), inbox: this.inbox, report, snapshots: this.snapshots, now });
    this.prober = new HeapProber({ pool: this.pool, inbox: this.inbox });
    this.restarts = new CrashRestarts({ pool: this.pool, report, now });
    this.exits = new ExitReport({ report, readOomKills, cgroupLimit: this.cgroup.memoryLimit, now });
    this.manual = new ManualRecycles({ recycler: this.recycler, pool: this.pool, report, now });
    this.api = supervisorApi({
      readModel: this.readModel, slotHistory: this.slotHistory, manual: this.manual, config: () => this.config, now,
      inspect: (slot, o) => inspectWorker({ pool: this.pool, config: () => this.config, now, judgementOf: (id) => this.readModel.judgementOf(id), retainersOf: (n) => this.readModel.retainersOf(n) }, slot, o),
      // A stop under way is joined, never forced: only a second signal forces.
      stop: () => this.stopping ?? this.stop('control'),
      liveWorkers: () => this.pool.live.size,
      events: this.events,
    });
    this.ticks = new TickLoop({
      run: (group) => this.#tick(group),
      settings: () => ({ pollInterval: this.nextPollMs ?? this.config.pollInterval, slots: this.pool.slots.length }),
      onError: (err) => this.log('error', { err }, 'poll tick failed'),
    });
    this.#apply(config);
    this.restarts.on('give-up', (err) => {
      this.fatal = err;
      this.stop('crash-loop');
    });
    watchStarts({ pool: this.pool, recycler: this.recycler, report, readyTimeout: () => this.config.recycle.readyTimeout, isStopping: () => Boolean(this.stopping) });
    this.pool.on('ready', (rec) => { if (this.pool.currentOf(rec.slot) === rec) this.restarts.ready(rec.slot); });
    this.pool.on('exit', (rec, info) => this.#onExit(rec, info));
    this.done = new Promise((resolve) => { this.resolveDone = resolve; });
  }

  /** Put an event (or a plain log line, without `event`) on the stream. */
  log(level, fields, msg) {
    this.events.emit('event', fields, { level, msg, time: this.now() });
  }

  /** Fork every slot and start polling. */
  start() {
    const { config } = this;
    this.log('info', {
      // `name` is on every line already (the logger's base).
      event: EVENTS.SUPERVISOR_START, primaryPid: process.pid, script: config.script, workers: config.workers,
      limits: config.limits, cgroupMemoryLimit: this.cgroup.memoryLimit, totalRssLimit: this.totalLimit,
      pollInterval: config.pollInterval, nodeArgs: config.nodeArgs, oomGroup: this.cgroup.oomGroup,
    });
    this.#sayDefaults();
    // Sticky balancing, socket.io's cluster adapter, their advice.
    this.realtime = startRealtime({ config, pool: this.pool, currentConfig: () => this.config, report: (level, fields, msg) => this.log(level, fields, msg) });
    this.pool.workerEnv = { ...this.pool.workerEnv, ...this.realtime.workerEnv };
    this.guard = guardPool(this.pool, (err) => {
      if (!this.stopping) this.log('warn', { err: err ?? undefined }, 'no orphan guard: if the primary is killed, a worker whose event loop is blocked may outlive it');
    });
    for (const s of this.pool.slots) this.pool.spawn(s.slot, SPAWN_CAUSES.INITIAL);
    this.ticks.start();
  }

  #onExit(rec, info) {
    const planned = this.exits.exited(rec, info);
    // Children the worker left behind: the agent SIGTERMs them on a clean exit, but not on SIGKILL.
    this.recycler.drain.reap(rec.tree.filter((p) => p.pid !== rec.pid));
    if (info.wasCurrent && !planned && !this.stopping) this.restarts.crashed(rec.slot, rec.stderrTail);
  }

  async #tick(group) {
    if (this.stopping) return;
    const { policy, pollMs, nextPollMs, judgements } = await runTick({
      group, pool: this.pool, recycler: this.recycler, prober: this.prober, inbox: this.inbox, config: this.config, now: this.now,
      policy: this.policy, totalLimit: this.totalLimit, cgroupLimit: this.cgroup.memoryLimit, headroom: memoryHeadroom,
      report: (level, fields, msg) => this.log(level, fields, msg), isStopping: () => Boolean(this.stopping),
    });
    this.policy = policy;
    this.nextPollMs = nextPollMs;
    if (judgements) this.events.emit('judged', judgements);
    if (pollMs !== null) this.events.emit('poll', { ms: pollMs, group: this.ticks.size });
    return pollMs;
  }

  /** SIGHUP: re-read the config and apply it (config-reload.js says how). */
  async reloadConfig() {
    if (this.stopping) return { applied: 'none' };
    const r = await reloadConfig(this.config, this.loadConfig ?? (async () => this.config));
    if (r.error) {
      this.log('error', r.event);
      return { applied: 'none', error: r.error };
    }
    if (this.stopping) return { applied: 'none' };
    const defaultBefore = this.memoryDefault?.bytes;
    this.#apply(r.next);
    if (this.memoryDefault && this.memoryDefault.bytes !== defaultBefore) this.#sayMemoryDefault();
    // The over-commit check runs again against the new limits and worker count.
    this.policy = { ...this.policy, advised: this.policy.advised.filter((code) => code !== ADVICE.OVERCOMMIT) };
    this.log('info', r.event);
    const onError = (err, slot) => this.log('error', { err, slot }, 'drain failed');
    if (r.diff.workers) {
      resizeSlots({ pool: this.pool, recycler: this.recycler, restarts: this.restarts, now: this.now, onError }, r.diff.workers.to);
      this.slotHistory.trim(r.diff.workers.to);
    }
    if (r.rolling) await this.manual.reload({ by: 'SIGHUP' });
    return { applied: r.rolling ? 'rolling' : 'live', changed: r.diff.changed };
  }

  #apply(config) {
    this.config = config;
    this.pool.configure(config);
    this.totalLimit = resolveTotalLimit(config.limits.totalRss, this.cgroup.memoryLimit);
    // No memory limit in the config, and a container limit: the kernel's OOM killer must not be the only one.
    this.memoryDefault = defaultTotalLimit(config.limits, { cgroupLimit: this.cgroup.memoryLimit, primaryRss: this.primaryRss, workers: config.workers });
    this.totalLimit ??= this.memoryDefault?.bytes ?? null;
    this.recycler.configure({ config, totalLimit: this.totalLimit });
    this.restarts.configure(config);
    this.exits.configure(config);
    this.events.emit('settings', { config, totalLimit: this.totalLimit, cgroupLimit: this.cgroup.memoryLimit });
  }

  // What was decided for the config rather than by it, said once with how to choose otherwise; and
  // what memory.oom.group means for the limits the config chose.
  #sayDefaults() {
    const { config, cgroup } = this;
    if (this.memoryDefault) this.#sayMemoryDefault();
    if (config.balanceFrom) {
      // A balance asked for and not given ('reuse-port' where it would drop connections) is a warning.
      this.log(config.balanceFrom.requested ? 'warn' : 'info', { event: EVENTS.CONFIG_DEFAULT, key: 'balance', value: config.balance, ...config.balanceFrom });
    }
    const advice = oomGroupAdvice({ oomGroup: cgroup.oomGroup, cgroupLimit: cgroup.memoryLimit, primaryRss: this.primaryRss, workers: config.workers, rssLimit: config.limits.rss });
    if (advice) this.log('warn', { event: EVENTS.ADVICE, ...advice });
  }

  #sayMemoryDefault() {
    const d = this.memoryDefault;
    this.log('info', {
      event: EVENTS.CONFIG_DEFAULT, key: 'limits.totalRss', value: d.bytes, cgroupMemoryLimit: d.cgroupLimit,
      primaryRss: d.primaryRss, margin: d.margin, snapshotBudget: d.snapshotBudget, workers: d.workers,
    });
  }

  /** A Snapshot for the status view, `status --json` and metrics (api.status()). */
  snapshot() {
    return this.readModel.snapshot();
  }

  /**
   * Drain every worker and resolve when all are gone. A second call forces. `evidence`: a worker
   * with a named heap or external leak writes a heap snapshot as it leaves, and the stop waits
   * for what it holds (`nodesup check`, whose report ends the run); a production stop does not.
   */
  stop(signal, { evidence = false } = {}) {
    if (this.stopping) {
      this.#forceStop();
      return this.stopping;
    }
    const t0 = this.now();
    this.ticks.stop();
    this.restarts.stop();
    this.recycler.stop();
    this.realtime?.stopping(); // the sticky balancer stops accepting
    this.events.emit('stopping');
    this.stopping = (async () => {
      await this.recycler.drain.all(t0, (err) => this.log('error', { err }, 'drain failed; the worker was killed'), evidence ? (rec) => this.#leavingSnapshot(rec) : null);
      // A snapshot's analysis does not hold a production stop: ended, and said so.
      if (!evidence) this.snapshots.stop();
      await Promise.allSettled([...this.snapshots.pending]);
      this.guard?.close();
      this.realtime?.stopped();
      this.log('info', { event: EVENTS.SUPERVISOR_STOP, signal: signal ?? null, durationMs: this.now() - t0, ...(this.fatal ? { error: this.fatal.code } : {}) });
      this.resolveDone();
    })();
    return this.stopping;
  }

  // The snapshot a worker leaving at a stop writes, when the tick named a heap or external leak in it.
  #leavingSnapshot(rec) {
    const leak = this.readModel.judgementOf(rec.id)?.leak;
    if (!leak) return null;
    const plan = this.snapshots.plan(rec, { reason: REASONS.LEAK, kind: leak.kind, sites: leak.sites });
    if (plan) this.snapshots.collect(plan, { exited: rec.exited, replacementReadyAt: null });
    return plan;
  }

  #forceStop() {
    this.forced = true;
    this.recycler.drain.forceAll();
  }
}
