// Plain text of an inspect report for `nodesup inspect` (no colours: it may be piped).
import { renderInspect } from '../report/status-view.js';

/** The report as lines of text, ending in a newline. */
export function formatInspect(report) {
  return `${renderInspect(report, { width: 100, color: false }).join('\n')}\n`;
}
