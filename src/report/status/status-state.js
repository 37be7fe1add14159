// The live status screen as a pure state machine: reduce(state, input) → { state, effects }.
// Inputs are what happened (a key, a snapshot or a failed fetch, a history, an action's outcome, a
// timer's tick, a resize), each with the time it happened at (`now`); effects are what the shell
// in status-screen.js should do, as data. No I/O and no clock here, so every rule of the screen
// (polling, retrying, giving up, messages that expire) is tested as a table on a made-up clock.
import { NodesupError } from '../../errors.js';
import { renderInspect } from '../inspect-view.js';
import { actionOutcome } from './action-outcome.js';
import { RANGES, CHART_SERIES } from './status-detail.js';
import { slotIds } from './status-view.js';

export const MESSAGE_MS = 5000;

const KEYS = {
  '\x1b[A': 'up', '\x1bOA': 'up', k: 'up', '\x1b[B': 'down', '\x1bOB': 'down', j: 'down', q: 'quit', '\x03': 'interrupt',
  x: 'recycle', r: 'reload', i: 'inspect', t: 'range', s: 'series',
};
const ESCAPE = /^\x1b(?:\[[0-9;]*[A-Za-z~]|O[A-Za-z])/;

/** The keys in a chunk of terminal input, by name ('up', 'quit', …, 'other' for the rest). */
export function keysOf(text) {
  const keys = [];
  for (let i = 0; i < text.length;) {
    const seq = (text[i] === '\x1b' && ESCAPE.exec(text.slice(i))?.[0]) || text[i];
    i += seq.length;
    keys.push(KEYS[seq] ?? 'other');
  }
  return keys;
}

/**
 * The screen before anything happened. `history`: whether the shell can fetch a slot's history
 * (without it the chart draws the snapshot's trail). The first tick polls.
 */
export function initialState({ intervalMs = 1000, failAfterMs = 5000, messageMs = MESSAGE_MS, width = 80, height = 24, history = false, now = 0 } = {}) {
  return {
    opts: { intervalMs, failAfterMs, messageMs, history },
    now,
    size: { width, height },
    snapshot: null,
    selected: null, // a slot id, not an index: rows come and go
    note: null, // { text, level, until }
    fetchError: null,
    failingSince: null,
    overlay: null, // an inspect report, shown until any key but the scroll keys
    overlayTop: 0,
    overlayLines: 0,
    view: { range: 0, series: 0, data: null }, // the detail chart: indexes into RANGES, CHART_SERIES
    fetching: false,
    again: false, // poll as soon as the fetch in flight answers (an action just changed things)
    nextPollAt: -Infinity,
    wakeAt: null, // when the shell's one timer is set to tick
    done: false,
  };
}

/** The next state and the effects to run, for one input. Never mutates `state`. */
export function reduce(state, input) {
  if (state.done) return { state, effects: [] };
  const s = { ...state, now: input.now ?? state.now };
  const out = { effects: [], render: false };
  const handle = HANDLERS[input.type];
  if (!handle) throw new TypeError(`status screen: unknown input ${input.type}`);
  handle(s, input, out);
  if (!s.done) {
    poll(s, out);
    plan(s, out);
  }
  return { state: s, effects: [...(out.render && !s.done ? [{ type: 'render' }] : []), ...out.effects] };
}

const HANDLERS = {
  key: (s, { key }, out) => (s.overlay ? overlayKey(s, key, out) : tableKey(s, key, out)),
  snapshot: (s, { snapshot }, out) => {
    const ids = slotIds(snapshot);
    Object.assign(s, { snapshot, fetching: false, fetchError: null, failingSince: null });
    pollAfterFetch(s);
    if (!ids.includes(s.selected)) select(s, ids[0] ?? null, out);
    else askHistory(s, out); // the chart follows the slot live
    out.render = true;
  },
  'fetch-error': (s, { error }, out) => {
    s.fetching = false;
    s.failingSince ??= s.now;
    if (s.now - s.failingSince >= s.opts.failAfterMs) return quit(s, out, lost(error, s.opts.failAfterMs));
    // The supervisor may be restarting: keep the last picture, say so, and keep trying.
    s.fetchError = `cannot reach the supervisor: ${error?.message ?? error} (retrying)`;
    pollAfterFetch(s);
    out.render = true;
  },
  history: (s, { slot, range, data }, out) => {
    // An answer for a slot or range the user has since left is dropped: its own request is out.
    if (slot !== s.selected || range?.rangeMs !== RANGES[s.view.range]) return;
    s.view = { ...s.view, data: data ?? null };
    out.render = true;
  },
  outcome: (s, input, out) => {
    const { name, slot } = input;
    const label = name === 'reload' ? 'reload' : `${name} slot ${slot}`;
    if ('error' in input) say(s, out, `${label} failed: ${input.error?.message ?? input.error}`, 'error');
    else if (name === 'inspect') openOverlay(s, input.result ?? {}, out);
    else say(s, out, actionOutcome(label, input.result));
    // Show the action's effect now rather than at the next poll.
    if (s.fetching) s.again = true;
    else s.nextPollAt = Math.min(s.nextPollAt, s.now);
  },
  tick: (s, _input, out) => {
    s.wakeAt = null; // this timer has fired: plan() sets the next one
    if (s.note && s.note.until <= s.now) { s.note = null; out.render = true; }
  },
  resize: (s, { width, height }, out) => {
    s.size = { width, height };
    if (s.overlay) measureOverlay(s);
    out.render = true;
  },
};

function tableKey(s, key, out) {
  const slot = s.selected;
  switch (key) {
    case 'quit':
    case 'interrupt': return quit(s, out);
    case 'up': return move(s, -1, out);
    case 'down': return move(s, 1, out);
    case 'reload': return act(s, out, 'reload', null);
    case 'recycle':
    case 'inspect':
      if (slot === null) return say(s, out, 'no worker selected', 'warn');
      return act(s, out, key, slot);
    case 'range':
      s.view = { ...s.view, range: (s.view.range + 1) % RANGES.length, data: null };
      askHistory(s, out);
      out.render = true;
      return undefined;
    case 'series':
      s.view = { ...s.view, series: (s.view.series + 1) % CHART_SERIES.length };
      out.render = true;
      return undefined;
    default: return undefined;
  }
}

// ↑↓ scroll the overlay, any other key closes it, q included; only Ctrl-C goes straight out.
function overlayKey(s, key, out) {
  if (key === 'interrupt') return quit(s, out);
  if (key === 'up' || key === 'down') s.overlayTop = clampTop(s, s.overlayTop + (key === 'up' ? -1 : 1));
  else s.overlay = null;
  out.render = true;
  return undefined;
}

function move(s, by, out) {
  const ids = slotIds(s.snapshot);
  if (!ids.length) return;
  const at = Math.min(ids.length - 1, Math.max(0, ids.indexOf(s.selected) + by));
  if (ids[at] !== s.selected) select(s, ids[at], out);
}

function select(s, slot, out) {
  s.selected = slot;
  s.view = { ...s.view, data: null };
  askHistory(s, out);
  out.render = true;
}

function act(s, out, name, slot) {
  say(s, out, `${name === 'reload' ? 'reload' : `${name} slot ${slot}`}…`);
  out.effects.push({ type: 'action', name, slot });
}

function say(s, out, text, level = 'info') {
  s.note = { text, level, until: s.now + s.opts.messageMs };
  out.render = true;
}

function quit(s, out, error = null) {
  s.done = true;
  out.effects.push(error ? { type: 'quit', error } : { type: 'quit' });
}

// The report is longer than most terminals: it scrolls, and its first line on screen is clamped
// so that the last line can reach the bottom and no further.
function openOverlay(s, report, out) {
  Object.assign(s, { note: null, overlay: report, overlayTop: 0 });
  measureOverlay(s);
  out.render = true;
}

function measureOverlay(s) {
  s.overlayLines = renderInspect(s.overlay, { width: s.size.width }).length;
  s.overlayTop = clampTop(s, s.overlayTop);
}

function clampTop(s, top) {
  const rows = Math.max(0, s.size.height - 1);
  return Math.max(0, Math.min(top, s.overlayLines - rows));
}

// Two dots a column over the whole width: the chart buckets them to its own plot width.
function askHistory(s, out) {
  if (!s.opts.history || s.selected === null) return;
  out.effects.push({ type: 'fetch-history', slot: s.selected, range: { rangeMs: RANGES[s.view.range], points: 2 * s.size.width } });
}

function pollAfterFetch(s) {
  s.nextPollAt = s.again ? s.now : s.now + s.opts.intervalMs;
  s.again = false;
}

function poll(s, out) {
  if (s.fetching || s.now < s.nextPollAt) return;
  s.fetching = true;
  out.effects.push({ type: 'fetch' });
}

// One timer: the next poll (unless a fetch is out: its answer sets the next), or a message's end.
function plan(s, out) {
  const at = Math.min(s.fetching ? Infinity : s.nextPollAt, s.note ? s.note.until : Infinity);
  if (!Number.isFinite(at) || at === s.wakeAt) return;
  s.wakeAt = at;
  out.effects.push({ type: 'schedule', inMs: Math.max(0, at - s.now) });
}

function lost(err, ms) {
  if (err instanceof NodesupError) return err;
  return new NodesupError('NODESUP_ERR_NOT_RUNNING', `status: no answer from the supervisor for ${Math.round(ms / 1000)} s: ${err?.message ?? err}`, { cause: err });
}
