// The CLI: yargs with every command imported explicitly, and one place that turns an error into
// a one-line message and an exit code (2 usage/config, 1 runtime).
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT } from '../errors.js';
import { reportError } from './report-error.js';
import * as start from './commands/start.js';
import * as init from './commands/init.js';
import * as check from './commands/check.js';
import { controlCommands } from './commands/control.js';

const argv = hideBin(process.argv);

const cli = yargs(argv)
  .scriptName('nodesup')
  .usage('$0 <command> [options]')
  .command(start)
  .command(init)
  .command(check);
for (const c of controlCommands) cli.command(c);
cli
  .demandCommand(1, 'nodesup: name a command: start, check, status, reload, recycle, inspect, stop or init')
  .strict()
  .parserConfiguration({ 'populate--': true })
  .help()
  .version()
  .wrap(Math.min(100, process.stdout.columns || 100))
  .fail((msg, err) => {
    if (err) throw err;
    process.stderr.write(`nodesup: ${msg.split('\n')[0]}\n`);
    process.exit(EXIT.USAGE);
  });

try {
  await cli.parseAsync();
} catch (err) {
  reportError(err);
}
