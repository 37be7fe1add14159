// "A worker's memory", spelled once: what the rss limit, the views, the history and the forecasts
// all read. Here beside the Sample rather than in the decision core, so the report side reads it too.

/** The whole tree's RSS of a sample (the worker and its children), else its own; null when unknown. */
export function memoryOf(sample) {
  return sample ? (sample.treeRss ?? sample.rss ?? null) : null;
}
