// Where nodesup leaves what it learns of a leak (`diagnose.dir`): its pprof profiles, and the heap
// snapshots drained workers write (primary/recycle/drain-snapshots.js, removed once read). Bounded, since a pod's disk is small and a leak that recycles
// every minute would fill it: at most MAX_FILES of nodesup's files and MAX_BYTES together, the
// oldest removed first; nothing written while the disk has less than MIN_FREE left. Files are 0600:
// a heap profile names the app's code and paths.
//
// The default is under the OS temp dir, not the control run dir: that one is often a tmpfs
// ($XDG_RUNTIME_DIR, or /tmp in many images), counted in the container's memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodesupError } from '../../errors.js';

export const BOUNDS = Object.freeze({
  maxFiles: 100,
  maxBytes: 32 * 1024 * 1024,
  minFree: 64 * 1024 * 1024,
});

// nodesup's own files in the directory: only these are counted and removed, never a file of the team's.
const OURS = /^nodesup-.+\.(?:pb\.gz|heapprofile)$/;

const uid = () => process.getuid?.() ?? os.userInfo().username;

/** The default: `<tmpdir>/nodesup-diagnose-<uid>/<name>`, the parent private to this user. */
export function defaultDiagnoseDir(name, { tmpdir = os.tmpdir() } = {}) {
  return path.join(tmpdir, `nodesup-diagnose-${uid()}`, name ?? 'nodesup');
}

/**
 * The directory a config names: `diagnose.dir` against the config file's directory (or the working
 * directory without one), else the default for the supervisor's name.
 * @param {import('../../types.js').Config} config
 */
export function diagnoseDirOf(config) {
  const dir = config.diagnose?.dir ?? null;
  if (!dir) return defaultDiagnoseDir(config.name);
  return path.resolve(config.configFile ? path.dirname(config.configFile) : process.cwd(), dir);
}

/** A file name nobody else's could be: nodesup-<name>-<time>-slot<S>-<kind>-<reason>.pb.gz. */
export function profileFileName({ name, at, slot, kind, reason, ext = 'pb.gz' }) {
  const stamp = new Date(at).toISOString().replace(/[-:]/g, '');
  const part = (s) => String(s).replace(/[^\w.@-]/g, '_');
  return `nodesup-${part(name)}-${stamp}-${slot == null ? 'all' : `slot${slot}`}-${part(kind)}-${part(reason)}.${ext}`;
}

/**
 * The directory, made on first use. write() throws a NodesupError (NODESUP_ERR_NO_ROOM when the
 * disk is short, NODESUP_ERR_CONFIG when the directory cannot be used: the key's value) with what to do.
 * @param {string} dir
 * @param {{bounds?: typeof BOUNDS, privateParent?: boolean, statfs?: (dir:string) => {bavail:number, bsize:number}}} [o]
 *   privateParent: the default's parent under the temp dir, made 0700 and refused when not ours
 */
export function diagnoseDir(dir, { bounds = BOUNDS, privateParent = false, statfs = fs.statfsSync } = {}) {
  let ready = false;
  const ensure = () => {
    if (ready) return;
    if (privateParent) ensurePrivate(path.dirname(dir));
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw unusable(dir, `cannot create it: ${err.code ?? err.message}`, err);
    }
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) throw unusable(dir, 'it is not a directory');
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw unusable(dir, `it is owned by uid ${st.uid}, not by us`);
    ready = true;
  };
  return {
    dir,
    /** The directory, made (and checked ours) on first use: for a file another process writes. */
    ready() {
      ensure();
      return dir;
    },
    /** Write `bytes` as `base` (0600), then keep the directory within its bounds. Returns the path. */
    write(base, bytes) {
      ensure();
      const free = freeBytes(dir, statfs);
      if (free !== null && free - bytes.length < bounds.minFree) {
        throw new NodesupError('NODESUP_ERR_NO_ROOM', `${dir} has ${Math.floor(free / 1048576)} MiB free, under the ${bounds.minFree / 1048576} MiB nodesup leaves; nothing was written there (free some space, or set diagnose.dir to another disk)`);
      }
      // Another supervisor sharing the directory may take the same name between the look and the write.
      for (let attempt = 1; ; attempt++) {
        const file = freshName(dir, base);
        try {
          fs.writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
        } catch (err) {
          if (err.code === 'EEXIST' && attempt < 5) continue;
          throw unusable(dir, `cannot write ${path.basename(file)}: ${err.code ?? err.message}`, err);
        }
        prune(dir, bounds, file);
        return file;
      }
    },
    /** nodesup's files in it, oldest first: {file, bytes, mtimeMs}. */
    list: () => ours(dir),
  };
}

function ensurePrivate(parent) {
  try {
    fs.mkdirSync(parent, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') throw unusable(parent, `cannot create it: ${err.code ?? err.message}`, err);
  }
  // Someone else's directory (or symlink) in the shared temp dir could be read by them.
  const st = fs.lstatSync(parent);
  if (!st.isDirectory()) throw unusable(parent, 'it is not a directory');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw unusable(parent, `it is owned by uid ${st.uid}, not by us`);
  if ((st.mode & 0o777) !== 0o700) fs.chmodSync(parent, 0o700);
}

const unusable = (dir, why, cause) => new NodesupError('NODESUP_ERR_CONFIG',
  `diagnose.dir ${dir}: ${why}; set diagnose.dir to a directory nodesup may write`, cause ? { cause } : undefined);

function freeBytes(dir, statfs) {
  try {
    const s = statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

// Two profiles of one slot in the same millisecond (a leak warning and its recycle) keep both.
function freshName(dir, base) {
  let file = path.join(dir, base);
  for (let n = 2; fs.existsSync(file); n++) file = path.join(dir, base.replace(/(\.pb\.gz|\.heapprofile)$/, `-${n}$1`));
  return file;
}

function ours(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out = [];
  for (const name of names) {
    if (!OURS.test(name)) continue;
    try {
      const st = fs.lstatSync(path.join(dir, name));
      if (st.isFile()) out.push({ file: path.join(dir, name), bytes: st.size, mtimeMs: st.mtimeMs });
    } catch { /* removed meanwhile */ }
  }
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs || a.file.localeCompare(b.file));
}

// Oldest first out, the file just written always kept.
function prune(dir, { maxFiles, maxBytes }, keep) {
  const files = ours(dir);
  let bytes = files.reduce((a, f) => a + f.bytes, 0);
  let count = files.length;
  for (const f of files) {
    if (count <= maxFiles && bytes <= maxBytes) break;
    if (f.file === keep) continue;
    try {
      fs.unlinkSync(f.file);
      count--;
      bytes -= f.bytes;
    } catch { /* removed meanwhile */ }
  }
}
