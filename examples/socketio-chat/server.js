// A chat with rooms on socket.io, unchanged for nodesup: run it with the config beside it,
//   npx nodesup start -c examples/socketio-chat/supervisor.config.mjs
// and open http://127.0.0.1:3000/ in two browsers (or `node examples/socketio-chat/client.js`).
// - balance: 'sticky' (in the config) sends each client's requests to one worker, so socket.io's
//   long-polling transport works; WebSocket clients work either way.
// - The cluster adapter makes a message reach the room's members on every worker: nodesup plays
//   the part of setupPrimary() in its primary, so this file calls createAdapter() and nothing else.
// - No acknowledged message is lost across a recycle: the client sends with `retries`, so a message
//   whose acknowledgement a drain cut is sent again, to the new worker; each message carries an id,
//   so a message that did arrive twice is shown once.
import http from 'node:http';
import fs from 'node:fs';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/cluster-adapter';

const port = Number(process.env.PORT ?? 3000);
const page = fs.readFileSync(new URL('./index.html', import.meta.url));

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page);
});
const io = new Server(server, { adapter: createAdapter() });

io.on('connection', (socket) => {
  socket.emit('welcome', { worker: process.pid });
  socket.on('join', (room, ack) => {
    if (typeof room !== 'string' || !room) return ack?.({ ok: false });
    socket.join(room);
    ack?.({ ok: true, worker: process.pid });
  });
  // msg: { id, room, nick, text }. The ack says the message went out to every member of the room.
  // A message sent again after a reconnect may come before the client's new 'join': it joins too.
  socket.on('say', (msg, ack) => {
    if (!msg || typeof msg.id !== 'string' || typeof msg.room !== 'string' || !msg.room) return ack?.({ ok: false });
    socket.join(msg.room);
    io.to(msg.room).emit('said', { ...msg, worker: process.pid, at: Date.now() });
    ack?.({ ok: true });
  });
});

server.listen(port, process.env.HOST ?? '127.0.0.1', () => {
  if (process.env.NODESUP_SLOT === '0') console.log(`socketio-chat on http://127.0.0.1:${port}/`);
});
