// The `runs` section of the config file: `durable` keeps parked runs in the session database (opt-in, a departure from spec 01's in-process map), how many may park there, and how many of them keep a copy in memory.
import { z } from 'zod';
import { MAX_SUSPENDED_RUNS } from './shares.ts';
import { expectedReason, strictObject } from './issues.ts';
import type { RunsConfig, SessionsConfig } from './types.ts';

/** Off by default: spec 01 keeps waiting runs in the process, and durable runs need CODEMODE_SNAPSHOT_KEY. */
export const DEFAULT_DURABLE_RUNS = false;
/** Spec 01's cap: unless raised, durable runs park no more runs than a process holds. */
export const DEFAULT_MAX_PARKED = MAX_SUSPENDED_RUNS;
/**
 * The most runs.maxParked may be: each parked run is a row of ~25 KiB in the session database and an index entry of a
 * few hundred bytes here, and a turn's share stays 16, so 100,000 is ~2.5 GB of rows across ~6,000 turns: past that a
 * deployment wants its own store, not a config value.
 */
export const MAX_MAX_PARKED = 100_000;
/**
 * Spec 01's cap again: the most recently parked quiescent durable runs keep their copy (Run and snapshot) in memory,
 * so with the default nothing is evicted (a process never holds more than MAX_SUSPENDED_RUNS waiting runs).
 */
export const DEFAULT_PARKED_IN_MEMORY = MAX_SUSPENDED_RUNS;

export const runsSchema = strictObject(
  {
    durable: z
      .boolean({
        error: (issue) =>
          expectedReason('true or false', 'true keeps parked runs in the session database, sealed with CODEMODE_SNAPSHOT_KEY, so `wait` resumes them after a restart or on another Gateway', issue.input),
      })
      .optional(),
    maxParked: z
      .number({ error: (issue) => expectedReason('a whole number', `how many runs may park in the session database at once (default ${DEFAULT_MAX_PARKED}), counted across every Gateway on it and across restarts`, issue.input) })
      .int({ error: 'must be a whole number of runs' })
      .min(1, { error: 'must be at least 1 (runs parked at once)' })
      .max(MAX_MAX_PARKED, { error: `must be at most ${MAX_MAX_PARKED} (past that the parked runs want a store of their own)` })
      .optional(),
    parkedInMemory: z
      .number({ error: (issue) => expectedReason('a whole number', `how many parked durable runs keep their copy in memory (default ${DEFAULT_PARKED_IN_MEMORY}; 0: each lives only in its row)`, issue.input) })
      .int({ error: 'must be a whole number of runs' })
      .min(0, { error: 'must be at least 0 (0: every parked durable run lives only in its row)' })
      .max(MAX_SUSPENDED_RUNS, { error: `must be at most ${MAX_SUSPENDED_RUNS}: a process holds no more waiting runs than that (spec 01)` })
      .optional(),
  },
  'runs: durable, maxParked, parkedInMemory',
);

/** The section as the Gateway reads it, and the warning it gives (a durable store that is in memory cannot outlive the process). */
export function resolveRuns(runs: z.output<typeof runsSchema> | undefined, sessions: SessionsConfig | undefined): { runs: RunsConfig; warnings: string[] } {
  const durable = runs?.durable ?? DEFAULT_DURABLE_RUNS;
  const maxParked = runs?.maxParked ?? DEFAULT_MAX_PARKED;
  const parkedInMemory = runs?.parkedInMemory ?? DEFAULT_PARKED_IN_MEMORY;
  const warnings: string[] = [];
  if (!durable && (runs?.maxParked !== undefined || runs?.parkedInMemory !== undefined)) {
    warnings.push('runs.maxParked and runs.parkedInMemory apply to durable runs only: without runs.durable a process holds at most 64 waiting runs, all in memory (spec 01)');
  }
  if (durable && (sessions === undefined || sessions.path === ':memory:')) {
    warnings.push('runs.durable keeps parked runs in the session database, which is in memory (sessions.path ":memory:"): they cannot outlive the process; set sessions.path to a file or sessions.url');
  }
  return { runs: { durable, maxParked, parkedInMemory }, warnings };
}
