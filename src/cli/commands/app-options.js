// The flags that say which app runs and how it is supervised, shared by `start` and `check`: each
// is also a config key, and the flag wins.

/** yargs options, in the order --help lists them. */
export const APP_OPTIONS = Object.freeze({
  config: { alias: 'c', type: 'string', describe: 'config file (default ./supervisor.config.js)' },
  workers: { alias: 'w', type: 'string', describe: 'number of workers, or "max"' },
  'max-rss': { type: 'string', describe: 'per-worker RSS limit of the whole process tree, e.g. 512mb' },
  'max-heap': { type: 'string', describe: 'per-worker V8 heapUsed limit, e.g. 300mb' },
  'poll-interval': { type: 'string', describe: 'how often every worker is sampled, e.g. 1s' },
});

/** The script positional and the app options on a yargs builder. */
export function appOptions(y) {
  y.positional('script', { type: 'string', describe: 'the app to run in every worker (or `script` in the config)' });
  for (const [name, o] of Object.entries(APP_OPTIONS)) y.option(name, o);
  return y;
}
