// The host polls a worker after replies only when the guest's next request comes soon: after a narrow frontier.
import { describe, expect, it, vi } from 'vitest';
import type { HostToWorker } from '../../bridge/protocol.ts';
import { MAX_POLLED_FRONTIER } from '../spin-policy.mjs';
import type { PoolWorker } from './pool-worker.ts';
import { newLegState, postToWorker } from './pressure.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

function legOnFakeWorker() {
  const sab = new SharedArrayBuffer(24);
  const first: HostToWorker = {
    t: 'start',
    legId: 'leg',
    body: 'return 1',
    boot: { maxPendingToolCalls: 16, tools: [], mcp: [] },
    limits: { memoryLimitBytes: 1 << 26, maxOutputBytes: 1024, maxSnapshotBytes: 1 << 20, maxPendingToolCalls: 16 },
    control: sab,
    files: NO_DECLARATION_FILES,
  } as HostToWorker;
  const leg = newLegState({ id: 'leg', handlers: {} as never, resolve: () => undefined, sab, control: new Float64Array(sab), first, transfer: [] });
  const worker = { dead: false, post: vi.fn(), afterReply: vi.fn() };
  leg.worker = worker as unknown as PoolWorker;
  leg.inFlight = 100;
  return { leg, worker };
}

const replies = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, ok: true as const, value: null }));

describe('postToWorker: host polling after replies', () => {
  it('polls after a message of at most MAX_POLLED_FRONTIER replies', () => {
    const { leg, worker } = legOnFakeWorker();
    postToWorker(leg, { t: 'deliver', legId: 'leg', replies: replies(1) } as HostToWorker);
    postToWorker(leg, { t: 'deliver', legId: 'leg', replies: replies(MAX_POLLED_FRONTIER) } as HostToWorker);
    expect(worker.post).toHaveBeenCalledTimes(2);
    expect(worker.afterReply).toHaveBeenCalledTimes(2);
  });

  it('does not poll after a wide frontier\'s replies, nor after other messages', () => {
    const { leg, worker } = legOnFakeWorker();
    postToWorker(leg, { t: 'deliver', legId: 'leg', replies: replies(MAX_POLLED_FRONTIER + 1) } as HostToWorker);
    postToWorker(leg, { t: 'park', legId: 'leg' });
    expect(worker.post).toHaveBeenCalledTimes(2);
    expect(worker.afterReply).not.toHaveBeenCalled();
  });
});
