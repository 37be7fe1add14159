// The terminal shell around the pure status view. Why a thin ANSI layer and not ink: the view is
// already a pure function from snapshot to lines, so what is left is the alternate screen, cursor
// home, erase-to-end-of-line, and raw keys: about a hundred lines, against React, a reconciler
// and yoga in the dependency tree of a supervisor that people put in production containers.

import { actionOutcome } from './action-outcome.js';
import { renderStatus, renderInspect } from './status-view.js';
import { RANGES, CHART_SERIES } from './status-detail.js';
import { visibleWidth, truncate, paint } from './ansi.js';
import { NodesupError } from '../../errors.js';

const ENTER = '\x1b[?1049h\x1b[?25l'; // alternate screen, hide cursor
const LEAVE = '\x1b[?25h\x1b[?1049l';
const MESSAGE_MS = 5000;
const KEYS = { '\x1b[A': 'up', '\x1bOA': 'up', k: 'up', '\x1b[B': 'down', '\x1bOB': 'down', j: 'down', q: 'quit', '\x03': 'interrupt', x: 'recycle', r: 'reload', i: 'inspect', t: 'range', s: 'series' };

/**
 * Live status view until the user quits; rejects when the supervisor is unreachable for failAfterMs.
 * `stopSignals` end the view; inside the supervisor (`start --tui`) they are the primary's to handle,
 * so it passes none and `until`, which ends the view once the supervisor has stopped.
 * `fetchHistory(slot, {rangeMs, points})`: the selected slot's history for its chart (the
 * `history` op); without it, or when it fails (an older supervisor), the chart draws the trail.
 */
export function runStatusScreen({
  fetchSnapshot, fetchHistory = null, actions = {}, input = process.stdin, output = process.stdout, intervalMs = 1000,
  failAfterMs = 5000, color = output.hasColors?.() ?? false, signals = process,
  stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'], until = null,
}) {
  return new Promise((resolve, reject) => {
    let snapshot = null;
    let selected = null;
    let note = null; // { text, level, until }
    let fetchError = null;
    let failingSince = null;
    let overlay = null; // inspect report, shown until any key but the scroll keys
    let overlayTop = 0; // its first line on screen: the report is longer than most terminals
    const view = { range: 0, series: 0, data: null };
    let timer = null;
    let done = false;
    const raw = Boolean(input.isTTY && typeof input.setRawMode === 'function');

    const size = () => ({ width: output.columns || 80, height: output.rows || 24 });
    const say = (text, level = 'info') => { note = { text, level, until: Date.now() + MESSAGE_MS }; draw(); };

    const draw = () => {
      if (done) return;
      const { width, height } = size();
      const message = fetchError ? { text: fetchError, level: 'error' } : note && note.until > Date.now() ? note : null;
      let lines;
      if (overlay) {
        const all = renderInspect(overlay, { width, color });
        const rows = Math.max(0, height - 1);
        overlayTop = Math.max(0, Math.min(overlayTop, all.length - rows));
        const hint = all.length > rows ? '↑↓ scroll · any other key closes' : 'press any key to close';
        lines = [...all.slice(overlayTop, overlayTop + rows), paint(truncate(hint, width), 'dim', color)];
      } else if (snapshot) {
        lines = renderStatus(snapshot, { width, height, selected, color, message, view });
      } else {
        lines = ['nodesup status', '', message ? message.text : 'connecting to the supervisor…'].map((l) => truncate(l, width));
      }
      // Redraw in place: each line erases its own tail, then everything below goes. No full clear,
      // so no flicker. A full-width line skips the erase (it would eat the last column).
      let out = '';
      lines.slice(0, height).forEach((line, i) => {
        out += `${i === 0 ? '\x1b[H' : `\x1b[${i + 1};1H`}${line}${visibleWidth(line) < width ? '\x1b[K' : ''}`;
      });
      if (lines.length < height) out += `\x1b[${lines.length + 1};1H\x1b[J`;
      output.write(out);
    };

    const restore = () => {
      if (restore.done) return;
      restore.done = true;
      // Best effort: when the terminal is gone (EIO) there is nothing left to restore.
      try {
        output.write(LEAVE);
        if (raw) input.setRawMode(false);
      } catch { /* terminal gone */ }
    };
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      input.off('data', onData);
      output.off('resize', onResize);
      for (const sig of stopSignals) signals.off(sig, onSignal);
      // The error listeners stay: the leave-screen write to a dead terminal fails later, async.
      input.off('end', onHangup);
      signals.off('exit', restore);
      signals.off('uncaughtExceptionMonitor', restore);
      restore();
      input.pause();
      if (err) reject(err);
      else resolve(value);
    };
    const onHangup = () => finish(null, { reason: 'hangup' });
    const guard = (fn) => (...args) => { try { fn(...args); } catch (err) { finish(err); } };

    const selectedIndex = () => (snapshot?.slots ?? []).findIndex((s) => s.slot === selected);
    const move = (by) => {
      const slots = snapshot?.slots ?? [];
      if (!slots.length) return;
      const at = Math.min(slots.length - 1, Math.max(0, selectedIndex() + by));
      selected = slots[at].slot;
      draw();
      refreshSoon(); // the chart of the newly selected slot
    };
    const act = (label, run, onResult = (r) => say(resultText(label, r))) => {
      say(`${label}…`);
      Promise.resolve()
        .then(run)
        .then((r) => { if (!done) onResult(r); }, (err) => { if (!done) say(`${label} failed: ${err?.message ?? err}`, 'error'); })
        .finally(refreshSoon)
        .catch((err) => finish(err));
    };

    const onKey = (key) => {
      // ↑↓ scroll the overlay, any other key closes it, q included; only Ctrl-C goes straight out.
      if (overlay && (key === 'up' || key === 'down')) { overlayTop += key === 'up' ? -1 : 1; return draw(); }
      if (overlay && key !== 'interrupt') { overlay = null; return draw(); }
      const slot = selected;
      switch (key) {
        case 'quit':
        case 'interrupt': return finish(null, { reason: 'quit' });
        case 'up': return move(-1);
        case 'down': return move(1);
        case 'recycle':
          if (slot === null) return say('no worker selected', 'warn');
          return act(`recycle slot ${slot}`, () => actions.recycle(slot));
        case 'reload': return act('reload', () => actions.reload());
        case 'range': view.range = (view.range + 1) % RANGES.length; view.data = null; draw(); return refreshSoon();
        case 'series': view.series = (view.series + 1) % CHART_SERIES.length; return draw();
        case 'inspect':
          if (slot === null) return say('no worker selected', 'warn');
          return act(`inspect slot ${slot}`, () => actions.inspect(slot), (report) => { note = null; overlay = report ?? {}; overlayTop = 0; draw(); });
        default:
      }
    };
    const onData = guard((chunk) => {
      const text = String(chunk);
      for (let i = 0; i < text.length && !done;) {
        const seq = (text[i] === '\x1b' && /^\x1b(?:\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(text.slice(i))?.[0]) || text[i];
        i += seq.length;
        onKey(KEYS[seq] ?? 'other');
      }
    });
    const onResize = guard(() => draw());
    const onSignal = (signal) => finish(null, { reason: 'signal', signal });

    // Two dots a column over the whole width: the chart buckets them to its own plot width.
    const historyOf = (slot) => withTimeout(fetchHistory(slot, { rangeMs: RANGES[view.range], points: 2 * size().width }), failAfterMs)
      .then((doc) => doc?.range ?? null, () => null);
    let inFlight = false;
    const pollOnce = async () => {
      if (done) return;
      inFlight = true;
      try {
        const next = await withTimeout(fetchSnapshot(), failAfterMs);
        if (done) return;
        const slots = next.slots ?? [];
        snapshot = next;
        fetchError = null;
        failingSince = null;
        if (!slots.some((s) => s.slot === selected)) selected = slots.length ? slots[0].slot : null;
        view.data = selected !== null && fetchHistory ? await historyOf(selected) : null;
      } catch (err) {
        if (done) return;
        failingSince ??= Date.now();
        // The supervisor may be restarting: keep the last picture, say so, and keep trying.
        fetchError = `cannot reach the supervisor: ${err?.message ?? err} (retrying)`;
        if (Date.now() - failingSince >= failAfterMs) return finish(lost(err, failAfterMs));
      } finally {
        inFlight = false;
      }
      draw();
      clearTimeout(timer);
      timer = setTimeout(poll, intervalMs);
    };
    const poll = () => { pollOnce().catch((err) => finish(err)); };
    // After an action, show its effect now rather than at the next tick.
    const refreshSoon = () => {
      if (done || inFlight) return;
      clearTimeout(timer);
      timer = setTimeout(poll, 0);
    };

    try {
      output.write(ENTER);
      if (raw) input.setRawMode(true);
      input.on('data', onData);
      input.resume();
      output.on('resize', onResize);
      for (const sig of stopSignals) signals.on(sig, onSignal);
      until?.then(() => finish(null, { reason: 'stopped' }), (err) => finish(err));
      // The terminal went away (closed window, tmux kill-server): writes fail with EIO. Leave quietly.
      output.on('error', onHangup);
      input.on('error', onHangup);
      input.on('end', onHangup);
      // Last resorts: leave the terminal usable on process.exit() and before a crash is printed.
      signals.on('exit', restore);
      signals.on('uncaughtExceptionMonitor', restore);
      draw();
      poll();
    } catch (err) {
      finish(err);
    }
  });
}

const resultText = actionOutcome;

function withTimeout(promise, ms) {
  let t;
  const timeout = new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}

function lost(err, ms) {
  if (err instanceof NodesupError) return err;
  return new NodesupError('NODESUP_ERR_NOT_RUNNING', `status: no answer from the supervisor for ${Math.round(ms / 1000)} s: ${err?.message ?? err}`, { cause: err });
}
