// What holds a leak, read from the worker a recycle replaced: the drained worker serves no one and
// still holds the whole leak, so its heap snapshot costs users nothing. This is the one owner of
// those snapshots: whether a worker gets one (room for the writer's and the analyser's peaks, in
// the container and on disk), the file it writes before it exits (src/worker/drain/snapshot.js),
// the analyser run on it as a child at the lowest priority with a bounded heap
// (src/retainers/analyse-main.js), the `worker.retainers` event, and the file's removal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EVENTS, LEAK_KINDS, MEMORY_REASONS, REASONS } from '../../constants.js';
import { snapshotRoom, SNAPSHOT_COST } from '../../core/policy/snapshot-room.js';
import { memoryHeadroom } from '../../proc/cgroup.js';
import { diskFree } from '../../proc/disk.js';

const ANALYSER = fileURLToPath(new URL('../../retainers/analyse-main.js', import.meta.url));
const KEEP_SNAPSHOTS = 3; // with diagnose.keepSnapshots: the newest ones, the others removed
// One snapshot at a time, and one a slot in this long: a leak that recycles a worker every few
// seconds must not fill the disk and the CPU with snapshots of the same leak.
const SLOT_EVERY_MS = 10 * 60_000;
const MiB = 1024 * 1024;

/**
 * @typedef {{file:string, timeoutMs:number, hints:object, slot:number, pid:number, reason:string, kind:string|null}} SnapshotPlan
 */

export class DrainSnapshots {
  /**
   * @param {object} o
   * @param {{ready(): string}} o.dir  diagnose.dir (report/profiles/diagnose-dir.js), made and checked on first use
   * @param {() => import('../../types.js').Config} o.config
   * @param {(level:string, fields:object) => void} o.report
   * @param {boolean|null} o.oomGroup  memory.oom.group is 1
   * @param {() => number} [o.now]
   */
  constructor({ dir, config, report, oomGroup, now = Date.now }) {
    Object.assign(this, { dir, config, report, oomGroup, now });
    /** Analysers running: a stop ends them. */
    this.running = new Set();
    /** Everything under way (a snapshot waited for, its analysis): tests and a stop wait on it. */
    this.pending = new Set();
    /** When each slot's last snapshot was planned. */
    this.lastAt = new Map();
  }

  /**
   * Whether the worker `rec`, about to be drained for verdict `v`, writes a snapshot: a plan, or null
   * (out of scope, turned off, or refused, which is said as a `worker.retainers` event with the numbers).
   */
  plan(rec, v) {
    const { diagnose, recycle } = this.config();
    if (!diagnose.snapshots || !inScope(v)) return null;
    const base = { event: EVENTS.WORKER_RETAINERS, slot: rec.slot, pid: rec.pid, reason: v.reason, kind: v.kind ?? null };
    const lastAt = this.lastAt.get(rec.slot);
    if (this.pending.size || (lastAt != null && this.now() - lastAt < SLOT_EVERY_MS)) {
      this.report('debug', { ...base, taken: false, why: this.pending.size ? 'busy' : 'recent' });
      return null;
    }
    this.lastAt.set(rec.slot, this.now()); // a refusal too: said once in that time, not at every recycle
    const last = rec.window.last();
    const dir = this.#ensureDir();
    const room = snapshotRoom({
      heapUsed: last?.heapUsed ?? null, memoryHeadroom: memoryHeadroom(), diskFree: dir ? diskFree(dir) : 0,
      oomGroup: this.oomGroup, replacements: Math.max(0, recycle.maxConcurrent - 1),
    });
    if (!dir || !room.ok) {
      this.report('warn', { ...base, taken: false, why: dir ? room.code : 'dir', ...(room.needBytes != null ? { needBytes: room.needBytes, haveBytes: room.haveBytes } : {}), ...(room.oomGroup ? { oomGroup: true } : {}) });
      return null;
    }
    const stamp = new Date(this.now()).toISOString().replace(/[-:]/g, '');
    return {
      ...base, file: path.join(dir, `nodesup-${rec.slot}-${rec.pid}-${stamp}.heapsnapshot`), timeoutMs: diagnose.snapshotTimeout,
      hints: { kind: v.kind === LEAK_KINDS.EXTERNAL ? 'external' : 'heap', growthBytes: grownBytes(rec.window, v.kind), sites: (v.sites ?? []).map(({ fn, file, line }) => ({ fn, file, line })), cwd: rec.cwd },
    };
  }

  /**
   * Once the worker has exited (`exited`): what its snapshot cost, what the analyser found, said as
   * one `worker.retainers` event; the file removed unless kept. Never throws.
   * @param {SnapshotPlan} plan @param {{exited: Promise<unknown>, replacementReadyAt:number|null}} at
   */
  collect(plan, { exited, replacementReadyAt = null }) {
    const job = exited.then(() => this.#collect(plan, replacementReadyAt)).catch((err) => {
      this.report('warn', { event: EVENTS.WORKER_RETAINERS, slot: plan.slot, pid: plan.pid, taken: false, why: 'error', error: String(err?.message ?? err) });
    }).finally(() => this.pending.delete(job));
    this.pending.add(job);
    return job;
  }

  async #collect(plan, replacementReadyAt) {
    const base = { event: EVENTS.WORKER_RETAINERS, slot: plan.slot, pid: plan.pid, reason: plan.reason, kind: plan.kind };
    const side = readJson(`${plan.file}.json`);
    fs.rmSync(`${plan.file}.json`, { force: true });
    if (!side?.ok) {
      fs.rmSync(plan.file, { force: true });
      this.report('warn', { ...base, taken: false, why: side ? 'write-failed' : 'not-written', ...(side?.error ? { error: side.error } : {}) });
      return;
    }
    const written = { snapshotBytes: side.bytes, snapshotMs: side.writeMs, heapBytes: side.heapUsed, writerPeakRss: side.maxRss, openRequests: side.openRequests, began: side.began, replacementReadyAt };
    // The file goes (or is kept) before the event says what it held: a reader of the event finds
    // the directory as it will stay.
    let said;
    try {
      const found = await this.#analyse(plan, side.bytes);
      said = ['info', { ...base, taken: true, ...written, analysisMs: found.parseMs + found.analysisMs, analyserPeakRss: found.peakRssBytes ?? null, held: found.held, ...(this.config().diagnose.keepSnapshots ? { file: plan.file } : {}) }];
    } catch (err) {
      said = ['warn', { ...base, taken: true, ...written, analysed: false, error: String(err?.message ?? err).split('\n')[0] }];
    }
    this.#dispose(plan.file);
    this.report(...said);
  }

  // The analyser as a child: its own bounded heap, the lowest priority, killed if a stop comes.
  #analyse(plan, fileBytes) {
    const heapMiB = Math.ceil((fileBytes * SNAPSHOT_COST.analyse) / MiB) + 64;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [`--max-old-space-size=${heapMiB}`, ANALYSER, plan.file, '--hints', JSON.stringify(plan.hints)], { stdio: ['ignore', 'pipe', 'pipe'] });
      try { os.setPriority(child.pid, 19); } catch { /* not allowed here: it runs at ours */ }
      this.running.add(child);
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { err += d; });
      child.on('error', reject);
      child.on('close', (code, signal) => {
        this.running.delete(child);
        if (code === 0) {
          try { resolve(JSON.parse(out)); } catch (e) { reject(e); }
        } else reject(new Error(err.trim().split('\n')[0] || `the analyser exited with ${signal ?? code}`));
      });
    });
  }

  #dispose(file) {
    if (!this.config().diagnose.keepSnapshots) {
      fs.rmSync(file, { force: true });
      return;
    }
    const dir = path.dirname(file);
    const kept = fs.readdirSync(dir).filter((n) => /^nodesup-.+\.heapsnapshot$/.test(n))
      .map((n) => ({ f: path.join(dir, n), t: fs.statSync(path.join(dir, n)).mtimeMs })).sort((a, b) => b.t - a.t);
    for (const { f } of kept.slice(KEEP_SNAPSHOTS)) fs.rmSync(f, { force: true });
  }

  #ensureDir() {
    try {
      return this.dir.ready();
    } catch {
      return null;
    }
  }

  /** A stop: analysers still running are ended, their files removed. */
  stop() {
    for (const child of this.running) child.kill('SIGKILL');
  }
}

// A worker replaced for a memory limit, or for a named heap or external leak.
function inScope(v) {
  if (v.reason === REASONS.LEAK) return v.kind === LEAK_KINDS.HEAP || v.kind === LEAK_KINDS.EXTERNAL;
  return MEMORY_REASONS.has(v.reason);
}

// How much grew over the worker's kept history: what the analyser looks for.
function grownBytes(window, kind) {
  const field = kind === LEAK_KINDS.EXTERNAL ? 'external' : 'heapUsed';
  const first = window.samples.find((s) => s[field] != null);
  const last = window.last();
  const grown = first && last?.[field] != null ? last[field] - first[field] : 0;
  return grown > 0 ? grown : undefined;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
