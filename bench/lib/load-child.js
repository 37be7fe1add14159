// The load generator, in its own process: autocannon with keep-alive connections on one URL for
// a fixed duration (SIGINT ends it early), every request accounted for (accounted-load.js).
// Prints one JSON summary on stdout.
import { accountedLoad } from './accounted-load.js';

const { instance, result } = accountedLoad(JSON.parse(process.argv[2]));
process.once('SIGINT', () => instance.stop());
result.then((summary) => process.stdout.write(JSON.stringify(summary)), (err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
