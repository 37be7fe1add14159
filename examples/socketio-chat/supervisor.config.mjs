// The chat under nodesup: two workers, sticky sessions for socket.io's long-polling, and drains
// short enough to watch (a reload: `npx nodesup reload socketio-chat`).
import { defineConfig } from 'nodesup';

export default defineConfig({
  name: 'socketio-chat',
  script: 'server.js',
  workers: 2,
  balance: 'sticky',                 // the same client always reaches the same worker
  // stickyHeader: 'x-forwarded-for', // behind a proxy: the client's address is in this header
  limits: { rss: '256mb' },
  recycle: { killTimeout: '10s' },
  metrics: false,
});
