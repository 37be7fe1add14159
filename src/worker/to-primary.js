// The one way the agent speaks to its primary. A send can race the primary's death: its end of the
// channel is closed but this worker has not read the EOF yet (a blocked event loop reads the last
// request and the EOF together), so process.send fails with EPIPE. Node emits that as an 'error'
// nobody handles when no callback is given, and the worker dies of it while process.connected
// still says true: its exit handler then takes the primary for alive and only SIGTERMs its
// children. The callback takes the error; the worker leaves on the EOF read right after.

/** Send msg to the primary if the channel is open; a channel closing under it is not an error. */
export function toPrimary(msg) {
  if (process.connected) process.send(msg, ignore);
}

function ignore() {}
