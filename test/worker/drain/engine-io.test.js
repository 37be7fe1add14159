import test from 'ava';
import { isEngineIo } from '../../../src/worker/drain/engine-io.js';

test('a request of the engine.io protocol is told by its EIO query parameter, wherever it sits in the query', (t) => {
  for (const url of ['/socket.io/?EIO=4&transport=polling', '/socket.io/?transport=websocket&EIO=3', '/?EIO=4']) {
    t.true(isEngineIo(url), url);
  }
});

test('any other request is not engine.io, nor a path or value that only contains EIO=', (t) => {
  for (const url of ['/', '/health', '/EIO=4', '/?EIO=x', '/?NEIO=4', '/?q=EIO%3D4', undefined, null]) {
    t.false(isEngineIo(url), String(url));
  }
});
