// The app's error, from its last output: the thrown error's own line, not Node's "Channel closed"
// of a worker the check's stop disconnected while it was still exiting.
import test from 'ava';
import { errorLine } from '../../src/check/app-stderr.js';

const BOOM = 'Error: boom: cannot connect to database at db.invalid:5432';

test('errorLine: the thrown error\'s line, its stack left out', (t) => {
  t.is(errorLine(`/srv/app.js:2\n${BOOM}\n    at Object.<anonymous> (/srv/app.js:2:7)\n\nNode.js v20.20.2\n`), BOOM);
});

test('errorLine: an IPC "Channel closed" after the app\'s error is ours, not the app\'s', (t) => {
  const text = `${BOOM}\n    at file:///srv/app.js:2:7\nNode.js v20.20.2\nnode:internal/child_process:754\nError [ERR_IPC_CHANNEL_CLOSED]: Channel closed\n    at target.send (node:internal/child_process:754:16)\n`;
  t.is(errorLine(text), BOOM);
  t.is(errorLine('Error [ERR_IPC_CHANNEL_CLOSED]: Channel closed\n'), 'Error [ERR_IPC_CHANNEL_CLOSED]: Channel closed', 'alone, it is all there is');
});

test('errorLine: no thrown error: the last line that is not a frame or the banner; nothing: null', (t) => {
  t.is(errorLine('listening…\nfatal: config missing\n'), 'fatal: config missing');
  t.is(errorLine(''), null);
});
