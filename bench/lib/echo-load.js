// Load from real clients with a ledger of its own: every request carries an id, and the server
// echoes it (test/fixtures/apps/echo-leaky.js). Each request ends in exactly one outcome, decided
// from what came back rather than from a client library's counters:
//  - ok: a 200 whose whole body echoes this request's id;
//  - failed: an error (reset, refused, timeout…), another status, a body cut short or not ours,
//    or still pending a grace period after the load stopped.
// Latency is each request's own, from the moment it was handed to the client to its last byte.
// Clients:
//  - undici: a Pool of `connections` keep-alive connections, each kept busy;
//  - agent: node's http.Agent with keep-alive, `connections` loops that pause now and then for
//    up to idleGapMs, so that idle sockets meet the server's drain (the keep-alive race).
import http from 'node:http';
import { Pool } from 'undici';

const BODY = /^ok (\d+) (\d+) \.+ end\n$/;

/**
 * @param {{url: string, client: 'undici'|'agent', connections: number, durationMs: number,
 *   idleGapMs?: number, graceMs?: number, firstId?: number, timeoutMs?: number, signal?: AbortSignal}} o
 * signal: ends the load before durationMs (no new request; those in flight get the grace).
 */
export async function echoLoad({ url, client, connections, durationMs, idleGapMs = 0, graceMs = 2000, firstId = 0, timeoutMs = 10_000, signal }) {
  const ledger = new Map(); // id -> { t0, ms, outcome }
  let nextId = firstId;
  const end = Date.now() + durationMs;
  const target = new URL(url);
  const pool = client === 'undici' ? new Pool(target.origin, { connections, pipelining: 1, bodyTimeout: timeoutMs, headersTimeout: timeoutMs }) : null;
  const agent = client === 'agent' ? new http.Agent({ keepAlive: true, maxSockets: connections }) : null;

  const settle = (rec, outcome) => {
    if (rec.outcome !== 'pending') return;
    rec.outcome = outcome;
    rec.ms = performance.now() - rec.t0;
  };
  const judge = (id, rec, status, body) => {
    const m = BODY.exec(body);
    if (status !== 200) settle(rec, `status ${status}`);
    else if (!m) settle(rec, 'body cut or not ours');
    else if (Number(m[1]) !== id) settle(rec, 'someone else\'s answer');
    else settle(rec, 'ok');
  };

  const one = (id) => {
    const rec = { t0: performance.now(), ms: null, outcome: 'pending' };
    ledger.set(id, rec);
    const path = `${target.pathname}?id=${id}`;
    if (pool) {
      return pool.request({ path, method: 'GET' })
        .then(async (res) => judge(id, rec, res.statusCode, await res.body.text()))
        .catch((e) => settle(rec, `error ${e.code ?? e.message}`));
    }
    return new Promise((resolve) => {
      const req = http.get({ host: target.hostname, port: target.port, path, agent, timeout: timeoutMs }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => { body += c; });
        res.on('end', () => { judge(id, rec, res.statusCode, body); resolve(); });
        res.on('error', (e) => { settle(rec, `error ${e.code ?? e.message}`); resolve(); });
        res.on('aborted', () => { settle(rec, 'body cut or not ours'); resolve(); });
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (e) => { settle(rec, `error ${e.code ?? e.message}`); resolve(); });
    });
  };

  const loop = async () => {
    while (Date.now() < end && !signal?.aborted) {
      await one(nextId++);
      if (idleGapMs && Math.random() < 0.02) await new Promise((r) => setTimeout(r, Math.random() * idleGapMs));
    }
  };
  const loops = Promise.all(Array.from({ length: connections }, loop));
  // Requests still pending after the grace count as failed: a hang is a loss too.
  const stopped = new Promise((r) => {
    const timer = setTimeout(r, durationMs);
    signal?.addEventListener('abort', () => { clearTimeout(timer); r(); }, { once: true });
  });
  await Promise.race([loops, stopped.then(() => new Promise((r) => setTimeout(r, graceMs)))]);
  for (const rec of ledger.values()) if (rec.outcome === 'pending') settle(rec, 'pending after the grace');
  await pool?.destroy();
  agent?.destroy();
  return summarize(ledger);
}

function summarize(ledger) {
  const failures = {};
  const ms = [];
  let ok = 0;
  for (const rec of ledger.values()) {
    ms.push(rec.ms);
    if (rec.outcome === 'ok') ok++;
    else failures[rec.outcome] = (failures[rec.outcome] ?? 0) + 1;
  }
  ms.sort((a, b) => a - b);
  const at = (q) => (ms.length ? Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] * 10) / 10 : null);
  return {
    sent: ledger.size,
    ok,
    failed: ledger.size - ok,
    failures,
    latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
    ledger,
  };
}

/**
 * The server's side: every id the workers recorded as answered (one file per pid in dir), against
 * the client's ledger. okNotServed: answers the client took as ours that no server recorded (0
 * unless an answer is forged or misrouted); servedButFailed: answers a server wrote that the
 * client never got whole (a response lost on its way).
 */
export function crossCheck(ledger, serverIds) {
  let okNotServed = 0;
  let servedButFailed = 0;
  for (const [id, rec] of ledger) {
    const served = serverIds.has(String(id));
    if (rec.outcome === 'ok' && !served) okNotServed++;
    if (rec.outcome !== 'ok' && served) servedButFailed++;
  }
  return { okNotServed, servedButFailed };
}
