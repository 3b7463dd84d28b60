// Run views across the Gateways of one session database: this Gateway's live runs published (sealed) for the others' pages, and theirs shown here.
//
// Run notices carry ids only (run-notices.ts), so what a page on another Gateway shows of a run is published through
// the database (sessions/run-views.ts). As the holder: each of its live runs' views is written coalesced on the run's
// events (at most one write per run per DEFAULT_RUN_VIEW_FLUSH_MS), cut to what the board needs and sealed with the
// durable runs' key (durable/seal.ts, bound to the run and session: a guest string is never stored in plain text),
// deleted when the run ends, and all of them deleted when this Gateway closes; each write is followed by a `view`
// notice (a kind the durable runs' copy checks ignore), so a reader never reads before the write it was told of. Without runs.durable there is no key:
// the row holds ids, state, executor and counts only, and the others show just that.
//
// As a reader: a notice from another Gateway re-reads that run's row; a `settled` or `expired` notice drops the run at
// once (also a durable row listed here that ended elsewhere). A row whose holder presence says is gone is not shown
// and is deleted (a killed Gateway leaves no live views); rows are re-read in full on a notifier gap, on list(), and
// every DEFAULT_RUN_VIEW_REFRESH_MS. What changes reaches this Gateway's pages as `remote.run` / `remote.gone` events.
// Everything read is hostile: a row or a sealed view that is not the shape written is logged and left out, never thrown.
import { openSealed, seal } from '../durable/seal.ts';
import type { SnapshotKey } from '../durable/snapshot-key.ts';
import { isTerminal } from '../runs/run.ts';
import type { ApprovalView, RunEvent, RunView } from '../runs/types.ts';
import { DEFAULT_PRESENCE_BEAT_MS } from '../sessions/gateway-presence.ts';
import type { RunNotice, RunNotifier } from '../sessions/notifier.ts';
import { MAX_RUN_VIEWS_LISTED, type RunViewRow, type RunViewStore } from '../sessions/run-views.ts';
import { boundedView, checkedView, idsOnlyView, VIEW_SEAL_BASE } from './run-view-shape.ts';
import { trimOldest } from '../util/bounded.ts';
import type { RunEventBus } from './event-bus.ts';

/** How long a run's events coalesce before its view is written (ms): a busy cell writes a few times a second, not per call. */
export const DEFAULT_RUN_VIEW_FLUSH_MS = 250;
/** How often the others' views are re-read in full (ms): a view of a Gateway that died leaves within about a presence beat. */
export const DEFAULT_RUN_VIEW_REFRESH_MS = DEFAULT_PRESENCE_BEAT_MS;
/** Ended runs remembered at most (each until its row is gone, usually a moment): the oldest go first. */
export const MAX_ENDED_KEPT = 1_000;

export type RemoteRunEvent = Extract<RunEvent, { type: 'remote.run' | 'remote.gone' }>;

/** What this Gateway shows of the runs other Gateways hold: their views and pending approvals. */
export interface HeldElsewhere {
  runs: RunView[];
  approvals: ApprovalView[];
}

export interface RunViewsDeps {
  store: RunViewStore;
  notifier: RunNotifier;
  events: RunEventBus;
  runs: { get(runId: string): RunView | undefined };
  approvals: { list(): ApprovalView[] };
  /** Whether Gateway `instanceId` is up (presence.ts): undefined when it is gone. Never rejects. */
  live(instanceId: string): Promise<unknown>;
  instanceId: string;
  /** The durable runs' key; absent without runs.durable (views are then ids, state and counts only). */
  key?: SnapshotKey;
  log: (line: string) => void;
  flushMs?: number;
  refreshMs?: number;
}

interface Shown {
  updatedAt: number;
  holder: string;
  view: RunView;
  approvals: ApprovalView[];
}

export class RunViews {
  private readonly dirty = new Set<string>();
  private flushTimer?: ReturnType<typeof setTimeout>;
  /** Writes and reads in order, one at a time: a delete never overtakes the write before it. */
  private chain: Promise<void> = Promise.resolve();
  private readonly shown = new Map<string, Shown>();
  private readonly listeners = new Set<(event: RemoteRunEvent) => void>();
  private readonly unsubscribe: Array<() => void>;
  private readonly refreshTimer: ReturnType<typeof setInterval>;
  private readonly pendingReads = new Set<string>();
  /** Runs whose holder said they ended (run id to that holder), until their rows are gone: never shown again from a late read. */
  private readonly ended = new Map<string, string>();
  /** The session of each run whose view this Gateway wrote: the notice after its delete names it. */
  private readonly written = new Map<string, string>();
  private closed = false;

  constructor(private readonly deps: RunViewsDeps) {
    this.unsubscribe = [
      deps.events.subscribe((event) => this.onEvent(event)),
      deps.notifier.subscribe((notice) => this.onNotice(notice)),
      deps.notifier.onGap(() => void this.refresh()),
    ];
    this.refreshTimer = setInterval(() => void this.refresh(), deps.refreshMs ?? DEFAULT_RUN_VIEW_REFRESH_MS);
    this.refreshTimer.unref();
  }

  /** Hears the others' runs change (remote.run, remote.gone); returns the unsubscribe. */
  subscribe(listener: (event: RemoteRunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The others' live runs and their approvals, re-read from the database now (a gone holder's are dropped). Never rejects. */
  async heldElsewhere(): Promise<HeldElsewhere> {
    await this.refresh();
    const shown = [...this.shown.values()].filter((s) => !this.holdsHere(s.view.runId)).sort((a, b) => b.view.createdAt - a.view.createdAt);
    return { runs: shown.map((s) => s.view), approvals: shown.flatMap((s) => s.approvals) };
  }

  /** Run `runId`'s holder and session when another Gateway holds it (as last read), else undefined. */
  heldRun(runId: string): { holder: string; sessionId: string } | undefined {
    const shown = this.holdsHere(runId) ? undefined : this.shown.get(runId);
    return shown ? { holder: shown.holder, sessionId: shown.view.sessionId } : undefined;
  }

  /** The holder of run `runId` when another Gateway holds it (as last read), else undefined. */
  holderOf(runId: string): string | undefined {
    return this.holdsHere(runId) ? undefined : this.shown.get(runId)?.holder;
  }

  /** The holder of approval `approvalId` when it is another Gateway's (as last read). */
  approvalHolder(approvalId: string): { runId: string; holder: string } | undefined {
    for (const s of this.shown.values()) if (s.approvals.some((a) => a.approvalId === approvalId)) return { runId: s.view.runId, holder: s.holder };
    return undefined;
  }

  /**
   * A durable run no Gateway held live was ended here from its row (RunsFace.abortStored): this Gateway's pages drop
   * it now, and with its session known a `settled` notice tells the others' pages (and a Gateway holding a stale copy)
   * so. Never rejects.
   */
  async storedEnded(runId: string, sessionId: string | undefined): Promise<void> {
    this.forget(runId);
    if (this.closed || sessionId === undefined) return;
    await this.deps.notifier.publish({ kind: 'settled', runId, sessionId }).catch((err: unknown) => {
      this.deps.log(`[views] the notice that run ${runId} was aborted from its row was not sent: ${messageOf(err)}`);
    });
  }

  /** Waits for the writes under way, then deletes every view this Gateway wrote (its runs are no longer live here). Never rejects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.unsubscribe) stop();
    clearInterval(this.refreshTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.listeners.clear();
    await this.chain;
    try {
      await this.deps.store.deleteHolder(this.deps.instanceId);
    } catch (err) {
      this.deps.log(`[views] Gateway ${this.deps.instanceId}'s run views were not removed (the others drop them once its presence is gone): ${messageOf(err)}`);
      return;
    }
    // the others re-read each and find it gone (a durable run's row stays listed: a wait on any Gateway resumes it)
    await Promise.all(
      [...this.written].map(([runId, sessionId]) => this.deps.notifier.publish({ kind: 'view', runId, sessionId }).catch(() => undefined)),
    );
    this.written.clear();
  }

  // ---- this Gateway's runs: written for the others ------------------------------------------------

  private onEvent(event: RunEvent): void {
    if (this.closed || event.type === 'session.appended' || event.type === 'remote.run' || event.type === 'remote.gone') return;
    this.dirty.add(event.runId);
    // a run this Gateway now holds is no longer another's to show
    if (this.shown.has(event.runId) && this.holdsHere(event.runId)) this.forget(event.runId);
    // an ended run's row goes at once; a live one's writes coalesce
    const ended = (event.type === 'run.updated' || event.type === 'run.started') && isTerminal(event.view.state);
    if (ended) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), this.deps.flushMs ?? DEFAULT_RUN_VIEW_FLUSH_MS);
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const runIds = [...this.dirty];
    this.dirty.clear();
    this.enqueue(async () => {
      for (const runId of runIds) await this.write(runId);
    });
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((err: unknown) => this.deps.log(`[views] ${messageOf(err)}`));
  }

  /** Writes or deletes run `runId`'s row as the run stands now, then tells the others. */
  private async write(runId: string): Promise<void> {
    const view = this.deps.runs.get(runId);
    const live = view !== undefined && (view.state === 'running' || view.state === 'waiting');
    const sessionId = live ? view.sessionId : this.written.get(runId);
    if (sessionId === undefined) return;
    try {
      if (!live) {
        this.written.delete(runId);
        if (!(await this.deps.store.delete(runId, this.deps.instanceId))) return;
      } else {
        await this.deps.store.put(this.row(view));
        this.written.set(runId, sessionId);
      }
    } catch (err) {
      if (!this.closed) this.deps.log(`[views] the view of run ${runId} was not ${live ? 'written' : 'deleted'}: ${messageOf(err)}`);
      return;
    }
    if (this.closed) return;
    await this.deps.notifier.publish({ kind: 'view', runId, sessionId }).catch((err: unknown) => {
      this.deps.log(`[views] the notice of run ${runId}'s view was not sent: ${messageOf(err)}`);
    });
  }

  private row(view: RunView): RunViewRow {
    const approvals = this.deps.approvals.list().filter((a) => a.runId === view.runId);
    const row: RunViewRow = {
      runId: view.runId,
      sessionId: view.sessionId,
      agentRunId: view.agentRunId,
      holder: this.deps.instanceId,
      executor: view.executor,
      state: view.state === 'waiting' ? 'waiting' : 'running',
      approvals: approvals.length,
      clientCalls: view.clientCalls.length,
      createdAt: view.createdAt,
      updatedAt: Math.max(view.updatedAt, Date.now()),
    };
    if (this.deps.key) {
      const plaintext = Buffer.from(JSON.stringify(boundedView(view, approvals)), 'utf8');
      row.sealed = seal(this.deps.key, { runId: view.runId, sessionId: view.sessionId }, VIEW_SEAL_BASE, plaintext);
    }
    return row;
  }

  private holdsHere(runId: string): boolean {
    const view = this.deps.runs.get(runId);
    return view !== undefined && (view.state === 'running' || view.state === 'waiting');
  }

  // ---- the others' runs: read for this Gateway's pages --------------------------------------------

  private onNotice(notice: RunNotice): void {
    if (this.closed || notice.from === this.deps.instanceId || notice.kind === 'request') return;
    if (notice.kind === 'settled' || notice.kind === 'expired') {
      // the run ended on its sender: whatever is shown of it here (its view, or a durable row the list holds) goes,
      // unless it lives on elsewhere now (this Gateway or a third resumed it: a stale copy ended on the sender)
      const shown = this.shown.get(notice.runId);
      if (!this.holdsHere(notice.runId) && (shown === undefined || shown.holder === notice.from)) {
        // its holder's row may outlive the notice by a moment: a read before the delete must not show it again
        this.ended.set(notice.runId, notice.from);
        trimOldest(this.ended, MAX_ENDED_KEPT);
        this.forget(notice.runId);
      }
      return;
    }
    if (this.pendingReads.has(notice.runId)) return;
    this.pendingReads.add(notice.runId);
    this.enqueue(async () => {
      this.pendingReads.delete(notice.runId);
      await this.reread(notice.runId);
    });
  }

  private async reread(runId: string): Promise<void> {
    if (this.closed) return;
    const read = await this.deps.store.get(runId);
    if (!read || !read.ok || read.row.holder === this.deps.instanceId || this.holdsHere(runId) || this.ended.get(runId) === read.row.holder) {
      if (!read) this.ended.delete(runId);
      if (read && !read.ok) this.deps.log(`[views] ${read.message}`);
      if (this.shown.has(runId)) this.forget(runId);
      return;
    }
    if ((await this.deps.live(read.row.holder)) === undefined) {
      await this.dropHolder(read.row.holder);
      return;
    }
    this.show(read.row);
  }

  /** Re-reads every row: new and changed views shown, missing ones and a gone holder's dropped. Never rejects. */
  private refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = this.chain.then(async () => {
      if (this.closed) return;
      const reads = await this.deps.store.list();
      const seen = new Set<string>();
      const listed = new Set<string>();
      const holders = new Map<string, boolean>();
      for (const read of reads) {
        if (!read.ok) {
          this.deps.log(`[views] ${read.message}`);
          continue;
        }
        const { row } = read;
        if (row.holder === this.deps.instanceId || this.holdsHere(row.runId) || this.ended.get(row.runId) === row.holder) {
          listed.add(row.runId);
          continue;
        }
        let up = holders.get(row.holder);
        if (up === undefined) {
          up = (await this.deps.live(row.holder)) !== undefined;
          holders.set(row.holder, up);
          if (!up) await this.dropHolder(row.holder);
        }
        if (!up) continue;
        seen.add(row.runId);
        const before = this.shown.get(row.runId);
        if (!before || before.updatedAt !== row.updatedAt || before.holder !== row.holder) this.show(row);
      }
      for (const runId of [...this.shown.keys()]) if (!seen.has(runId)) this.forget(runId);
      // an ended run whose row is gone needs no guard any more
      for (const runId of [...this.ended.keys()]) if (!listed.has(runId) && !seen.has(runId)) this.ended.delete(runId);
    });
    this.chain = done.catch((err: unknown) => this.deps.log(`[views] the other Gateways' run views could not be read: ${messageOf(err)}`));
    return this.chain;
  }

  /** A gone holder's rows deleted and its runs dropped from the pages. */
  private async dropHolder(holder: string): Promise<void> {
    const removed = await this.deps.store.deleteHolder(holder);
    if (removed > 0) this.deps.log(`[views] Gateway ${holder} is gone: its ${removed} run view(s) were removed`);
    for (const [runId, s] of [...this.shown]) if (s.holder === holder) this.forget(runId);
  }

  private show(row: RunViewRow): void {
    // bounded as a list is: a flood of rows (or notices) grows neither this map nor the pages past it
    if (!this.shown.has(row.runId) && this.shown.size >= MAX_RUN_VIEWS_LISTED) return;
    const opened = this.open(row);
    this.shown.set(row.runId, { updatedAt: row.updatedAt, holder: row.holder, ...opened });
    this.emit({ type: 'remote.run', runId: row.runId, at: Date.now(), view: opened.view, approvals: opened.approvals });
  }

  private forget(runId: string): void {
    this.shown.delete(runId);
    this.emit({ type: 'remote.gone', runId, at: Date.now() });
  }

  /** The row as a view: its sealed view opened and checked when there is one and a key, else ids, state and counts. */
  private open(row: RunViewRow): { view: RunView; approvals: ApprovalView[] } {
    const held = { gatewayId: row.holder, approvals: row.approvals, clientCalls: row.clientCalls };
    if (row.sealed && this.deps.key) {
      const opened = openSealed(this.deps.key, { runId: row.runId, sessionId: row.sessionId }, VIEW_SEAL_BASE, row.sealed);
      const checked = opened.ok ? checkedView(opened.plaintext, row) : `its sealed view ${opened.message.replace(/^the stored snapshot of run "[^"]*" /, '')}`;
      if (typeof checked !== 'string') {
        return {
          view: { ...checked.view, heldBy: { ...held, detail: 'sealed', ...(checked.cut.length > 0 ? { cut: checked.cut } : {}) } },
          approvals: checked.approvals.map((a) => ({ ...a, heldBy: row.holder })),
        };
      }
      this.deps.log(`[views] the view Gateway ${row.holder} published of run ${row.runId} is shown as ids only: ${checked}`);
    }
    return { view: idsOnlyView(row, held), approvals: [] };
  }

  private emit(event: RemoteRunEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.deps.log(`[views] a listener failed on ${event.type} of run ${event.runId}: ${messageOf(err)}`);
      }
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
