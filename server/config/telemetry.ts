// The `telemetry` section of the config file: optional live export of each ended run's trace to an OTLP/HTTP endpoint.
import { z } from 'zod';
import { expectedReason, strictObject } from './issues.ts';
import { isHttpUrl } from './sources-schema.ts';

export interface TelemetryOptions {
  /** Export each ended run's trace (OTLP JSON over HTTP) to this endpoint, e.g. a collector's /v1/traces. */
  otlp?: { url: string; headers: Record<string, string>; timeoutMs: number };
}

/** How long one export may take before it is dropped: long enough for a collector on another host, short enough not to pile up. */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;
/** Bounds of telemetry.otlp.timeoutMs. */
export const OTLP_TIMEOUT_BOUNDS = Object.freeze({ min: 100, max: 120_000 });

const EXAMPLE_URL = 'http://127.0.0.1:4318/v1/traces';

export const telemetrySchema = strictObject(
  {
    otlp: strictObject(
      {
        url: z
          .string({ error: (issue) => expectedReason('a string', `the OTLP/HTTP traces endpoint, e.g. "${EXAMPLE_URL}"`, issue.input) })
          .refine(isHttpUrl, { error: (issue) => `${JSON.stringify(issue.input)} is not an http(s) URL; give the OTLP/HTTP traces endpoint, e.g. "${EXAMPLE_URL}"` }),
        headers: z
          .record(z.string(), z.string({ error: (issue) => expectedReason('a string', 'header values are strings, e.g. { "authorization": "Bearer ..." }', issue.input) }), {
            error: (issue) => expectedReason('an object', 'map header names to string values', issue.input),
          })
          .optional(),
        timeoutMs: z
          .number({ error: (issue) => expectedReason('a number', `milliseconds, ${OTLP_TIMEOUT_BOUNDS.min} to ${OTLP_TIMEOUT_BOUNDS.max}`, issue.input) })
          .int({ error: 'must be a whole number of milliseconds' })
          .min(OTLP_TIMEOUT_BOUNDS.min, { error: `must be at least ${OTLP_TIMEOUT_BOUNDS.min} ms` })
          .max(OTLP_TIMEOUT_BOUNDS.max, { error: `must be at most ${OTLP_TIMEOUT_BOUNDS.max} ms` })
          .optional(),
      },
      'telemetry.otlp: url, headers, timeoutMs',
    ).optional(),
  },
  'telemetry: otlp',
);

/** The telemetry options a config asks for (none: no live export). */
export function resolveTelemetryOptions(file: z.output<typeof telemetrySchema> | undefined): TelemetryOptions {
  if (!file?.otlp) return {};
  return { otlp: { url: file.otlp.url, headers: file.otlp.headers ?? {}, timeoutMs: file.otlp.timeoutMs ?? DEFAULT_OTLP_TIMEOUT_MS } };
}
