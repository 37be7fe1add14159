// Reading nodesup's pprof profiles back in tests, two ways: pprof-format's decoder into plain
// objects, and Go's own `go tool pprof`, the reader the fleet's tools share (a profile only the
// library that wrote it can read proves little).
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { Profile } from 'pprof-format';

/**
 * A gzip-compressed pprof profile as plain data: sample types, default type, comments, and each
 * sample's stack (innermost first), values by type and labels.
 * @param {Uint8Array} gz
 */
export function decodePprof(gz) {
  const p = Profile.decode(zlib.gunzipSync(gz));
  const s = (i) => p.stringTable.strings[Number(i)];
  const fns = new Map(p.function.map((f) => [Number(f.id), f]));
  const locs = new Map(p.location.map((l) => [Number(l.id), l]));
  const types = p.sampleType.map((t) => s(t.type));
  const frame = (id) => {
    const line = locs.get(Number(id)).line[0];
    const f = fns.get(Number(line.functionId));
    return { fn: s(f.name), file: s(f.filename), line: Number(line.line) };
  };
  return {
    types,
    units: p.sampleType.map((t) => s(t.unit)),
    defaultType: s(p.defaultSampleType),
    comments: p.comment.map(s),
    timeMs: Number(BigInt(p.timeNanos) / 1_000_000n),
    period: Number(p.period),
    samples: p.sample.map((x) => ({
      stack: x.locationId.map(frame),
      values: Object.fromEntries(types.map((t, i) => [t, Number(x.value[i])])),
      labels: Object.fromEntries(x.label.map((l) => [s(l.key), s(l.str)])),
    })),
  };
}

/** `go tool pprof <args> <file>`: {status, stdout, stderr}. */
export function goPprof(file, ...args) {
  const run = spawnSync('go', ['tool', 'pprof', ...args, file], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout ?? '', stderr: run.stderr ?? '', error: run.error };
}

/** The rows of `go tool pprof -top` after its header: {flat, flatPct, name} in its order. */
export function topRows(stdout) {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => /^\s*flat\s+flat%/.test(l));
  return lines.slice(at + 1).filter((l) => l.trim()).map((l) => {
    const m = /^\s*(\S+)\s+(\S+)%\s+\S+%\s+\S+\s+\S+%\s+(.*)$/.exec(l);
    return m ? { flat: m[1], flatPct: Number(m[2]), name: m[3].trim() } : { flat: null, flatPct: null, name: l.trim() };
  });
}
