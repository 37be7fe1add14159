// Signals to the primary: SIGTERM/SIGINT drain and stop (a second one forces), SIGHUP reloads.

/** Install the handlers; returns a function that removes them. */
export function handleSignals(sup, { onStop }) {
  const stop = (signal) => {
    const first = !sup.stopping;
    onStop?.(signal, first);
    sup.stop(signal);
  };
  const hup = () => {
    sup.reload().catch((err) => sup.logger.error({ err }, 'reload failed'));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', hup);
  return () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', hup);
  };
}
