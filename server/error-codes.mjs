// The spec's error codes a failed exec/wait result may carry: plain JS so worker threads and TypeScript share one list.

/** Spec: tool surface, CodeModeErrorCode. */
export const CODE_MODE_ERROR_CODES = /** @type {const} */ ([
  'invalid_input',
  'runtime_unavailable',
  'aborted',
  'timeout',
  'output_limit_exceeded',
  'snapshot_limit_exceeded',
  'memory_limit_exceeded',
  'internal_error',
  // replay lab: a cell replayed against a cassette made a tool call the cassette does not hold
  'replay_mismatch',
  // durable runs: a nested call was in flight when its Gateway died, and it is not replay-safe; the cell gets it as a
  // catchable error (the outcome is unknown, so it is never silently run again)
  'unknown_outcome',
]);
