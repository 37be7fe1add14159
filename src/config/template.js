// What `nodesup init` writes: every key with its default and why it is there, so the file doubles
// as the reference. test/config/template.test.js checks that it validates to the defaults.

/**
 * Config file names looked up in the working directory, in this order. The TypeScript ones load
 * where the primary's Node strips types (22.18+, 23.6+) or runs with a loader (NODE_OPTIONS).
 */
export const CONFIG_FILE_NAMES = ['supervisor.config.js', 'supervisor.config.mjs', 'supervisor.config.cjs',
  'supervisor.config.ts', 'supervisor.config.mts', 'supervisor.config.cts'];

/** A fully commented supervisor.config.js (ESM). */
export const CONFIG_TEMPLATE = `// nodesup configuration. Every key is shown with its default; delete what you do not change.
// Sizes read like '512mb', '1.5gb', '800MiB' (binary: 1mb = 1048576 bytes); durations like '500ms',
// '10s', '6h'; a bare number is bytes or milliseconds. CLI flags (--workers, --max-rss, ...) win.
// No import: the file loads whether nodesup is installed here, globally or run through npx.
export default {
  // Names the control socket and labels metrics; default: the script's basename.
  // name: 'api',

  // The app every worker runs; \`nodesup start <script>\` overrides it. Relative to this file.
  // script: 'server.js',
  args: [],                          // argv for the app; \`nodesup start app.js -- --port 3000\` replaces it
  env: {},                           // extra environment variables for the workers
  nodeArgs: [],                      // node / V8 flags for workers, e.g. ['--max-semi-space-size=16']

  workers: 'max',                    // a number, or 'max': one per CPU, capped by a container CPU quota
  pollInterval: '1s',                // how often each worker is sampled (at least 100ms)

  limits: {
    // null means no limit. A worker over a limit is replaced first, then drained, then killed.
    rss: null,                       // e.g. '512mb': per worker, whole process tree (worker + children)
    heapUsed: null,                  // e.g. '300mb': V8 heap in use
    native: null,                    // e.g. '250mb': RSS − (heapTotal + external), i.e. addons and malloc
    totalRss: null,                  // e.g. '90%' of the cgroup memory limit, or '4gb': all workers together
    maxAge: null,                    // e.g. '6h': recycle workers this old, leak or not
    maxRequests: null,               // e.g. 500000: recycle after this many requests
    jitter: 0.1,                     // each worker's age/request limit comes up to 10% early: no herd
    sustain: 0,                      // e.g. '10s': a memory limit must be exceeded this long to count
  },

  // Recycle (or only warn) when memory keeps growing after GC for a whole window; false: off.
  // warmUp: a worker's rise this soon after ready may be its warm-up, and is not named yet.
  leak: { window: '5m', minGrowth: '1mb/min', action: 'recycle', warmUp: '150s' },

  gcBeforeRecycle: true,             // try a full GC first; recycle only if still over a memory limit

  recycle: {
    readyTimeout: '30s',             // the replacement must be listening (or call ready()) within this (time queued for a CPU not counted)
    killTimeout: '10s',              // drain time for the old worker before SIGTERM, then SIGKILL
    maxConcurrent: 1,                // slots recycling at once; the others keep serving
    predictive: true,                // start the replacement early when a worker will cross limits.rss sooner than one starts
  },

  restart: {
    initialDelay: '100ms',           // first restart delay after a crash; doubles per crash in a row
    maxDelay: '30s',                 // cap of that backoff
    maxCrashes: 10,                  // give up (exit 1) after this many crashes ...
    crashWindow: '60s',              // ... within this window
  },

  unresponsive: { timeout: '15s' },  // a worker that misses heartbeats this long is recycled; false: off

  metrics: { host: '127.0.0.1', port: 9209 },  // Prometheus /metrics, /healthz, /readyz; or false

  log: {
    level: 'info',                   // fatal, error, warn, info, debug, trace or silent
    format: 'json',                  // 'json' (one pino object per line) or 'pretty' for a terminal
  },

  // Where leak evidence is written: a pprof profile at each named leak and memory recycle, at most
  // 100 files and 32 MiB, the oldest removed first. null: <tmpdir>/nodesup-diagnose-<uid>/<name>.
  // snapshots: a worker recycled for memory writes a heap snapshot once drained, when there is
  // room, and nodesup names what holds the leak (worker.retainers); the file is removed after.
  diagnose: { dir: null, snapshots: true, snapshotTimeout: '60s', keepSnapshots: false },

  tui: false,                        // live status view instead of logs on stdout

  // 'sticky': the primary accepts connections and sends each client (an engine.io session, else
  // its address) to the same worker: what socket.io's long-polling needs. 'round-robin': cluster's.
  // null: 'sticky' where the app's package.json depends on socket.io or engine.io, else 'round-robin'.
  balance: null,
  stickyHeader: null,                // e.g. 'x-forwarded-for': the client's address, behind a proxy
};
`;
