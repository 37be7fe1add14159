// `nodesup history` for people: the report layer draws it (report/history/history-chart.js);
// scripts use --json.
import { historyText } from '../report/history/history-chart.js';

/** Text of a history document (report/history/history-doc.js) at `width` columns. */
export function formatHistory(doc, { width = 80, height = 12 } = {}) {
  return historyText(doc, { width, height });
}
