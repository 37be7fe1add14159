// A V8 CPU profile (.cpuprofile, as --cpu-prof writes it) read as shares of its busy samples by
// function, self time: where a process spent the CPU it used.

const IDLE = '(idle)';
const GC = '(garbage collector)';

/** A function's name in a profile: `name url:line` (line 1-based), the url shortened to its last two parts. */
export function frameName({ functionName, url, lineNumber }) {
  const where = url ? url.split('/').slice(-2).join('/') : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}

/**
 * @param {{nodes: {id:number, callFrame: {functionName:string, url:string, lineNumber:number}}[], samples: number[]}} profile
 * @param {(url: string) => boolean} isOurs  which frames are nodesup's own
 * @returns {{busy:number, gcShare:number, oursShare:number, ours:{name:string, share:number}[], top:{name:string, share:number}[], of:(name:string) => number}}
 */
export function profileShares(profile, isOurs) {
  const frame = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map();
  const ours = new Map();
  let busy = 0;
  let gc = 0;
  for (const id of profile.samples) {
    const cf = frame.get(id);
    if (!cf || cf.functionName === IDLE) continue;
    busy++;
    if (cf.functionName === GC) gc++;
    const name = frameName(cf);
    self.set(name, (self.get(name) ?? 0) + 1);
    if (isOurs(cf.url)) ours.set(name, (ours.get(name) ?? 0) + 1);
  }
  const ranked = (m) => [...m].map(([name, n]) => ({ name, share: busy ? n / busy : 0 })).sort((a, b) => b.share - a.share);
  const top = ranked(self);
  const byName = new Map(top.map((f) => [f.name, f.share]));
  const oursRanked = ranked(ours);
  return {
    busy,
    gcShare: busy ? gc / busy : 0,
    oursShare: oursRanked.reduce((a, f) => a + f.share, 0),
    ours: oursRanked,
    top: top.slice(0, 15),
    of: (name) => byName.get(name) ?? 0,
  };
}
