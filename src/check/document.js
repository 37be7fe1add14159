// The check's one document: the verdict with what ran, each finding with its words beside its
// fields. `--json` prints it, the text report and the JUnit file are rendered from it, so the
// three can never disagree.
import { leakHeadline, leakDetails, memoryLine, noteText } from './report-text.js';

/** The shape's version: a field is only ever added to it. */
export const DOCUMENT_VERSION = 1;

/**
 * @param {import('./verdict.js').CheckVerdict} verdict
 * @param {object} facts
 * @param {string} facts.script  as the user named it
 * @param {number} facts.workers @param {string} facts.name
 * @param {{command:string, exitCode:number|null, signal:string|null, stopped:boolean, pid:number|null}|null} facts.load
 * @param {number|null} facts.durationS  the --duration asked for
 * @param {number|null} facts.requests  requests the app answered during the run
 * @param {number|null} facts.startedAt @param {number} facts.endedAt
 * @param {number[]} facts.workerPids  every worker the run started
 * @param {string|null} [facts.cwd]  the project directory: the app's sites are shown relative to it
 */
export function checkDocument(verdict, { script, workers, name, load, durationS, requests, startedAt, endedAt, workerPids, cwd = null }) {
  return {
    check: DOCUMENT_VERSION,
    result: verdict.result,
    exitCode: verdict.exitCode,
    script, name, workers, load, durationS,
    startedAt: startedAt === null ? null : new Date(startedAt).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    ranS: verdict.ranS,
    requests,
    leaks: verdict.leaks.map((L) => ({ ...L, text: leakHeadline(L), details: leakDetails(L, cwd) })),
    memory: verdict.memory.map((m) => ({ ...m, text: memoryLine(m) })),
    tooShort: verdict.tooShort,
    suggestDurationS: verdict.suggestDurationS,
    judgeAfterS: verdict.judgeAfterS,
    judged: verdict.judged,
    notes: verdict.notes.map((n) => ({ ...n, text: noteText(n) })),
    failure: verdict.failure,
    pids: { workers: workerPids, load: load?.pid ?? null },
  };
}
