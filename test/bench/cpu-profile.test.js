// The worker-profile bench reads V8 CPU profiles as shares of busy samples by function: idle left
// out, the GC counted apart, nodesup's own frames told by their url.
import test from 'ava';
import { profileShares, frameName } from '../../bench/lib/cpu-profile.js';

const node = (id, functionName, url = '', lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber } });
const profile = {
  nodes: [node(1, '(root)'), node(2, '(idle)'), node(3, 'handle', '/app/node_modules/express/lib/router.js', 9),
    node(4, 'track', '/repo/src/worker/drain/long-lived.js', 57), node(5, '(garbage collector)'), node(6, '', '/app/server.js', 2)],
  samples: [2, 2, 2, 2, 3, 3, 3, 4, 5, 6, 6, 2],
};

test('profileShares: self-time shares of the busy samples, idle left out, the GC and our frames apart', (t) => {
  const s = profileShares(profile, (url) => url.startsWith('/repo/src/'));
  t.is(s.busy, 7);
  t.is(s.gcShare, 1 / 7);
  t.is(s.oursShare, 1 / 7);
  t.deepEqual(s.ours, [{ name: 'track drain/long-lived.js:58', share: 1 / 7 }]);
  t.deepEqual(s.top.map((f) => f.name), ['handle lib/router.js:10', '(anonymous) app/server.js:3', 'track drain/long-lived.js:58', '(garbage collector)']);
  t.is(s.of('handle lib/router.js:10'), 3 / 7);
  t.is(s.of('nothing'), 0);
});

test('frameName: a frame without a url is its name alone', (t) => {
  t.is(frameName({ functionName: '(program)', url: '', lineNumber: -1 }), '(program)');
});
