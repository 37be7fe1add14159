// While sites are sampled V8 stops inlining, so a small retaining function that its hot caller had
// inlined is named, not the caller; when sampling stops, inlining is back (the next profile, taken
// with inlining left alone, files it under the caller again), unless the user had turned it off.
// Each case in a process of its own: V8's flags are the process's.
import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../../fixtures/agent/inlined-site.js', import.meta.url));
const sites = async (mode, flags = []) => JSON.parse((await run(process.execPath, [...flags, FIXTURE, mode], { timeout: 60_000 })).stdout);

test('sampled with inlining off, the inlined function is the site; afterwards inlining is back', async (t) => {
  const { sampled, after } = await sites('deopt');
  t.is(sampled, 'cacheUser');
  t.not(after, 'cacheUser', 'inlining back on: the callee is filed under its caller again');
});

test('with inlining left on, the inlined function is filed under its caller (what the above undoes)', async (t) => {
  const { sampled } = await sites('plain');
  t.not(sampled, 'cacheUser');
});

test("the user's own --no-turbo-inlining is kept when sampling stops", async (t) => {
  const { sampled, after } = await sites('deopt', ['--no-turbo-inlining', '--no-maglev-inlining']);
  t.is(sampled, 'cacheUser');
  t.is(after, 'cacheUser');
});
