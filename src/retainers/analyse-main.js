#!/usr/bin/env node
// The analyser as a child process, so its memory is its own and bounded:
//   node --max-old-space-size=N src/retainers/analyse-main.js FILE [--hints JSON]
// prints the report as one JSON line on stdout and exits 0; or one line on stderr and exits 1
// (2 for bad arguments). The caller spawns it at a low priority; nothing here renices itself.
import { parseArgs } from 'node:util';
import { analyseSnapshot } from './analyse.js';

const USAGE = 'usage: node analyse-main.js FILE.heapsnapshot [--hints \'{"kind":"heap","growthBytes":N,"sites":[…],"cwd":"/app"}\']';

async function main(argv) {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { hints: { type: 'string' } }, allowPositionals: true }));
    if (positionals.length !== 1) throw new Error(`expected one snapshot file, got ${positionals.length}`);
  } catch (err) {
    return fail(`NODESUP_ERR_USAGE: ${err.message}; ${USAGE}`, 2);
  }
  let hints = {};
  if (values.hints !== undefined) {
    try {
      hints = JSON.parse(values.hints);
    } catch (err) {
      return fail(`NODESUP_ERR_USAGE: --hints is not JSON (${err.message}); ${USAGE}`, 2);
    }
  }
  try {
    const report = await analyseSnapshot(positionals[0], hints);
    // maxRSS is in KiB: the peak of this whole process, the number a caller's budget is about.
    report.peakRssBytes = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  } catch (err) {
    const line = `${err.code ?? 'Error'}: ${String(err.message).split('\n')[0]}`;
    return fail(line, err.code === 'NODESUP_ERR_USAGE' ? 2 : 1);
  }
}

function fail(line, code) {
  process.stderr.write(`${line}\n`);
  return code;
}

process.exitCode = await main(process.argv.slice(2));
