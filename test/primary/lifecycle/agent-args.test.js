// The flags nodesup gives every worker: V8's gc() under nodesup's name unless the user exposes gc()
// already (V8 exposes one gc function under one name: ours would take the app's away), then the agent.
import test from 'ava';
import { workerExecArgv, exposesGc } from '../../../src/primary/lifecycle/agent-args.js';
import { GC_GLOBAL } from '../../../src/constants.js';

const OURS = `--expose-gc-as=${GC_GLOBAL}`;

for (const [nodeArgs, nodeOptions, ours] of [
  [[], '', true],
  [['--max-old-space-size=512'], '--enable-source-maps', true],
  [['--expose-gc'], '', false],
  [['--expose_gc'], '', false],
  [[], '--expose-gc', false],
  [[], '--max-old-space-size=512  --expose-gc ', false],
  [['--expose-gc-as=collect'], '', false],
  [['--expose-gcx'], '', true],
  [['--import', 'tsx'], '', true],
]) {
  test(`nodeArgs ${JSON.stringify(nodeArgs)}, NODE_OPTIONS ${JSON.stringify(nodeOptions)}: ${ours ? 'nodesup exposes its gc' : "the user's gc stays"}`, (t) => {
    const argv = workerExecArgv(nodeArgs, nodeOptions);
    t.deepEqual(argv.slice(0, nodeArgs.length), nodeArgs, "the user's flags first, as given");
    t.is(argv.includes(OURS), ours);
    t.is(argv.at(-2), '--import');
    t.regex(argv.at(-1), /\/src\/worker\/agent\.js$/);
  });
}

test('exposesGc reads both spellings and the named form', (t) => {
  t.true(exposesGc(['--expose-gc']));
  t.true(exposesGc(['--expose_gc_as=x']));
  t.false(exposesGc(['--no-expose-wasm', '--gc-interval=100']));
});
