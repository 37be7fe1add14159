// What apps import as 'nodesup/worker'. Harmless outside nodesup: every call is a no-op there.
import cluster from 'node:cluster';
import { KIND, message } from '../protocol.js';
import { hooks } from './hooks.js';
import { toPrimary } from './to-primary.js';

/** Tell the primary this worker is ready to serve (for workers that never call listen()). */
export function ready() {
  if (cluster.isWorker) toPrimary(message(KIND.READY, { pid: process.pid }));
}

/** Run fn when the worker is stopping (after its servers closed); may return a promise. */
export function onShutdown(fn) {
  if (typeof fn !== 'function') throw new TypeError('onShutdown(fn): fn must be a function');
  hooks().onShutdown.push(fn);
}

/** Run fn when draining begins: stop taking new background work. */
export function onDrain(fn) {
  if (typeof fn !== 'function') throw new TypeError('onDrain(fn): fn must be a function');
  hooks().onDrain.push(fn);
}

/** True when this process runs under a nodesup primary. */
export const supervised = cluster.isWorker && Boolean(process.env.NODESUP_SLOT);

