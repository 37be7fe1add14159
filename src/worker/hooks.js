// Shutdown and drain hooks registered by the app through 'nodesup/worker'. Kept on globalThis so
// an app with its own copy of nodesup still reaches the agent the primary preloaded.
const KEY = Symbol.for('nodesup.worker.hooks');

/** The shared hook lists. */
export function hooks() {
  globalThis[KEY] ??= { onShutdown: [], onDrain: [] };
  return globalThis[KEY];
}

/** Run every onShutdown hook, each bounded so one stuck hook cannot hold the exit forever. */
export async function runShutdownHooks(timeoutMs = 5000) {
  const list = hooks().onShutdown.splice(0);
  await Promise.all(list.map((fn) => Promise.race([
    Promise.resolve().then(fn).catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
  ])));
}
