// A poll's /proc reads must leave no Buffers behind: a quiet worker's external memory would climb
// with them until its next GC and read as a Buffer leak.
import test from 'ava';
import fs from 'node:fs';
import { readText } from '../../src/proc/read-text.js';

const FILE = '/proc/self/status';
const onLinux = fs.existsSync(FILE) ? test : test.skip;

onLinux('readText returns the file as the Buffer read did, and leaves no external memory behind', (t) => {
  t.is(readText(FILE).split('\n')[0], fs.readFileSync(FILE, 'latin1').split('\n')[0]);
  const before = process.memoryUsage().external;
  for (let i = 0; i < 200; i++) readText(FILE);
  // A Buffer read holds 8 KiB a read (1.6 MiB here) until a GC; the text alone is on the heap.
  t.true(process.memoryUsage().external - before < 256 * 1024, `external grew ${process.memoryUsage().external - before} bytes`);
});
