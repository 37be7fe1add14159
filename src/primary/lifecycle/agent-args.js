// The node flags every worker starts with after the user's: V8's gc() under a name of ours, for the
// full GCs nodesup forces (src/worker/full-gc.js says why it is given at the start), and the agent.
import { GC_GLOBAL } from '../../constants.js';

const AGENT_URL = new URL('../../worker/agent.js', import.meta.url).href;

/**
 * Whether the user's flags expose gc() already. V8 exposes one gc function under one name: ours
 * would take the app's `gc` away, so then the agent finds its own way (full-gc.js).
 * @param {string[]} args
 */
export const exposesGc = (args) => args.some((a) => /^--expose[-_]gc(?:[-_]as)?(?:=|$)/.test(a));

/**
 * @param {string[]} nodeArgs  the config's nodeArgs
 * @param {string} [nodeOptions]  the workers' NODE_OPTIONS
 */
export function workerExecArgv(nodeArgs, nodeOptions = '') {
  const given = [...nodeOptions.split(/\s+/).filter(Boolean), ...nodeArgs];
  return [...nodeArgs, ...(exposesGc(given) ? [] : [`--expose-gc-as=${GC_GLOBAL}`]), '--import', AGENT_URL];
}
