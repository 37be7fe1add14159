// A worker's memory is defined beside the Sample (src/sample/memory-of.js); the core's callers
// import it from here as they always have.
export { memoryOf } from '../../sample/memory-of.js';
