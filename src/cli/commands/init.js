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
    fs.writeFileSync(file, templateFor(process.cwd()), { flag: argv.force ? 'w' : 'wx' });
  } catch (err) {
    if (err.code === 'EEXIST') throw new NodesupError('NODESUP_ERR_USAGE', `supervisor.config.js already exists in ${process.cwd()}; pass --force to overwrite it`);
    throw new NodesupError('NODESUP_ERR_USAGE', `cannot write ${file}: ${err.code ?? err.message}`);
  }
  process.stdout.write(`wrote ${file}\n`);
}

/** The template in the module syntax Node will read a .js file in `dir` with (Node 20 has no detection). */
export function templateFor(dir) {
  return isEsmPackage(dir) ? CONFIG_TEMPLATE : CONFIG_TEMPLATE.replace(/^export default \{/m, 'module.exports = {');
}

function isEsmPackage(dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      return JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8')).type === 'module';
    } catch (err) {
      if (err.code !== 'ENOENT') return false;
    }
    if (path.dirname(d) === d) return false;
  }
}
