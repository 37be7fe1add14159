// hono on @hono/node-server, started as its docs start it, through memory recycles and a reload
// under load from real clients: nothing failed, nothing forced (test/helpers/frameworks.js).
import test from 'ava';
import { recyclesAndReloadUnderLoad, frameworkApp } from '../helpers/frameworks.js';

test('hono (@hono/node-server): memory recycles and a reload under autocannon, undici and http.Agent: 0 failed, none forced', async (t) => {
  await recyclesAndReloadUnderLoad(t, { script: frameworkApp('hono.js'), maxRss: '110mb' });
});
