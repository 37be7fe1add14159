// A short-lived process that reads and validates the config for the lean primary's SIGHUP, so that
// zod and the config loader never load into the primary (lean-primary.js). Started with fork: the
// config file's own output goes where the primary's does, and the answer comes back on the IPC
// channel, {config} or {error: {code, message}}.
import { loadConfig } from '../config/load.js';

const inputs = JSON.parse(process.argv[2]);
let answer;
try {
  answer = { config: await loadConfig(inputs) };
} catch (err) {
  answer = { error: { code: err?.code ?? null, message: String(err?.message ?? err) } };
}
process.send(answer, () => process.disconnect());
