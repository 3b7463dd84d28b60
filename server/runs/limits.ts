// Limits of the run manager that are not configuration: how long a VM may take to get ready, how many ended runs the board keeps.

/**
 * How long a leg's VM may take to get ready (worker start, VM creation, snapshot decode and restore)
 * before the run fails with runtime_unavailable. Warm legs open in milliseconds and a cold worker in
 * well under a second; 64 cells opening at once on a loaded 2-core machine took a few seconds. Past
 * this the executor is not coming back soon, and the caller should hear so rather than wait.
 */
export const LEG_START_LIMIT_MS = 20_000;

/**
 * Ended runs kept for the runs board and trajectory export after they leave the run map (the oldest
 * goes first). Enough for a session's worth of cells on the board; each holds only its records (its
 * continuation and calls are released), so the cap bounds memory, not correctness.
 */
export const MAX_FINISHED_RUNS_KEPT = 200;
