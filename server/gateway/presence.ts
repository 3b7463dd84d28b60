// This Gateway's presence on the session database (a heartbeat row), and the answer to a `wait` for a run another live Gateway holds.
//
// Without runs.durable a parked run lives in the memory of the Gateway that parked it. Its waiting result is recorded
// with that Gateway's instance id (recorder.ts), so a `wait` that a load balancer sends to another Gateway of the
// group finds who holds the run in the transcript. While that Gateway beats (sessions/gateway-presence.ts), the wait
// is refused naming it (restart recovery there would run the cell a second time beside the live one); once it is
// gone (closed, silent past PRESENCE_STALE_MS, or on this host with its process no longer there), restart recovery
// answers as after a restart. The same-host check makes a kill -9 and a restart on one machine recover at once
// instead of after PRESENCE_STALE_MS; a Gateway on another host is told gone only by its silence.
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { SqlDatabase } from '../sessions/database.ts';
import { DEFAULT_PRESENCE_BEAT_MS, GatewayPresenceStore, type GatewayPresenceRow } from '../sessions/gateway-presence.ts';

export interface PresenceDeps {
  db: SqlDatabase;
  /** Resolves once the session database's schema is current (the Transcript migrates it). */
  ready: Promise<void>;
  instanceId: string;
  durable: boolean;
  log: (line: string) => void;
  /** Between beats (ms); default DEFAULT_PRESENCE_BEAT_MS. */
  beatMs?: number;
}

export class GatewayPresence {
  readonly store: GatewayPresenceStore;
  private readonly startedAt = Date.now();
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void>;
  private closed = false;
  /** Whether the last beat failed: a failing database is logged once, not every beat. */
  private failing = false;

  constructor(private readonly deps: PresenceDeps) {
    this.store = new GatewayPresenceStore(deps.db, { ready: deps.ready });
    this.beating = this.beat();
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, deps.beatMs ?? DEFAULT_PRESENCE_BEAT_MS);
    this.timer.unref();
  }

  /** The Gateway `instanceId` while it is up (not this one); undefined when it is gone or cannot be told. Never rejects. */
  async live(instanceId: string): Promise<GatewayPresenceRow | undefined> {
    if (instanceId === this.deps.instanceId) return undefined;
    try {
      const row = await this.store.live(instanceId);
      // a Gateway of this host (and process namespace) whose process is gone was killed: gone now, not in PRESENCE_STALE_MS
      if (row && row.host === HOST && !processRuns(row.pid)) {
        await this.store.forget(row);
        return undefined;
      }
      return row;
    } catch (err) {
      this.deps.log(`[presence] could not read whether Gateway ${instanceId} is up (its runs are answered as a gone Gateway's): ${messageOf(err)}`);
      return undefined;
    }
  }

  /** Stops beating and removes this Gateway's row, so the others recover its runs at once. Never rejects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.beating;
    try {
      await this.store.leave(this.deps.instanceId);
    } catch (err) {
      this.deps.log(`[presence] Gateway ${this.deps.instanceId}'s presence row was not removed (the others see it gone once it is stale): ${messageOf(err)}`);
    }
  }

  private async beat(): Promise<void> {
    if (this.closed) return;
    try {
      await this.store.beat(this.deps.instanceId, { startedAt: this.startedAt, durable: this.deps.durable, host: HOST, pid: process.pid });
      this.failing = false;
    } catch (err) {
      if (!this.failing && !this.closed) this.deps.log(`[presence] Gateway ${this.deps.instanceId} could not record that it is up: ${messageOf(err)}`);
      this.failing = true;
    }
  }
}

/** What the model reads when its `wait` reached a Gateway other than the live one that holds the run. */
export function heldElsewhereMessage(runId: string, holder: string): string {
  return (
    `code mode run ${runId} is waiting on Gateway ${holder}, which is up, and not on this one: without runs.durable a parked run lives in the memory of ` +
    `the Gateway that parked it. Send this wait to Gateway ${holder} (behind a load balancer: sticky sessions), or set runs.durable on every ` +
    'Gateway of the group (one session database, one CODEMODE_SNAPSHOT_KEY) so that any Gateway can resume it.'
  );
}

/**
 * This host as presence rows name it: the hostname and, on Linux, the process-id namespace, so two containers that
 * share a hostname are still told apart (a pid means a process only within its namespace).
 */
const HOST = (() => {
  try {
    return `${hostname()} ${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return hostname();
  }
})();

/** Whether process `pid` of this host runs (EPERM: it runs as another user). */
function processRuns(pid: number): boolean {
  if (pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
