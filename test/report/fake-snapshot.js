// Snapshots built by hand for the report tests: the shapes of src/types.js, nothing more.

export const MiB = 1024 * 1024;
export const NOW = Date.UTC(2024, 0, 15, 12, 3, 4);

/** A full sample with every field measured; override any. */
export function sample(overrides = {}) {
  return {
    t: NOW, pid: 4000, rss: 200 * MiB, pss: 180 * MiB, anon: 150 * MiB, treeRss: 200 * MiB, treePss: 180 * MiB,
    childrenRss: 0, children: 0, fds: 21, heapUsed: 80 * MiB, heapTotal: 100 * MiB, heapLimit: 4096 * MiB,
    external: 10 * MiB, arrayBuffers: 2 * MiB, native: 90 * MiB, newSpace: 16 * MiB, gcCount: 120, gcMs: 900,
    majorGcCount: 3, elu: 0.25, delayP50: 1.2, delayP99: 12.5, requests: 1000, handles: 7, agent: true,
    ...overrides,
  };
}

/** A ready slot with a rising history. */
export function slotView(slot, overrides = {}) {
  const rss = overrides.last?.treeRss ?? 200 * MiB;
  return {
    slot, pid: 4000 + slot, state: 'ready', startedAt: NOW - 3_600_000, recycles: 0, restarts: 0,
    history: Array.from({ length: 60 }, (_, i) => rss - (59 - i) * MiB),
    trend: { rssPerSec: 0, heapPerSec: 0 },
    ...overrides,
    last: overrides.last === null ? null : sample({ pid: 4000 + slot, ...overrides.last }),
  };
}

/** A supervisor snapshot with n ready slots. */
export function snapshot({ slots = 4, ...overrides } = {}) {
  return {
    name: 'api', pid: 1234, startedAt: NOW - 7_200_000, now: NOW,
    limits: { rss: 512 * MiB, heapUsed: 300 * MiB, native: 250 * MiB, totalRss: { fraction: 0.9 }, maxAge: 6 * 3_600_000, maxRequests: null, jitter: 0.1, sustain: 0 },
    cgroup: { limit: 4096 * MiB, current: 1024 * MiB },
    slots: typeof slots === 'number' ? Array.from({ length: slots }, (_, i) => slotView(i)) : slots,
    recentRecycles: [
      { event: 'worker.recycle', time: NOW - 60_000, slot: 1, pid: 4242, reason: 'rss', value: 312 * MiB, limit: 300 * MiB, uptimeMs: 3_600_000 },
      { event: 'worker.recycle', time: NOW - 30_000, slot: 2, pid: 4243, reason: 'max-age', value: 6 * 3_600_000, limit: 6 * 3_600_000, uptimeMs: 6 * 3_600_000 },
    ],
    counters: { recycles: { rss: 1, 'max-age': 1 }, restarts: 0 },
    ...overrides,
  };
}
