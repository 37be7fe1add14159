// Preloaded into every worker with --import. Node built-ins only, unref'd timers, and it talks on
// the NODE_-prefixed internal channel so the app's own IPC messages are untouched (protocol.js).
// It says hello with the process's constants, answers the primary's requests (a poll's reply is
// built from the Sample's table: sample/reply.js), counts requests, and drains gracefully when
// told to (drain/drain.js).
import cluster from 'node:cluster';
import v8 from 'node:v8';
import dc from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { KIND, message, isOurs } from '../protocol.js';
import { descendantsOf } from '../proc/descendants.js';
import { toPrimary } from './to-primary.js';
import { watchThreads } from './sample/threads.js';
import { heapProfiler } from './sites/heap-profiler.js';
import { bufferSampler } from './sites/buffer-sampler.js';
import { confirm } from './sites/confirm.js';
import { fullGc, keepTickShapes, holdTickShapes } from './full-gc.js';
import { workerDrain, leaveOnPlannedDisconnect } from './drain/drain.js';
import { isSticky, stickyWorker, reportSession } from './balance/sticky.js';
import { isReusePort, reusePortWorker } from './balance/reuse-port.js';
import { loopDelay } from './sample/loop-delay.js';
import { cpuWait } from './sample/cpu-wait.js';
import { gcTotals } from './sample/gc.js';
import { replyOf, constants, fdKindsState } from './sample/reply.js';

const GC_SETTLE_MS = 50;

if (cluster.isWorker && typeof process.send === 'function') start();

function start() {
  holdTickShapes();
  const sticky = isSticky();
  const state = {
    requests: 0, heapFloor: null, elu: performance.eventLoopUtilization(), lastMajor: null,
    threads: watchThreads(), profiler: heapProfiler(), buffers: bufferSampler(), fdKinds: fdKindsState(),
    delay: loopDelay(), cpuWait: cpuWait(),
  };
  state.gc = gcTotals((major) => afterGc(state, major));
  if (isReusePort()) reusePortWorker();
  state.drain = workerDrain({
    balanced: sticky ? stickyWorker() : null,
    onEngine: (engine) => onEngine(engine, sticky),
    onStart: () => { state.profiler.stop(); state.buffers.stop(); },
  });
  dc.subscribe('http.server.request.start', ({ request, response, server }) => {
    state.requests++;
    state.drain.request(request, response, server);
  });
  answer(handlers(state));
  leaveOnPlannedDisconnect(state.drain);
  guardExit();
  toPrimary(message(KIND.HELLO, { pid: process.pid, node: process.version, ...constants() }));
  // The slot's last worker was recycled for memory: this one names what it retains from its birth.
  if (process.env.NODESUP_PROFILE === '1') state.profiler.sample().catch(() => {});
}

function afterGc(state, major) {
  // The heap just after a collection is the baseline a leak raises. Polls land anywhere in the
  // GC sawtooth, and polls that drift against it see a floor that climbs and wraps: a fake trend.
  const used = v8.getHeapStatistics().used_heap_size;
  if (state.heapFloor === null || used < state.heapFloor) state.heapFloor = used;
  // After a full collection the heap is what the app retains: a confirmation probe that comes
  // soon after uses this instead of forcing another GC.
  if (major) state.lastMajor = { at: Date.now(), used };
}

// What the agent answers, by request kind.
function handlers(state) {
  return {
    [KIND.STATS]: (req) => replyOf(state, { detail: req.detail, full: req.full }),
    [KIND.GC]: async (req) => {
      const before = process.memoryUsage();
      // Twice: dropped Buffers leave `external` only at the full GC after
      // the one that found them dead (Node 20, 24 and 26, measured), so one GC would recycle a
      // worker whose memory was only Buffer garbage.
      fullGc();
      fullGc();
      // Freed Buffers' backing stores are released after the GC, in a task of their own: read the
      // breakdown once that has run, or freed memory still reads as "external" (docs/incidents.md, incident 2).
      await new Promise((resolve) => setTimeout(resolve, GC_SETTLE_MS));
      return { before, after: replyOf(state, { detail: req.detail }) };
    },
    [KIND.CONFIRM]: (req) => confirm(state, req),
    // Retained sites now, without a GC: what a worker recycled for memory held (read at the decision).
    [KIND.SITES]: async (req) => {
      if (req.start) {
        await state.profiler.sample();
        return { started: state.profiler.via !== null, profiler: state.profiler.reason };
      }
      // buffers: the Buffer sampler's table too, while it runs (a pprof profile of an external leak).
      return { profile: state.profiler.via ? await state.profiler.sample() : null, profiler: state.profiler.reason, ...(req.buffers ? { buffers: state.buffers.read() } : {}) };
    },
    [KIND.DRAIN]: (req) => { state.drain.start(req); return { draining: true }; },
    [KIND.HEAP_SNAPSHOT]: (req) => { keepTickShapes(); return { file: v8.writeHeapSnapshot(req.file) }; },
    [KIND.HELD]: () => state.drain.held.snapshot(),
  };
}

// Requests on the internal channel, each answered with a REPLY of its id, sync or async alike.
function answer(handlersByKind) {
  process.on('internalMessage', (msg) => {
    if (!isOurs(msg) || !handlersByKind[msg.kind]) return;
    let result;
    try {
      result = handlersByKind[msg.kind](msg);
    } catch (err) {
      return toPrimary(message(KIND.REPLY, { id: msg.id, ok: false, error: String(err?.message ?? err) }));
    }
    if (typeof result?.then !== 'function') return toPrimary(message(KIND.REPLY, { id: msg.id, ok: true, result }));
    result.then(
      (r) => toPrimary(message(KIND.REPLY, { id: msg.id, ok: true, result: r })),
      (err) => toPrimary(message(KIND.REPLY, { id: msg.id, ok: false, error: String(err?.message ?? err) })),
    );
  });
}

function guardExit() {
  // Children do not follow their parent out. If we exit because the primary is gone nobody else
  // will reap them, so they get SIGKILL; otherwise SIGTERM and the primary follows up. The primary
  // is gone when the channel is, or when this worker has a new parent: a worker can die (of the
  // app's own write to a closed pipe, say) before it has read the channel's EOF.
  const primary = process.ppid;
  process.on('exit', () => {
    const orphaned = !cluster.worker.exitedAfterDisconnect && (!process.connected || process.ppid !== primary);
    for (const pid of descendantsOf(process.pid)) {
      try { process.kill(pid, orphaned ? 'SIGKILL' : 'SIGTERM'); } catch { /* already gone */ }
    }
  });
  // Ctrl-C in a terminal signals the whole process group. The primary turns it into a drain; a
  // worker dying on it at once would drop its in-flight requests.
  // A closed terminal sends SIGHUP to the group likewise: the primary owns the workers' lives, and
  // they still exit when its IPC channel closes.
  process.on('SIGINT', () => {});
  process.on('SIGHUP', () => {});
}

// The primary learns that the app serves engine.io, and whether it long-polls (which needs sticky
// sessions across workers); with balance: 'sticky', where each of its sessions lives.
function onEngine(engine, sticky) {
  const polling = (engine.opts?.transports ?? ['polling']).includes('polling');
  toPrimary(message(KIND.ENGINE, { polling }));
  if (!sticky) return;
  engine.on('connection', (session) => {
    reportSession(session.id, true);
    session.once('close', () => reportSession(session.id, false));
  });
}
