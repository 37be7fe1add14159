// `nodesup init`: write a commented supervisor.config.js, never over an existing one.
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_TEMPLATE } from '../../config/template.js';
import { NodesupError } from '../../errors.js';

export const command = 'init';
export const describe = 'write a commented supervisor.config.js';

/** yargs options. */
export function builder(y) {
  return y.option('force', { type: 'boolean', describe: 'overwrite an existing file' });
}

/** Write the file. */
export function handler(argv) {
  const file = path.resolve(process.cwd(), 'supervisor.config.js');
  try {
    fs.writeFileSync(file, CONFIG_TEMPLATE, { flag: argv.force ? 'w' : 'wx' });
  } catch (err) {
    if (err.code === 'EEXIST') throw new NodesupError('NODESUP_ERR_USAGE', `supervisor.config.js already exists in ${process.cwd()}; pass --force to overwrite it`);
    throw new NodesupError('NODESUP_ERR_USAGE', `cannot write ${file}: ${err.code ?? err.message}`);
  }
  process.stdout.write(`wrote ${file}\n`);
}
