import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readWaitNs, cpuWaitedMs } from '../../src/proc/schedstat.js';

const file = (t, text) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedstat-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const f = path.join(dir, 'schedstat');
  fs.writeFileSync(f, text);
  return f;
};

for (const [text, want] of [
  ['1538254 204117 31\n', 204117],
  ['0 0 0\n', 0],
  ['garbage\n', null],
  ['', null],
]) {
  test(`schedstat ${JSON.stringify(text)}: the wait is ${want}`, (t) => {
    t.is(readWaitNs(file(t, text)), want);
  });
}

test('a file that is not there is unknown, not an error', (t) => {
  t.is(readWaitNs('/nonexistent/schedstat'), null);
});

test('this process reads its own wait; a pid that does not exist reads null', (t) => {
  const own = cpuWaitedMs(process.pid);
  if (fs.existsSync(`/proc/${process.pid}/schedstat`)) t.true(own >= 0);
  else t.is(own, null);
  t.is(cpuWaitedMs(2 ** 22 + 1), null);
});
