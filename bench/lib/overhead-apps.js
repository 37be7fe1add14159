// The apps the overhead benches load (overhead.js, overhead-together.js): each one's file, the
// path the load asks for, its section's name, the target against a bare primary, and what it is.
export const OVERHEAD_APPS = {
  hello: { file: 'bench/apps/hello.js', path: '/', section: 'overhead', target: 0.97, what: 'a hello world' },
  express: { file: 'bench/apps/express-json.js', path: '/users?limit=50&min=20', section: 'overhead-express', target: 0.99, what: 'an express JSON API (filter, sort, page 500 users, a middleware, res.json)' },
};

/** The app `name` names, or exit 2 with a one-line error. */
export function overheadApp(name) {
  const app = OVERHEAD_APPS[name];
  if (app) return app;
  process.stderr.write(`--app ${name}: one of ${Object.keys(OVERHEAD_APPS).join(', ')}\n`);
  process.exit(2);
}
