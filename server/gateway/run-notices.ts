// Run notices between the Gateways of one session database: this Gateway's run changes published as ids, the others' kept as a bounded list.
//
// Each state change of a run (started, parked, settled, any other change as updated), each approval it asks for and
// each client-tool call it makes is published through the notifier (sessions/notifier.ts: LISTEN/NOTIFY on
// PostgreSQL, the in-process hub on SQLite), ids only. What the other Gateways publish is kept, newest first and
// bounded, as what this Gateway knows of runs it does not hold (remote()); a notice about a run this Gateway holds a
// copy of tells durable runs to check that copy against the row (another Gateway resumed it: the copy is dropped
// now rather than at the next wait here). Notices are hints: a lost one costs only freshness, never correctness,
// since every resume goes through the row's claim.
import type { RemoteRunNotice } from '../gateway-types.ts';
import type { RunEvent } from '../runs/types.ts';
import { isTerminal } from '../runs/run.ts';
import type { RunNotice, RunNoticeKind, RunNotifier } from '../sessions/notifier.ts';
import { trimOldest } from '../util/bounded.ts';
import type { RunEventBus } from './event-bus.ts';

/** Notices of other Gateways' runs kept at most: the newest, one per run; older ones are dropped (a hint, not a record). */
export const MAX_REMOTE_RUNS_KEPT = 1000;


export interface RunNoticesDeps {
  notifier: RunNotifier;
  events: RunEventBus;
  log: (line: string) => void;
  /** Another Gateway changed run `runId`: a copy this Gateway holds may be stale (durable-runs.ts checks it against the row). */
  onRemoteChange?(runId: string): void;
}

export class RunNotices {
  private readonly remoteRuns = new Map<string, RemoteRunNotice>();
  /** Each live run's session and last published state: a notice per change of state, not per event. */
  private readonly local = new Map<string, { sessionId: string; state: string }>();
  private readonly unsubscribe: Array<() => void>;
  private readonly publishes = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly deps: RunNoticesDeps) {
    this.unsubscribe = [deps.events.subscribe((event) => this.onEvent(event)), deps.notifier.subscribe((notice) => this.onNotice(notice))];
  }

  /** What this Gateway heard of runs other Gateways hold, newest first. */
  remote(): RemoteRunNotice[] {
    return [...this.remoteRuns.values()].reverse();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.unsubscribe) stop();
    await Promise.all([...this.publishes]);
    await this.deps.notifier.close();
  }

  private onEvent(event: RunEvent): void {
    if (this.closed) return;
    if (event.type === 'run.started' || event.type === 'run.updated') {
      const { sessionId, state } = event.view;
      const before = this.local.get(event.runId);
      if (isTerminal(state)) this.local.delete(event.runId);
      else this.local.set(event.runId, { sessionId, state });
      if (before?.state === state) return;
      const kind: RunNoticeKind = event.type === 'run.started' && state !== 'waiting' ? 'started' : state === 'waiting' ? 'parked' : isTerminal(state) ? 'settled' : 'updated';
      this.publish(kind, event.runId, sessionId);
    } else if (event.type === 'approval.requested') {
      const sessionId = this.local.get(event.runId)?.sessionId;
      if (sessionId) this.publish('approval', event.runId, sessionId);
    } else if (event.type === 'nested.started' && event.call.kind === 'client') {
      const sessionId = this.local.get(event.runId)?.sessionId;
      if (sessionId) this.publish('client-call', event.runId, sessionId);
    }
  }

  private publish(kind: RunNoticeKind, runId: string, sessionId: string): void {
    const sent = this.deps.notifier
      .publish({ kind, runId, sessionId })
      .catch((err: unknown) => this.deps.log(`[notices] the ${kind} notice of run ${runId} was not sent: ${err instanceof Error ? err.message : String(err)}`));
    this.publishes.add(sent);
    void sent.finally(() => this.publishes.delete(sent));
  }

  private onNotice(notice: RunNotice): void {
    // a view written (run-views.ts) or a request about acting on a run (run-requests.ts) is not a change of the run
    if (this.closed || notice.from === this.deps.notifier.gatewayId || notice.kind === 'view' || notice.kind === 'request') return;
    this.remoteRuns.delete(notice.runId);
    if (notice.kind === 'settled' || notice.kind === 'expired') {
      // a run that ended elsewhere is no longer another Gateway's to show
    } else {
      this.remoteRuns.set(notice.runId, { ...notice, at: Date.now() });
      trimOldest(this.remoteRuns, MAX_REMOTE_RUNS_KEPT);
    }
    if (this.local.has(notice.runId)) this.deps.onRemoteChange?.(notice.runId);
  }
}
