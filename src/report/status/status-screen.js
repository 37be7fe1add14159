// The terminal shell around the pure status screen: status-state.js decides (what to fetch, when
// to poll, when to give up, what a key does) and status-view.js draws; this file only owns the
// terminal (raw keys, the alternate screen, redraws in place), the signals, the calls the state
// asks for, and the one timer, all on an injected clock so that tests run it on a fake one.
// Why a thin ANSI layer and not ink: the view is already a pure function from snapshot to lines,
// so what is left is the alternate screen, cursor home, erase-to-end-of-line and raw keys, against
// React, a reconciler and yoga in the dependency tree of a supervisor that people put in
// production containers.

import { renderStatus, renderInspect } from './status-view.js';
import { initialState, reduce, keysOf } from './status-state.js';
import { visibleWidth, truncate, paint } from './ansi.js';

const ENTER = '\x1b[?1049h\x1b[?25l'; // alternate screen, hide cursor
const LEAVE = '\x1b[?25h\x1b[?1049l';
const REAL_CLOCK = { now: Date.now, setTimeout, clearTimeout };

/**
 * Live status view until the user quits; rejects when the supervisor is unreachable for failAfterMs.
 * `stopSignals` end the view; inside the supervisor (`start --tui`) they are the primary's to handle,
 * so it passes none and `until`, which ends the view once the supervisor has stopped.
 * `fetchHistory(slot, {rangeMs, points})`: the selected slot's history for its chart (the
 * `history` op); without it, or when it fails (an older supervisor), the chart draws the trail.
 * `clock`: { now, setTimeout, clearTimeout }, the real ones unless a test brings its own.
 */
export function runStatusScreen(options) {
  return new Promise((resolve, reject) => new StatusShell(options, resolve, reject).start());
}

class StatusShell {
  constructor({
    fetchSnapshot, fetchHistory = null, actions = {}, input = process.stdin, output = process.stdout, intervalMs = 1000,
    failAfterMs = 5000, color = output.hasColors?.() ?? false, signals = process,
    stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'], until = null, clock = REAL_CLOCK,
  }, resolve, reject) {
    Object.assign(this, { fetchSnapshot, fetchHistory, actions, input, output, failAfterMs, color, signals, stopSignals, until, clock, resolve, reject });
    this.raw = Boolean(input.isTTY && typeof input.setRawMode === 'function');
    this.state = initialState({ intervalMs, failAfterMs, history: Boolean(fetchHistory), now: clock.now(), ...this.size() });
    this.timer = null;
    this.deadlines = new Set();
    this.done = false;
    this.restored = false;
    // Bound once: the same functions go on the emitters and come off them.
    this.onData = (chunk) => this.guard(() => { for (const key of keysOf(String(chunk))) this.dispatch({ type: 'key', key }); });
    this.onResize = () => this.guard(() => this.dispatch({ type: 'resize', ...this.size() }));
    this.onSignal = (signal) => this.finish(null, { reason: 'signal', signal });
    this.onHangup = () => this.finish(null, { reason: 'hangup' });
    this.restore = () => this.restoreTerminal();
  }

  start() {
    this.guard(() => {
      this.output.write(ENTER);
      if (this.raw) this.input.setRawMode(true);
      this.listen();
      this.draw();
      this.dispatch({ type: 'tick' });
    });
  }

  listen() {
    const { input, output, signals } = this;
    input.on('data', this.onData);
    input.resume();
    output.on('resize', this.onResize);
    for (const sig of this.stopSignals) signals.on(sig, this.onSignal);
    this.until?.then(() => this.finish(null, { reason: 'stopped' }), (err) => this.finish(err));
    // The terminal went away (closed window, tmux kill-server): writes fail with EIO. Leave quietly.
    output.on('error', this.onHangup);
    input.on('error', this.onHangup);
    input.on('end', this.onHangup);
    // Last resorts: leave the terminal usable on process.exit() and before a crash is printed.
    signals.on('exit', this.restore);
    signals.on('uncaughtExceptionMonitor', this.restore);
  }

  size() {
    return { width: this.output.columns || 80, height: this.output.rows || 24 };
  }

  dispatch(input) {
    if (this.done) return;
    const { state, effects } = reduce(this.state, { ...input, now: this.clock.now() });
    this.state = state;
    for (const effect of effects) this.run(effect);
  }

  run(effect) {
    switch (effect.type) {
      case 'render': return this.draw();
      case 'schedule': return this.schedule(effect.inMs);
      case 'fetch':
        return this.call(() => this.fetchSnapshot(), this.failAfterMs, (snapshot) => ({ type: 'snapshot', snapshot }), (error) => ({ type: 'fetch-error', error }));
      case 'fetch-history': {
        const { slot, range } = effect;
        const answer = (doc) => ({ type: 'history', slot, range, data: doc?.range ?? null });
        return this.call(() => this.fetchHistory(slot, range), this.failAfterMs, answer, () => answer(null));
      }
      case 'action': {
        const { name, slot } = effect;
        const args = slot === null ? [] : [slot];
        // No deadline of ours: a reload replaces every slot in turn, which takes minutes.
        return this.call(() => this.actions[name](...args), null, (result) => ({ type: 'outcome', name, slot, result }), (error) => ({ type: 'outcome', name, slot, error }));
      }
      case 'quit': return effect.error ? this.finish(effect.error) : this.finish(null, { reason: 'quit' });
      default: throw new TypeError(`status screen: unknown effect ${effect.type}`);
    }
  }

  // Run fn, and hand its answer (or its failure, or its silence past `ms`) back as an input.
  call(fn, ms, ok, fail) {
    const work = Promise.resolve().then(fn);
    (ms === null ? work : this.deadline(work, ms))
      .then(ok, fail)
      .then((input) => this.dispatch(input))
      .catch((err) => this.finish(err));
  }

  deadline(promise, ms) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = this.clock.setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      this.deadlines.add(timer);
    });
    return Promise.race([promise, late]).finally(() => {
      this.clock.clearTimeout(timer);
      this.deadlines.delete(timer);
    });
  }

  // One timer at a time: the state says when it next wants a tick.
  schedule(ms) {
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.guard(() => this.dispatch({ type: 'tick' })), ms);
  }

  draw() {
    if (this.done) return;
    this.output.write(frame(screenLines(this.state, this.color), this.state.size));
  }

  guard(fn) {
    try {
      fn();
    } catch (err) {
      this.finish(err);
    }
  }

  finish(err, value) {
    if (this.done) return;
    this.done = true;
    this.clock.clearTimeout(this.timer);
    for (const timer of this.deadlines) this.clock.clearTimeout(timer);
    const { input, output, signals } = this;
    input.off('data', this.onData);
    output.off('resize', this.onResize);
    for (const sig of this.stopSignals) signals.off(sig, this.onSignal);
    // The error listeners stay: the leave-screen write to a dead terminal fails later, async.
    input.off('end', this.onHangup);
    signals.off('exit', this.restore);
    signals.off('uncaughtExceptionMonitor', this.restore);
    this.restoreTerminal();
    input.pause();
    if (err) this.reject(err);
    else this.resolve(value);
  }

  restoreTerminal() {
    if (this.restored) return;
    this.restored = true;
    // Best effort: when the terminal is gone (EIO) there is nothing left to restore.
    try {
      this.output.write(LEAVE);
      if (this.raw) this.input.setRawMode(false);
    } catch { /* terminal gone */ }
  }
}

/** What the screen shows for a state: the inspect overlay, the status view, or a connecting line. */
export function screenLines(state, color = false) {
  const { width, height } = state.size;
  if (state.overlay) {
    const all = renderInspect(state.overlay, { width, color });
    const rows = Math.max(0, height - 1);
    const hint = all.length > rows ? '↑↓ scroll · any other key closes' : 'press any key to close';
    return [...all.slice(state.overlayTop, state.overlayTop + rows), paint(truncate(hint, width), 'dim', color)];
  }
  const message = state.fetchError ? { text: state.fetchError, level: 'error' } : state.note;
  if (state.snapshot) return renderStatus(state.snapshot, { width, height, selected: state.selected, color, message, view: state.view });
  return ['nodesup status', '', message ? message.text : 'connecting to the supervisor…'].map((l) => truncate(l, width));
}

// Redraw in place: each line erases its own tail, then everything below goes. No full clear, so
// no flicker. A full-width line skips the erase (it would eat the last column).
function frame(lines, { width, height }) {
  let out = '';
  lines.slice(0, height).forEach((line, i) => {
    out += `${i === 0 ? '\x1b[H' : `\x1b[${i + 1};1H`}${line}${visibleWidth(line) < width ? '\x1b[K' : ''}`;
  });
  if (lines.length < height) out += `\x1b[${lines.length + 1};1H\x1b[J`;
  return out;
}
