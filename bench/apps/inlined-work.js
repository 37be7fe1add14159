// JS work whose small allocating function (cacheUser) V8 inlines into its hot caller (handle): the
// case where a sampling heap profiler files a callee's allocations under its caller. Shared by
// bench/apps/inlined-loop.js and the agent's inlining test.
/** @param {number} keepMask  one user in keepMask + 1 is kept for good (a power of two less one) */
export function inlinedWork(keepMask) {
  const kept = [];
  function cacheUser(i) {
    const user = { id: i, name: 'user', tags: [i, i + 1, i + 2] };
    if ((i & keepMask) === 0) kept.push(user);
    return user;
  }
  function handle(i) {
    let s = 0;
    for (let k = 0; k < 20; k++) s += cacheUser(i * 20 + k).id;
    return s;
  }
  let n = 0;
  const busy = (ms) => { for (const end = Date.now() + ms; Date.now() < end;) handle(n++); };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    /** Work for ms without yielding. */
    busy,
    /** Work for ms in slices of `slice` ms, yielding to the event loop between them. */
    async work(ms, slice = 100) { for (let r = 0; r < ms / slice; r++) { busy(slice); await turn(); } },
    /** Calls of handle so far. */
    calls: () => n,
  };
}
