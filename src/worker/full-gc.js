// A full GC on the primary's request. --expose-gc is the app's choice, not ours: it is switched
// on at run time and gc() taken from a fresh context, leaving the app's global untouched.
import v8 from 'node:v8';
import vm from 'node:vm';

let gcFn;
/** Run a full (mark-compact) GC now. */
export function fullGc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  gcFn();
}
