// @hapi/hapi, started with server.start() as its docs do, through memory recycles and a reload
// under load from real clients: nothing failed, nothing forced (test/helpers/frameworks.js).
import test from 'ava';
import { recyclesAndReloadUnderLoad, frameworkApp } from '../helpers/frameworks.js';

test('@hapi/hapi: memory recycles and a reload under autocannon, undici and http.Agent: 0 failed, none forced', async (t) => {
  await recyclesAndReloadUnderLoad(t, { script: frameworkApp('hapi.js'), maxRss: '120mb' });
});
