// Acting on another Gateway's run from this one's page: an approval decision, a client-call answer or an abort forwarded to the holder through the database, and the holder's side that applies them.
//
// The sender seals the request (durable/seal.ts, bound to the run and session, the request id inside: a blob moved to
// another request is refused), writes it pending (sessions/run-requests.ts) and sends a `request` notice; it then waits
// at most DEFAULT_FORWARD_WAIT_MS for the holder's outcome (woken by the holder's notice, re-read every
// FORWARD_POLL_MS in case a notice is lost), and deletes the row. A request the holder has not taken by then is
// withdrawn (deleted while still pending), so a late holder never applies what its sender reported as failed. The
// holder applies a request as its own page would (the approval broker, the run's client-call answer) and records
// `done` or `failed` with the refusal's message. Without runs.durable there is no key: nothing is forwarded, and the
// sender says to act on the holder's page. Everything read back is hostile: validated, bounded, never thrown out of a
// notice handler.
import { randomUUID } from 'node:crypto';
import type { ElsewhereAction } from '../gateway-types.ts';
import { openSealed, seal } from '../durable/seal.ts';
import type { SnapshotKey } from '../durable/snapshot-key.ts';
import { InvalidInputError } from '../errors.ts';
import type { RunNotice, RunNotifier } from '../sessions/notifier.ts';
import type { RunRequestRow, RunRequestStore } from '../sessions/run-requests.ts';

/** How long a page's decision waits for the holding Gateway's outcome (ms): a live holder answers in well under this. */
export const DEFAULT_FORWARD_WAIT_MS = 15_000;
/** Between reads of a forwarded request's row while no notice came (ms). */
export const FORWARD_POLL_MS = 250;
/**
 * How often a Gateway looks for requests sent to it without a notice (ms): a lost notice (a LISTEN gap, or SQLite
 * Gateways in separate processes, whose notices stay in their process) delays a request by at most this, well within
 * DEFAULT_FORWARD_WAIT_MS; one indexed read per period costs nothing.
 */
export const DEFAULT_REQUEST_POLL_MS = 5_000;
/** A forwarded reason or error message at most (characters), as the API edge bounds them. */
export const MAX_FORWARDED_TEXT_CHARS = 10_000;
const REQUEST_SEAL_BASE = 'codemode-run-request-1';
const REQUEST_FORMAT = 1;


export interface RunRequestsDeps {
  store: RunRequestStore;
  notifier: RunNotifier;
  key?: SnapshotKey;
  instanceId: string;
  /** Where another Gateway's runs and approvals are (run-views.ts). */
  views: { heldRun(runId: string): { holder: string; sessionId: string } | undefined; approvalHolder(approvalId: string): { runId: string; holder: string } | undefined };
  /** This Gateway's own acts, as its page does them (they throw InvalidInputError for what is not pending). */
  local: {
    approvalRun(approvalId: string): string | undefined;
    decideApproval(approvalId: string, approve: boolean, reason?: string): void;
    answerClientCall(runId: string, callId: string, answer: { result?: unknown; error?: string }): void;
    /** Aborts run `runId` as this Gateway's page would; false when it holds no live run of that id. */
    abortRun(runId: string): boolean;
  };
  live(instanceId: string): Promise<unknown>;
  log: (line: string) => void;
  waitMs?: number;
  pollMs?: number;
}

export class RunRequests {
  private readonly unsubscribe: () => void;
  private serving: Promise<void> = Promise.resolve();
  private servePending = false;
  private readonly wakers = new Set<() => void>();
  private closed = false;

  private readonly pollTimer: ReturnType<typeof setInterval>;

  constructor(private readonly deps: RunRequestsDeps) {
    this.unsubscribe = deps.notifier.subscribe((notice) => this.onNotice(notice));
    this.pollTimer = setInterval(() => this.look(), deps.pollMs ?? DEFAULT_REQUEST_POLL_MS);
    this.pollTimer.unref();
  }

  /**
   * Forwards `action` to the Gateway that holds its run and resolves once that Gateway applied it; undefined when no
   * other Gateway is known to hold it (act here). Throws InvalidInputError naming the holder when it refused, did not
   * answer in time, is gone, or when there is no key to seal the request with.
   */
  async forward(action: ElsewhereAction): Promise<{ forwardedTo: string } | undefined> {
    const target = this.locate(action);
    if (!target) return undefined;
    const { runId, holder, sessionId } = target;
    const what = action.kind === 'approval' ? `approval ${action.approvalId}` : action.kind === 'abort' ? `the abort of run ${action.runId}` : `client call ${action.callId}`;
    if (!this.deps.key) {
      throw new InvalidInputError(
        `${what} belongs to run ${runId}, which Gateway ${holder} holds; without runs.durable this Gateway cannot forward to it (nothing to seal the request with): act on it on the page of Gateway ${holder}`,
      );
    }
    if ((await this.deps.live(holder)) === undefined) {
      throw new InvalidInputError(`${what} belongs to run ${runId}, held by Gateway ${holder}, which is gone: the run went with it (a durable run can be resumed with wait)`);
    }
    const requestId = `rq_${randomUUID().replaceAll('-', '')}`;
    const plaintext = Buffer.from(JSON.stringify({ v: REQUEST_FORMAT, requestId, action }), 'utf8');
    const sealed = seal(this.deps.key, { runId, sessionId }, REQUEST_SEAL_BASE, plaintext);
    await this.deps.store.add({ requestId, runId, sessionId, holder, sender: this.deps.instanceId, createdAt: Date.now(), sealed });
    await this.deps.notifier.publish({ kind: 'request', runId, sessionId });
    const waitMs = this.deps.waitMs ?? DEFAULT_FORWARD_WAIT_MS;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const read = await this.deps.store.get(requestId);
      if (read?.ok && read.row.state !== 'pending') {
        await this.deps.store.delete(requestId);
        if (read.row.state === 'done') return { forwardedTo: holder };
        throw new InvalidInputError(`Gateway ${holder}, which holds run ${runId}, refused ${what}: ${read.row.outcome ?? 'it gave no reason'}`);
      }
      if (!read?.ok) {
        await this.deps.store.delete(requestId);
        throw new InvalidInputError(`the request for ${what} to Gateway ${holder} was lost (${read ? read.message : 'its row is gone'}); nothing is known to be done: try again`);
      }
      if (Date.now() >= deadline) {
        // withdrawn while still pending: the holder never applies it after this answer
        if (await this.deps.store.delete(requestId, true)) {
          throw new InvalidInputError(`Gateway ${holder}, which holds run ${runId}, did not take ${what} within ${Math.round(waitMs / 1000)} s; it was withdrawn and nothing was done: try again, or act on it on that Gateway's page`);
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(FORWARD_POLL_MS, Math.max(1, deadline - Date.now())));
        const wakers = this.wakers;
        function done() {
          clearTimeout(timer);
          wakers.delete(done);
          resolve();
        }
        wakers.add(done);
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    this.unsubscribe();
    for (const wake of [...this.wakers]) wake();
    await this.serving;
  }

  private locate(action: ElsewhereAction): { runId: string; holder: string; sessionId: string } | undefined {
    if (action.kind === 'approval') {
      const at = this.deps.views.approvalHolder(action.approvalId);
      const run = at && this.deps.views.heldRun(at.runId);
      return at && run ? { runId: at.runId, holder: run.holder, sessionId: run.sessionId } : undefined;
    }
    const run = this.deps.views.heldRun(action.runId);
    return run ? { runId: action.runId, ...run } : undefined;
  }

  private onNotice(notice: RunNotice): void {
    if (this.closed || notice.kind !== 'request' || notice.from === this.deps.instanceId) return;
    // an outcome of one of this Gateway's requests, or a request for it: wake the waiters and look for work
    for (const wake of [...this.wakers]) wake();
    this.look();
  }

  /** Applies what was sent to this Gateway, once after whatever is under way (without a key nothing can be opened). */
  private look(): void {
    if (this.closed || !this.deps.key || this.servePending) return;
    this.servePending = true;
    this.serving = this.serving
      .then(() => {
        this.servePending = false;
        return this.serve();
      })
      .catch((err: unknown) => this.deps.log(`[requests] the requests for Gateway ${this.deps.instanceId} could not be read: ${messageOf(err)}`));
  }

  /** Applies every pending request for this Gateway, recording each outcome and telling its sender. */
  private async serve(): Promise<void> {
    if (this.closed) return;
    for (const read of await this.deps.store.pendingFor(this.deps.instanceId)) {
      if (!read.ok) {
        this.deps.log(`[requests] ${read.message}`);
        if (read.requestId) await this.deps.store.settle(read.requestId, this.deps.instanceId, 'failed', 'the request row is damaged');
        continue;
      }
      const { row } = read;
      let state: 'done' | 'failed' = 'done';
      let outcome = 'applied';
      try {
        this.apply(row);
      } catch (err) {
        state = 'failed';
        outcome = messageOf(err);
      }
      if (await this.deps.store.settle(row.requestId, this.deps.instanceId, state, outcome)) {
        await this.deps.notifier.publish({ kind: 'request', runId: row.runId, sessionId: row.sessionId }).catch(() => undefined);
      }
    }
  }

  /** Applies one request as this Gateway's page would; throws (the outcome) for anything it cannot apply. */
  private apply(row: RunRequestRow): void {
    if (!this.deps.key) throw new InvalidInputError(`Gateway ${this.deps.instanceId} runs without runs.durable and cannot open a forwarded request`);
    const opened = openSealed(this.deps.key, { runId: row.runId, sessionId: row.sessionId }, REQUEST_SEAL_BASE, row.sealed);
    if (!opened.ok) throw new InvalidInputError(`the request could not be opened: ${opened.message.replace(/^the stored snapshot of run "[^"]*" /, '')}`);
    const action = parseAction(opened.plaintext, row.requestId);
    if (typeof action === 'string') throw new InvalidInputError(`the request is not one this Gateway applies: ${action}`);
    if (action.kind === 'approval') {
      if (this.deps.local.approvalRun(action.approvalId) !== row.runId) throw new InvalidInputError(`no pending approval "${action.approvalId}" of run ${row.runId} here; it was already decided or its run ended`);
      this.deps.local.decideApproval(action.approvalId, action.approve, action.reason);
      return;
    }
    if (action.runId !== row.runId) throw new InvalidInputError('the request names another run than its row');
    if (action.kind === 'abort') {
      if (!this.deps.local.abortRun(action.runId)) throw new InvalidInputError(`run ${action.runId} is not running or waiting here any more; it already ended`);
      return;
    }
    this.deps.local.answerClientCall(action.runId, action.callId, { ...(action.error !== undefined ? { error: action.error } : { result: action.result }) });
  }
}

/** The sealed request's action, checked (hostile even when authenticated: another build may have written it), or why not. */
function parseAction(plaintext: Uint8Array, requestId: string): ElsewhereAction | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(plaintext).toString('utf8'));
  } catch {
    return 'it is not JSON';
  }
  if (!isObject(value) || value.v !== REQUEST_FORMAT) return `it is not a request of format ${REQUEST_FORMAT}`;
  if (value.requestId !== requestId) return 'it was sealed for another request';
  const action = value.action;
  if (!isObject(action)) return 'it holds no action';
  const text = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= MAX_FORWARDED_TEXT_CHARS);
  const id = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= 256;
  if (action.kind === 'approval') {
    if (!id(action.approvalId) || typeof action.approve !== 'boolean' || !text(action.reason)) return 'its approval decision is not one';
    return { kind: 'approval', approvalId: action.approvalId, approve: action.approve, ...(typeof action.reason === 'string' ? { reason: action.reason } : {}) };
  }
  if (action.kind === 'client-call') {
    if (!id(action.runId) || !id(action.callId) || !text(action.error)) return 'its client-call answer is not one';
    return { kind: 'client-call', runId: action.runId, callId: action.callId, ...(typeof action.error === 'string' ? { error: action.error } : { result: action.result }) };
  }
  if (action.kind === 'abort') {
    if (!id(action.runId)) return 'its abort names no run';
    return { kind: 'abort', runId: action.runId };
  }
  return 'its kind is not approval, client-call or abort';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
