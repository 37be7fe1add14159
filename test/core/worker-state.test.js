import test from 'ava';
import { canTransition, transition } from '../../src/core/worker-state.js';

test('worker states: legal and illegal transitions', (t) => {
  t.true(canTransition('spawning', 'ready'));
  t.true(canTransition('spawning', 'draining'), 'a stop during startup drains it');
  t.true(canTransition('ready', 'draining'));
  t.true(canTransition('draining', 'killing'));
  t.false(canTransition('draining', 'ready'));
  t.false(canTransition('exited', 'ready'));
  t.throws(() => transition('killing', 'ready'), { message: 'impossible worker transition killing -> ready' });
});
