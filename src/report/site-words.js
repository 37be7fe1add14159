// The one wording of a site, from its fields (core/sites/frames.js and heap-sites.js give them):
// the log, inspect and the status pane name a leak's site alike.

/**
 * "some-store@2.3.1 MemoryStore.set, reached from server.js:12", "clone@2.1.2 _clone, through
 * node-cache@5.1.2, reached from server.js:24", or "cacheUser (lib/users.js:3)".
 * @param {{fn:string, file:string, line:number, package?:string, through?:string, via?:{file:string, line:number}, resource?:string}|null} s
 */
export function describeSite(s) {
  if (!s) return '';
  // A resource (zlib streams left open) is said first: it is what holds the memory.
  if (s.resource) return `${s.resource} streams opened at ${describeSite({ ...s, resource: undefined })}`;
  if (!s.package) return `${s.fn} (${s.file}:${s.line})`;
  const through = s.through ? `, through ${s.through}` : '';
  const via = s.via ? `, reached from ${s.via.file}:${s.via.line}` : '';
  return `${s.package} ${s.fn}${through}${via}`;
}
