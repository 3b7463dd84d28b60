// The worker half of reply polling, end to end in a real QuickJS worker (worker-port.mjs): after a one-request
// frontier the worker polls its leg port, and the replies it takes that way reach the guest.
import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CONTROL_BUDGET, CONTROL_DEADLINE, CONTROL_SLOTS } from '../bridge/leg-control.mjs';
import { SPIN_ALLOWED, SPIN_POLLERS } from './spin-policy.mjs';
import { NO_DECLARATION_FILES } from '../bridge/declaration-files.mjs';

const until = async (what: string, ok: () => boolean): Promise<void> => {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
};

describe('a worker polling its leg port for replies', () => {
  it('polls after each one-request frontier (its slot is taken while the host answers) and the polled replies reach the guest', async () => {
    const slots = new SharedArrayBuffer(8);
    // polling allowed (the steal guard's flag, reply-spin.ts)
    Atomics.store(new Int32Array(slots), SPIN_ALLOWED, 1);
    const polling = () => Atomics.load(new Int32Array(slots), SPIN_POLLERS);
    const { port1: host, port2: legPort } = new MessageChannel();
    // a window far longer than any host step here: the worker is still polling when the test looks
    const worker = new Worker(new URL('./quickjs/worker.mjs', import.meta.url), {
      workerData: { legPort, replySpinSlots: slots, replySpinMax: 1, replySpinMs: 10_000 },
      transferList: [legPort],
      execArgv: ['--no-warnings'],
      stdout: false,
      stderr: false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      });
      const control = new SharedArrayBuffer(CONTROL_SLOTS * Float64Array.BYTES_PER_ELEMENT);
      new Float64Array(control)[CONTROL_DEADLINE] = Infinity;
      new Float64Array(control)[CONTROL_BUDGET] = 60_000;
      let polledFrontiers = 0;
      const settled = new Promise<{ ok?: boolean; valueJson?: string }>((resolve) => {
        host.on('message', (msg: { t: string; requests?: Array<{ id: string }>; ok?: boolean; valueJson?: string }) => {
          if (msg.t === 'requests') {
            void until('the worker to poll for its reply', () => polling() === 1).then(() => {
              polledFrontiers++;
              host.postMessage({ t: 'deliver', legId: 'leg', replies: (msg.requests ?? []).map((r) => ({ id: r.id, ok: true, value: 1 })) });
            });
          } else if (msg.t === 'settled') resolve(msg);
        });
      });
      host.postMessage({
        t: 'start',
        legId: 'leg',
        body: 'let s = 0;\nfor (let i = 0; i < 3; i++) s += await one({});\nreturn s;',
        boot: { maxPendingToolCalls: 16, tools: [{ callableName: 'one', name: 'one', description: '', source: 'core' }], mcp: [] },
        limits: { memoryLimitBytes: 64 * 1024 * 1024, maxOutputBytes: 1024, maxSnapshotBytes: 8 * 1024 * 1024, maxPendingToolCalls: 16 },
        control,
        files: NO_DECLARATION_FILES,
      });
      expect(await settled).toMatchObject({ ok: true, valueJson: '3' });
      expect(polledFrontiers).toBe(3);
      // the slot comes back once the guest waits on nothing
      await until('the slot to be given back', () => polling() === 0);
    } finally {
      host.close();
      await worker.terminate();
    }
  });
});
