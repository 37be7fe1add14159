// A TypeScript entry started as it is (`nodesup start server.ts`), run by Node's own type
// stripping, through memory recycles and a reload under load from real clients: nothing failed,
// nothing forced (test/helpers/frameworks.js). Where Node does not strip types by default
// (Node 20, 22 before 22.18) nodesup refuses the file instead: typescript-refused.test.js.
import test from 'ava';
import { recyclesAndReloadUnderLoad, frameworkApp } from '../helpers/frameworks.js';
import { stripsByDefault } from '../../src/config/typescript.js';

const version = process.versions.node;
const maybe = stripsByDefault(version)
  ? test
  : (title, ...rest) => test.skip(`${title} [skipped: Node ${version} does not strip types by default; CI runs it on 22, 24 and 26]`, ...rest);

maybe('a .ts entry (type stripping): memory recycles and a reload under autocannon, undici and http.Agent: 0 failed, none forced', async (t) => {
  // Node's TypeScript stripper stays loaded in each worker: a higher floor than a .js app's.
  await recyclesAndReloadUnderLoad(t, { script: frameworkApp('server.ts'), maxRss: '140mb' });
});
