// Free space where a file is to be written, for the evidence nodesup writes (snapshots, profiles).
import fs from 'node:fs';

/** Bytes an unprivileged writer may still use on the filesystem holding `dir`; null when unknown. */
export function diskFree(dir) {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}
