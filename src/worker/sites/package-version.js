// The version of the package a library site lies in, read once per package directory from its
// package.json: a site inside node_modules is named "some-store@2.3.1", not by its file alone.
import fs from 'node:fs';

const cache = new Map(); // dir → version or null; a worker sees a few dozen packages at most

/** The `version` of the package.json in dir, or null when it cannot be read. */
export function packageVersion(dir) {
  if (cache.has(dir)) return cache.get(dir);
  let version = null;
  try {
    const v = JSON.parse(fs.readFileSync(`${dir}/package.json`, 'utf8')).version;
    if (typeof v === 'string') version = v;
  } catch { /* no package.json, or not JSON: the name alone */ }
  cache.set(dir, version);
  return version;
}
