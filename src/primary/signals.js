// Signals to the primary: SIGTERM/SIGINT drain and stop (a second one forces), SIGHUP reloads
// (except under --tui, where it means the terminal is gone: a stop, however many times it comes).

/** Install the handlers; returns a function that removes them. */
export function handleSignals(sup, { hangupStops = false } = {}) {
  let signals = 0;
  const stop = (signal) => {
    signals++;
    if (signals === 1 && sup.stopping) return; // already stopping (control `stop`): the first signal joins the drain
    sup.stop(signal);
  };
  // A closed terminal can deliver SIGHUP more than once (the shell forwards it): never a force.
  const hangup = (signal) => {
    if (!sup.stopping) stop(signal);
  };
  const hup = () => {
    sup.reloadConfig().catch((err) => sup.log('error', { err }, 'reload failed'));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', hangupStops ? hangup : hup);
  return () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', hangupStops ? hangup : hup);
  };
}
