// A terminal client of the chat: joins a room and sends a numbered message every 200 ms with
// retries, printing what it hears. `node examples/socketio-chat/client.js [room] [polling|websocket]`
import { io } from 'socket.io-client';
import { randomUUID } from 'node:crypto';

const [room = 'lobby', transport] = process.argv.slice(2);
const url = process.env.URL ?? 'http://127.0.0.1:3000';
const socket = io(url, { retries: 5, ackTimeout: 5000, ...(transport ? { transports: [transport] } : {}) });
const seen = new Set();
let n = 0;
socket.on('welcome', async ({ worker }) => {
  await socket.emitWithAck('join', room);
  console.log(`in ${room} on worker ${worker} (${socket.io.engine.transport.name})`);
});
socket.on('said', (m) => { if (!seen.has(m.id)) { seen.add(m.id); console.log(`[${m.room}] ${m.nick}: ${m.text} (worker ${m.worker})`); } });
socket.on('disconnect', (reason) => console.log(`disconnected: ${reason}`));
setInterval(() => socket.emitWithAck('say', { id: randomUUID(), room, nick: `pid${process.pid}`, text: `message ${n++}` }).catch(() => console.log('not delivered')), 200);
