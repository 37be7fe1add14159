// Preloaded into every worker with --import. Node built-ins only, unref'd timers, and it talks on
// the NODE_-prefixed internal channel so the app's own IPC messages are untouched (protocol.js).
// It answers the primary's requests, counts requests, and makes a drain graceful: no keep-alive
// socket is closed under a client that may be sending on it.
import cluster from 'node:cluster';
import v8 from 'node:v8';
import dc from 'node:diagnostics_channel';
import { performance, PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { KIND, message, isOurs } from '../protocol.js';
import { childrenOf, descendantsOf } from '../proc/descendants.js';
import { readMemory, countFds } from '../proc/memory.js';
import { fdKinds } from '../proc/fds.js';
import { countCommands } from '../proc/cmdline.js';
import { hooks, runShutdownHooks } from './hooks.js';
import { watchThreads } from './sample/threads.js';
import { heapProfiler } from './sites/heap-profiler.js';
import { bufferSampler } from './sites/buffer-sampler.js';
import { confirm } from './sites/confirm.js';
import { fullGc } from './full-gc.js';
import { longLived } from './drain/long-lived.js';
import { heldTable } from './drain/held.js';
import { isSticky, stickyWorker, reportSession } from './sticky.js';
import { loopDelay } from './sample/loop-delay.js';
import { cpuWait } from './sample/cpu-wait.js';

const IDLE_GRACE_MS = 5000; // Node's default keepAliveTimeout: idle sockets get what they always got.
const GC_SETTLE_MS = 50;
const FD_KINDS_FROM = 48; // fds from which a full read says what they are: a bare worker has ~20
const FD_KINDS_RISE = 20; // … and again each time the count passes its highest by this many
// Flags that change how V8 collects, from the command line or NODE_OPTIONS: a GC-share advice names
// them as the likely cause (docs/incidents.md, incident 3: concurrent marking off).
const GC_FLAG = /^--(no-)?(concurrent-marking|parallel-marking|parallel-scavenge|concurrent-sweeping|incremental-marking|single-threaded-gc|single-threaded|predictable|gc-interval|max-semi-space-size|min-semi-space-size|semi-space-growth-factor|optimize-for-size|max-old-space-size|gc-global|stress-compaction)\b/;
const gcFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((f) => f.replace(/_/g, '-')).filter((f) => GC_FLAG.test(f));

if (cluster.isWorker && typeof process.send === 'function') start();

function start() {
  const held = heldTable(() => state.longLived.open());
  const sticky = isSticky();
  const balanced = sticky ? stickyWorker() : null;
  const state = {
    requests: 0, heapFloor: null, draining: false, servers: new Set(), gc: newGcTotals(), elu: performance.eventLoopUtilization(),
    balanced, threads: watchThreads(), profiler: heapProfiler(), buffers: bufferSampler(), lastMajor: null, held,
    longLived: longLived({ onUpgrade: (socket) => held.upgrade(socket), onEngine: (engine) => onEngine(engine, sticky) }),
    fdKinds: { reading: false, high: 0, fresh: null },
  };
  const delay = loopDelay();
  state.cpuWait = cpuWait();

  new PerformanceObserver((list) => {
    let major = false;
    for (const e of list.getEntries()) major = addGc(state.gc, e) === 'major' || major;
    // The heap just after a collection is the baseline a leak raises. Polls land anywhere in the
    // GC sawtooth, and polls that drift against it see a floor that climbs and wraps: a fake trend.
    const used = v8.getHeapStatistics().used_heap_size;
    if (state.heapFloor === null || used < state.heapFloor) state.heapFloor = used;
    // After a full collection the heap is what the app retains: a confirmation probe that comes
    // soon after uses this instead of forcing another GC.
    if (major) state.lastMajor = { at: Date.now(), used };
  }).observe({ entryTypes: ['gc'] });

  dc.subscribe('http.server.request.start', ({ request, response, server }) => {
    state.requests++;
    if (!state.servers.has(server)) state.servers.add(server);
    state.longLived.track(request, response);
    // Draining: this response tells the client to close, so it never reuses a socket we close.
    if (state.draining) response.shouldKeepAlive = false;
  });

  const handlers = {
    [KIND.STATS]: (req) => stats(state, delay, req.detail, req.full),
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
      return { before, after: stats(state, delay, req.detail) };
    },
    [KIND.CONFIRM]: (req) => confirm(state, req),
    // Retained sites now, without a GC: what a worker recycled for memory held (read at the decision).
    [KIND.SITES]: async (req) => {
      if (req.start) {
        await state.profiler.sample();
        return { started: state.profiler.via !== null, profiler: state.profiler.reason };
      }
      return { profile: state.profiler.via ? await state.profiler.sample() : null, profiler: state.profiler.reason };
    },
    [KIND.DRAIN]: (req) => { drain(state, req); return { draining: true }; },
    [KIND.HEAP_SNAPSHOT]: (req) => ({ file: v8.writeHeapSnapshot(req.file) }),
    [KIND.HELD]: () => state.held.snapshot(),
  };

  process.on('internalMessage', (msg) => {
    if (!isOurs(msg) || !handlers[msg.kind]) return;
    const send = (reply) => { if (process.connected) process.send(reply); };
    let result;
    try {
      result = handlers[msg.kind](msg);
    } catch (err) {
      return send(message(KIND.REPLY, { id: msg.id, ok: false, error: String(err?.message ?? err) }));
    }
    if (typeof result?.then !== 'function') return send(message(KIND.REPLY, { id: msg.id, ok: true, result }));
    result.then(
      (r) => send(message(KIND.REPLY, { id: msg.id, ok: true, result: r })),
      (err) => send(message(KIND.REPLY, { id: msg.id, ok: false, error: String(err?.message ?? err) })),
    );
  });

  // A planned disconnect (the primary drained us) has closed every server and connection: run
  // the app's shutdown hooks and leave, rather than wait for timers the app forgot to clear.
  process.on('disconnect', () => {
    if (!cluster.worker.exitedAfterDisconnect) return;
    runShutdownHooks().finally(() => process.exit(0));
  });

  // Children do not follow their parent out. If we exit because the primary is gone nobody else
  // will reap them, so they get SIGKILL; otherwise SIGTERM and the primary follows up.
  process.on('exit', () => {
    const orphaned = !cluster.worker.exitedAfterDisconnect && !process.connected;
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

  process.send(message(KIND.HELLO, { pid: process.pid, node: process.version }));
  // The slot's last worker was recycled for memory: this one names what it retains from its birth.
  if (process.env.NODESUP_PROFILE === '1') state.profiler.sample().catch(() => {});
}

// The primary learns that the app serves engine.io, and whether it long-polls (which needs sticky
// sessions across workers); with balance: 'sticky', where each of its sessions lives.
function onEngine(engine, sticky) {
  const polling = (engine.opts?.transports ?? ['polling']).includes('polling');
  if (process.connected) process.send(message(KIND.ENGINE, { polling }));
  if (!sticky) return;
  engine.on('connection', (session) => {
    reportSession(session.id, true);
    session.once('close', () => reportSession(session.id, false));
  });
}

function drain(state, { closeWithinMs = 2000 } = {}) {
  if (state.draining) return;
  state.draining = true;
  state.profiler.stop();
  state.buffers.stop();
  for (const server of state.servers) {
    // cluster's disconnect calls server.close(), which closes idle keep-alive sockets at once and
    // races a client about to send on one. Idle sockets instead get Node's usual idle timeout.
    const closeIdle = server.closeIdleConnections;
    if (typeof closeIdle !== 'function') continue;
    server.closeIdleConnections = () => {};
    setTimeout(() => { delete server.closeIdleConnections; closeIdle.call(server); }, IDLE_GRACE_MS).unref();
  }
  for (const hook of hooks().onDrain) {
    try { hook(); } catch { /* the app's problem, not the drain's */ }
  }
  // WebSockets and SSE streams the hooks left open: closed by their protocol, spread out.
  state.longLived.closeAll(closeWithinMs);
  // Under balance 'sticky', until each engine.io session has had its close.
  state.balanced?.holdWhile(() => state.longLived.sessionsPending() > 0);
}

/** @param {boolean} [detail] what inspect shows  @param {boolean} [full] the poll's periodic full read */
function stats(state, delay, detail, full) {
  const mem = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  let newSpace = null;
  const spaces = v8.getHeapSpaceStatistics();
  for (const s of spaces) if (s.space_name === 'new_space') newSpace = s.space_size;
  const resources = process.getActiveResourcesInfo();
  const elu = performance.eventLoopUtilization(state.elu);
  // inspect's detailed read looks at the poll's window without closing it.
  if (!detail) state.elu = performance.eventLoopUtilization();
  const out = {
    pid: process.pid,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    external: mem.external,
    arrayBuffers: mem.arrayBuffers,
    heapLimit: heap.heap_size_limit,
    // heapTotal counts pages V8 reserved but never touched; the physical size is what RSS holds.
    heapPhysical: heap.total_physical_size,
    // The lowest heap seen since the last poll, just after a GC or now: the post-GC baseline.
    heapFloor: state.heapFloor === null ? mem.heapUsed : Math.min(state.heapFloor, mem.heapUsed),
    newSpace,
    gcCount: state.gc.count,
    gcMs: state.gc.ms,
    majorGcCount: state.gc.major,
    minorGcCount: state.gc.byKind.minor.count,
    minorGcMs: state.gc.byKind.minor.ms,
    gcFlags,
    elu: elu.utilization,
    ...(detail ? delay.peek() : delay.read(elu.utilization)),
    // Time the loop's thread was runnable but waited for a CPU, over the same window.
    cpuWaitShare: state.cpuWait.share(!detail),
    requests: state.requests,
    handles: resources.length,
    // Per type ("TCPSocketWrap", "Timeout", …): a leak of sockets or timers is named by its types.
    resources: countBy(resources),
    // What the primary would otherwise read from /proc itself on every poll, read here where the
    // process is awake anyway: a read of the primary's is a syscall more on the one busy process.
    fds: countOwnFds(),
    childPids: childrenOf(process.pid, Boolean(full)),
    allThreads: Boolean(full),
    draining: state.draining,
    ...state.threads(),
  };
  if (!detail) state.heapFloor = null; // the poll's window, which inspect only looks at
  // smaps_rollup walks every mapping (~1 ms of kernel time): paid here, by each worker in turn,
  // rather than by the one primary for all of them (a third of its CPU at 128 workers).
  if (full) out.memory = readMemory(process.pid);
  if (full) readFdKinds(state.fdKinds, out.fds);
  // The children by command, on a full read: a children leak is named by what they are.
  if (full && out.childPids.length) out.childCommands = countCommands(out.childPids);
  // A reading that landed since the last poll rides on this one, once.
  if (state.fdKinds.fresh && !detail) { out.fdKinds = state.fdKinds.fresh; state.fdKinds.fresh = null; }
  if (detail) {
    out.heapSpaces = spaces.map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size, available: s.space_available_size }));
    out.heap = heap;
    out.gcByKind = { ...state.gc.byKind };
    out.execArgv = process.execArgv;
  }
  return out;
}

// What the fds are (src/proc/fds.js: a readlink per fd, the namespace's socket tables read off the
// loop and parsed in slices), read on a full read only when the count passed its highest yet by
// FD_KINDS_RISE: a worker whose fds hold still, or come and go with load, is not read again.
function readFdKinds(st, fds) {
  if (st.reading || fds === null || fds < FD_KINDS_FROM || fds < st.high + FD_KINDS_RISE) return;
  st.reading = true;
  st.high = fds;
  fdKinds(process.pid).then((kinds) => { if (kinds) st.fresh = kinds; }, () => {}).finally(() => { st.reading = false; });
}

function countOwnFds() {
  const n = countFds(process.pid); // null off Linux
  return n === null ? null : n - 1; // a process listing its own fds sees the listing's fd too
}

function newGcTotals() {
  return { count: 0, ms: 0, major: 0, byKind: { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, incremental: { count: 0, ms: 0 }, weakcb: { count: 0, ms: 0 } } };
}

const GC_KIND = {
  [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

function addGc(totals, entry) {
  totals.count++;
  totals.ms += entry.duration;
  const kind = GC_KIND[entry.detail?.kind] ?? 'minor';
  if (kind === 'major') totals.major++;
  totals.byKind[kind].count++;
  totals.byKind[kind].ms += entry.duration;
  return kind;
}

function countBy(list) {
  const out = {};
  for (const x of list) out[x] = (out[x] ?? 0) + 1;
  return out;
}

