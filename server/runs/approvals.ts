// Pending operator approvals for nested calls of tools marked `approval: "required"`.
import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../errors.ts';
import type { ApprovalView } from './types.ts';

interface Pending {
  view: ApprovalView;
  resolve: (d: { approved: boolean; reason?: string }) => void;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly onChange: (e: { requested?: ApprovalView; resolved?: { approvalId: string; runId: string; approved: boolean } }) => void) {}

  request(view: Omit<ApprovalView, 'approvalId' | 'requestedAt'>, signal: AbortSignal): Promise<{ approved: boolean; reason?: string }> {
    const approvalId = `appr_${randomUUID().slice(0, 8)}`;
    const full: ApprovalView = { ...view, approvalId, requestedAt: Date.now() };
    return new Promise((resolve) => {
      const onAbort = () => this.settle(approvalId, { approved: false, reason: 'the run was aborted' });
      this.pending.set(approvalId, {
        view: full,
        resolve: (d) => {
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.onChange({ requested: full });
    });
  }

  list(): ApprovalView[] {
    return [...this.pending.values()].map((p) => p.view);
  }

  decide(approvalId: string, approved: boolean, reason?: string): void {
    if (!this.pending.has(approvalId)) {
      throw new InvalidInputError(`no pending approval "${approvalId}"; it was already decided or its run ended`);
    }
    this.settle(approvalId, { approved, reason });
  }

  private settle(approvalId: string, d: { approved: boolean; reason?: string }): void {
    const p = this.pending.get(approvalId);
    if (!p) return;
    this.pending.delete(approvalId);
    p.resolve(d);
    this.onChange({ resolved: { approvalId, runId: p.view.runId, approved: d.approved } });
  }
}
