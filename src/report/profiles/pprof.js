// A leak's evidence in the formats profilers read: pprof (gzip-compressed protobuf, encoded by
// pprof-format), which go tool pprof, Pyroscope, Parca and Grafana open and merge across pods by
// label, and V8's own .heapprofile, which Chrome DevTools opens. Pure: evidence in, bytes out.
//
// What nodesup holds is not V8's whole allocation tree but sites (core/sites/heap-sites.js): the
// innermost frame of the app's code that allocated, with the app's own frame that reached it when
// the site lies in a library (`via`). So each stack is one or two frames deep: the site, and `via`
// as its caller. Two sample types:
//   inuse_space  bytes the sampling profiler (or the Buffer sampler) holds as still live per site
//                when the profile was made: V8's estimates, already scaled by its sampling interval.
//                Absent, not 0, when no sampler ran in the worker at that moment.
//   growth_rate  bytes per second the named leak attributes to the site (its retained growth);
//                0 for a site the leak did not name (it grew by less than a tenth of the growth).
import zlib from 'node:zlib';
import { Profile, ValueType, Sample, Label, Location, Line, Function as PprofFunction, StringTable } from 'pprof-format';

export const INUSE = 'inuse_space';
export const GROWTH = 'growth_rate';

/**
 * @typedef {{fn:string, file:string, line:number, bytes?:number, bytesPerMin?:number, package?:string, through?:string,
 *   resource?:string, via?:{fn?:string, file:string, line:number}}} EvidenceSite
 * @typedef {object} Evidence
 * @property {string} kind  the leak kind (heap, external, …)
 * @property {string} reason  a recycle reason, `leak` for a named leak, or `inspect`
 * @property {number|null} slot
 * @property {number|null} pid
 * @property {string} name  the supervisor's
 * @property {number} at  ms since the epoch
 * @property {EvidenceSite[]} named  the sites the leak names, with bytesPerMin
 * @property {{sites: EvidenceSite[], total?: number}|null} live  what the sampler holds as live now (bytes per site), or null
 * @property {number|null} period  the sampler's mean interval in bytes
 * @property {string[]} [comments]
 */

const keyOf = (s) => `${s.fn}\u0000${s.file}\u0000${s.line}\u0000${s.resource ?? ''}`;

/**
 * The named sites and the live ones, site by site: {site, inuse, growth} (inuse null without a live read).
 * @param {Evidence} e
 */
export function mergeSites(e) {
  const bySite = new Map();
  const entry = (s) => {
    const k = keyOf(s);
    if (!bySite.has(k)) bySite.set(k, { site: s, inuse: e.live ? 0 : null, growth: 0 });
    return bySite.get(k);
  };
  for (const s of e.live?.sites ?? []) if (s.bytes > 0) entry(s).inuse += s.bytes;
  for (const s of e.named ?? []) {
    const x = entry(s);
    if (Number.isFinite(s.bytesPerMin) && s.bytesPerMin > 0) x.growth += s.bytesPerMin / 60;
    // The named site carries what the live read may lack (a library's via, through).
    x.site = { ...s, ...x.site, via: x.site.via ?? s.via, through: x.site.through ?? s.through, package: x.site.package ?? s.package };
  }
  return [...bySite.values()]
    .filter((x) => (x.inuse ?? 0) > 0 || x.growth > 0)
    .sort((a, b) => (b.inuse ?? 0) - (a.inuse ?? 0) || b.growth - a.growth);
}

/**
 * The pprof Profile of one piece of evidence (a pprof-format object; encodePprof gives its bytes).
 * @param {Evidence} e
 */
export function pprofProfile(e) {
  const strings = new StringTable();
  const str = (s) => strings.dedup(String(s ?? ''));
  const rows = mergeSites(e);
  const withInuse = e.live !== null && e.live !== undefined;
  const types = [...(withInuse ? [[INUSE, 'bytes']] : []), [GROWTH, 'bytes/s']];
  const sampleType = types.map(([type, unit]) => new ValueType({ type: str(type), unit: str(unit) }));

  const functions = new Map();
  const locations = new Map();
  const fnId = (fn, file, startLine) => {
    const k = `${fn}\u0000${file}`;
    if (!functions.has(k)) functions.set(k, new PprofFunction({ id: functions.size + 1, name: str(fn), systemName: str(fn), filename: str(file), startLine }));
    return functions.get(k).id;
  };
  const locId = (fn, file, line) => {
    const k = `${fn}\u0000${file}\u0000${line}`;
    if (!locations.has(k)) locations.set(k, new Location({ id: locations.size + 1, line: [new Line({ functionId: fnId(fn, file, line), line })] }));
    return locations.get(k).id;
  };
  const label = (key, value) => new Label({ key: str(key), str: str(value) });
  const common = [label('kind', e.kind), label('reason', e.reason), ...(e.slot != null ? [label('slot', e.slot)] : [])];

  const sample = rows.map(({ site, inuse, growth }) => {
    const stack = [locId(frameName(site), site.file, site.line || 0)];
    if (site.via) stack.push(locId(site.via.fn || '(anonymous)', site.via.file, site.via.line || 0));
    const values = [...(withInuse ? [Math.round(inuse)] : []), Math.round(growth)];
    const labels = [...common, ...(site.package ? [label('package', site.package)] : []), ...(site.resource ? [label('resource', site.resource)] : [])];
    return new Sample({ locationId: stack, value: values, label: labels });
  });

  const comments = [
    `nodesup ${e.name}: ${e.kind} ${e.reason === 'inspect' ? 'sites of a live worker' : e.reason === 'leak' ? 'leak named' : `recycle (${e.reason})`}` +
      `${e.slot != null ? `, slot ${e.slot}` : ''}${e.pid != null ? `, pid ${e.pid}` : ''}`,
    withInuse ? `${INUSE}: bytes the sampler held as live per site when this was written`
      : `no ${INUSE}: no sampler ran in the worker when this was written, only the leak's growth per site`,
    `${GROWTH}: bytes per second the named leak attributes to the site; 0 where it named none`,
    ...(e.comments ?? []),
  ];
  return new Profile({
    sampleType,
    sample,
    location: [...locations.values()],
    function: [...functions.values()],
    stringTable: strings,
    timeNanos: BigInt(Math.round(e.at)) * 1_000_000n,
    periodType: new ValueType({ type: str('space'), unit: str('bytes') }),
    period: e.period ?? 0,
    comment: comments.map(str),
    defaultSampleType: str(withInuse ? INUSE : GROWTH),
  });
}

// A zlib stream left open is named by what it is, then where it was opened.
const frameName = (s) => (s.resource ? `${s.resource} ${s.fn}` : s.fn);

/** The gzip-compressed protobuf of one piece of evidence: what `go tool pprof` reads. @param {Evidence} e */
export function encodePprof(e) {
  return zlib.gzipSync(pprofProfile(e).encode());
}

/**
 * The same evidence as V8's sampling heap profile (`.heapprofile`, JSON), which Chrome DevTools'
 * Memory panel loads: a tree under a (root) node, each site a leaf below its `via`. Its sizes are
 * the live bytes where a sampler ran, else the growth of one minute.
 * @param {Evidence} e
 * @returns {string}
 */
export function heapProfileJson(e) {
  let nextId = 1;
  const node = (functionName, file, line, selfSize = 0) => ({
    callFrame: { functionName, scriptId: '0', url: file ? (file.startsWith('/') ? `file://${file}` : file) : '', lineNumber: Math.max(0, (line || 1) - 1), columnNumber: 0 },
    selfSize, id: nextId++, children: [],
  });
  const root = node('(root)', '', 0);
  const callers = new Map();
  for (const { site, inuse, growth } of mergeSites(e)) {
    const size = Math.round(inuse ?? growth * 60);
    if (size <= 0) continue;
    let parent = root;
    if (site.via) {
      const k = `${site.via.fn}\u0000${site.via.file}\u0000${site.via.line}`;
      if (!callers.has(k)) {
        const v = node(site.via.fn || '(anonymous)', site.via.file, site.via.line);
        root.children.push(v);
        callers.set(k, v);
      }
      parent = callers.get(k);
    }
    parent.children.push(node(frameName(site), site.file, site.line, size));
  }
  return JSON.stringify({ head: root, samples: [] });
}
