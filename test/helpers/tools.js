// Tests that drive an external tool (tmux for a real terminal, promtool for the exposition format,
// the prometheus server for the alerts end to end, go for `go tool pprof` on nodesup's profiles).
// A newcomer's machine may have none of them: there the test is declared skipped, its title saying which tool
// and how to get it. Under CI=true it always runs, so a missing tool fails CI instead of hiding.
import test from 'ava';
import { spawnSync } from 'node:child_process';

const HOW = { tmux: 'apt-get install tmux', promtool: 'apt-get install prometheus', prometheus: 'apt-get install prometheus', go: 'apt-get install golang-go' };
const found = new Map();

/** Whether `name` runs from PATH. */
export function hasTool(name) {
  if (!found.has(name)) found.set(name, !spawnSync(name, ['--version'], { stdio: 'ignore' }).error);
  return found.get(name);
}

/** `test`, or `test.skip` with the reason in the title when a needed tool is absent outside CI. */
export function testWith(...tools) {
  const missing = tools.filter((name) => !hasTool(name));
  if (missing.length === 0 || process.env.CI === 'true') return test;
  const why = ` [skipped: ${missing.join(', ')} not on PATH; ${missing.map((m) => HOW[m]).join(', ')}]`;
  const skip = (title, ...rest) => test.skip(`${title}${why}`, ...rest);
  return Object.assign(skip, { serial: skip, skip });
}

/** `test`, or `test.skip` with the reason in the title when the tests do not run as root (chown needs it). */
export function testAsRoot() {
  if (process.getuid?.() === 0) return test;
  const skip = (title, ...rest) => test.skip(`${title} [skipped: needs root to chown]`, ...rest);
  return Object.assign(skip, { serial: skip, skip });
}
