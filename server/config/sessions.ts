// The `sessions` section of the config file: where transcripts persist, a SQLite file (`path`) or a PostgreSQL server (`url`).
import { z } from 'zod';
import { expectedReason, strictObject } from './issues.ts';
import type { SessionsConfig } from './types.ts';

/** Relative to the config file: the SQLite file holding session transcripts; `data/` is git-ignored. */
export const DEFAULT_SESSIONS_PATH = 'data/codemode.db';
/** `sessions.path` value that keeps transcripts in memory (nothing survives a restart). */
export const IN_MEMORY_SESSIONS_PATH = ':memory:';

function text(hint: string) {
  return z
    .string({ error: (issue) => expectedReason('a string', hint, issue.input) })
    .refine((value) => value.trim() !== '', { error: `must not be empty; ${hint}` });
}

/**
 * Why `value` is not a PostgreSQL URL node-postgres can connect with, or undefined when it is one. The message never
 * repeats the value: it may hold a password.
 */
export function postgresUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL; write it as postgres://user:password@host:5432/database (percent-encode special characters in the password)';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return `uses the "${url.protocol.replace(/:$/, '')}" scheme; write a postgres:// (or postgresql://) URL, e.g. postgres://user:password@host:5432/database`;
  }
  if (url.hostname === '' && !url.searchParams.has('host')) return 'names no host; write it as postgres://user:password@host:5432/database';
  return undefined;
}

export const sessionsSchema = strictObject(
  {
    path: text(`the SQLite file for session transcripts, relative to the config file, or "${IN_MEMORY_SESSIONS_PATH}"`).optional(),
    url: text('a PostgreSQL server for session transcripts, postgres://user:password@host:5432/database')
      .refine((value) => postgresUrlProblem(value) === undefined, { error: (issue) => postgresUrlProblem(String(issue.input)) ?? 'is not a postgres URL' })
      .optional(),
  },
  'sessions: path or url',
).refine((sessions) => sessions.path === undefined || sessions.url === undefined, {
  error: 'names both path (SQLite) and url (PostgreSQL); keep the one database the sessions should live in',
});

/** The section as the Gateway reads it: the URL as given, or the SQLite path made absolute against the config folder (the default when absent). */
export function resolveSessions(sessions: z.output<typeof sessionsSchema> | undefined, fromRoot: (path: string) => string): SessionsConfig {
  if (sessions?.url !== undefined) return { url: sessions.url };
  const path = sessions?.path ?? DEFAULT_SESSIONS_PATH;
  return { path: path === IN_MEMORY_SESSIONS_PATH ? path : fromRoot(path) };
}
