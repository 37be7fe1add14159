// What makes busy-healthy and heap-leak-busy busy: a collection on nearly every poll, as under
// steady load. Most of what it allocates dies at once; a small share lives a few seconds (requests
// in flight, their buffers), long enough to be promoted, and piles up in the old generation as
// garbage until the next major GC.
//   CHURN_MB_PER_SEC (40), HELD_KB_PER_SEC (200), HELD_S (3)
const TICK_MS = 50;
const perTick = (rate, size) => Math.round((rate * TICK_MS) / 1000 / size);

export function startBusyLoad(env = process.env) {
  // Garbage in 8 KiB arrays: the young generation fills at the rate a busy server's does, for
  // little of the CPU a server would spend making it.
  const churn = perTick(Number(env.CHURN_MB_PER_SEC ?? 40) * 1024 * 1024, 8 * 1024);
  const held = perTick(Number(env.HELD_KB_PER_SEC ?? 200) * 1024, 64); // ~64 bytes a row
  const inFlight = new Array(Math.round((Number(env.HELD_S ?? 3) * 1000) / TICK_MS));
  let tick = 0;
  setInterval(() => {
    for (let i = 0; i < churn; i++) globalThis.sink = new Array(1024).fill(i);
    inFlight[tick++ % inFlight.length] = Array.from({ length: held }, (_, i) => ({ i, at: tick }));
  }, TICK_MS);
}
