// The `runs` section of the config file: `durable` keeps parked runs in the session database (opt-in, a departure from spec 01's in-process map).
import { z } from 'zod';
import { expectedReason, strictObject } from './issues.ts';
import type { RunsConfig, SessionsConfig } from './types.ts';

/** Off by default: spec 01 keeps waiting runs in the process, and durable runs need CODEMODE_SNAPSHOT_KEY. */
export const DEFAULT_DURABLE_RUNS = false;

export const runsSchema = strictObject(
  {
    durable: z
      .boolean({
        error: (issue) =>
          expectedReason('true or false', 'true keeps parked runs in the session database, sealed with CODEMODE_SNAPSHOT_KEY, so `wait` resumes them after a restart or on another Gateway', issue.input),
      })
      .optional(),
  },
  'runs: durable',
);

/** The section as the Gateway reads it, and the warning it gives (a durable store that is in memory cannot outlive the process). */
export function resolveRuns(runs: z.output<typeof runsSchema> | undefined, sessions: SessionsConfig | undefined): { runs: RunsConfig; warnings: string[] } {
  const durable = runs?.durable ?? DEFAULT_DURABLE_RUNS;
  const warnings: string[] = [];
  if (durable && (sessions === undefined || sessions.path === ':memory:')) {
    warnings.push('runs.durable keeps parked runs in the session database, which is in memory (sessions.path ":memory:"): they cannot outlive the process; set sessions.path to a file or sessions.url');
  }
  return { runs: { durable }, warnings };
}
