// The diagnostics seam: what tests, the bench and the test plan read about a Gateway's health (slots, leaks, a session's model context, the session database, durable rows, other Gateways' runs heard of), typed and read-only.
import type { GatewayDiagnostics } from '../gateway-types.ts';
import type { SqlDatabase } from '../sessions/database.ts';
import type { PostgresDatabase } from '../sessions/postgres.ts';
import type { GatewayParts } from './parts.ts';

export function gatewayDiagnostics(parts: Pick<GatewayParts, 'runs' | 'sessions' | 'durable' | 'notices'>): GatewayDiagnostics {
  const { runs, sessions, durable, notices } = parts;
  return {
    suspendedSlots: () => runs.suspendedSlots,
    leaks: () => runs.leaks(),
    runRecord: (runId) => runs.record(runId),
    durableRuns: async () => (durable ? durable.list() : []),
    durableRunCount: async () => (durable ? (await durable.store.counts()).runs : 0),
    evictedRuns: () => durable?.evictedCount ?? 0,
    remoteRuns: () => notices.remote(),
    modelContext: (sessionId) => sessions.transcript.context(sessionId),
    sessionDatabase: () => {
      const db = sessions.transcript.db;
      // a backend that pools connections (PostgreSQL) says how many are open; SQLite's one file handle is `open`
      const pooled = db as SqlDatabase & Partial<Pick<PostgresDatabase, 'openConnections'>>;
      return { dialect: db.dialect, open: db.open, ...(typeof pooled.openConnections === 'function' ? { openConnections: pooled.openConnections() } : {}) };
    },
  };
}
