// The host polls a worker after replies only when the guest's next request comes soon: after a narrow frontier.
import { describe, expect, it, vi } from 'vitest';
import type { HostToWorker } from '../../bridge/protocol.ts';
import { until } from '../../testing.ts';
import { MAX_POLLED_FRONTIER } from '../spin-policy.mjs';
import { PoolLeg } from './pool-leg.ts';
import type { PoolWorker } from './pool-worker.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

/** A leg opening on a fake worker (its opening message posted), 100 requests in flight. */
async function legOnFakeWorker() {
  const sab = new SharedArrayBuffer(24);
  const first: HostToWorker = {
    t: 'resume',
    legId: 'leg',
    snapshot: new Uint8Array(1),
    limits: { memoryLimitBytes: 1 << 26, maxOutputBytes: 1024, maxSnapshotBytes: 1 << 20, maxPendingToolCalls: 16 },
    control: sab,
    files: NO_DECLARATION_FILES,
    inFlight: 100,
  };
  const leg = new PoolLeg('leg', {} as never, () => undefined, sab, new Float64Array(sab), first, []);
  const worker = { dead: false, post: vi.fn(), afterReply: vi.fn(), ready: Promise.resolve(), legs: new Map() };
  leg.place(worker as unknown as PoolWorker);
  await until(() => leg.phase.name === 'opening', { what: 'the opening message to go' });
  worker.post.mockClear();
  return { leg, worker };
}

const replies = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, ok: true as const, value: null }));

describe('PoolLeg.post: host polling after replies', () => {
  it('polls after a message of at most MAX_POLLED_FRONTIER replies', async () => {
    const { leg, worker } = await legOnFakeWorker();
    leg.post({ t: 'deliver', legId: 'leg', replies: replies(1) } as HostToWorker);
    leg.post({ t: 'deliver', legId: 'leg', replies: replies(MAX_POLLED_FRONTIER) } as HostToWorker);
    expect(worker.post).toHaveBeenCalledTimes(2);
    expect(worker.afterReply).toHaveBeenCalledTimes(2);
  });

  it('does not poll after a wide frontier\'s replies, nor after other messages', async () => {
    const { leg, worker } = await legOnFakeWorker();
    leg.post({ t: 'deliver', legId: 'leg', replies: replies(MAX_POLLED_FRONTIER + 1) } as HostToWorker);
    leg.post({ t: 'park', legId: 'leg' });
    expect(worker.post).toHaveBeenCalledTimes(2);
    expect(worker.afterReply).not.toHaveBeenCalled();
  });
});
