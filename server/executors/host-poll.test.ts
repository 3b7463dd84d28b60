import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPoller } from './host-poll.ts';

const ports: MessageChannel[] = [];
afterEach(() => {
  for (const c of ports.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

/** A real port (the poller passes it to `receive`), a scripted queue and a clock that moves with each look. */
function scripted(arrivals: { at: number; message: unknown }[], stepMs = 0.01) {
  const channel = new MessageChannel();
  ports.push(channel);
  let t = 0;
  let looks = 0;
  return {
    port: channel.port1,
    now: () => (t += stepMs),
    receive: () => {
      looks++;
      const next = arrivals[0];
      if (next && next.at <= t) return { message: arrivals.shift()?.message };
      return undefined;
    },
    get looks() {
      return looks;
    },
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('hostPoller (the Gateway polls a worker after replying)', () => {
  it('after a reply, takes the guest next message off the port within the window and handles it', async () => {
    const s = scripted([{ at: 0.2, message: { t: 'requests' } }]);
    const got: unknown[] = [];
    const afterReply = hostPoller({ allowed: () => true, port: s.port, windowMs: 0.5, eligible: () => true, onMessage: (m) => got.push(m), now: s.now, receive: s.receive });
    afterReply();
    expect(got).toEqual([]);
    await tick();
    expect(got).toEqual([{ t: 'requests' }]);
  });

  it('polls once per turn of the event loop however many replies went out in it', async () => {
    const s = scripted([]);
    const afterReply = hostPoller({ allowed: () => true, port: s.port, windowMs: 0.5, eligible: () => true, onMessage: () => undefined, now: s.now, receive: s.receive });
    afterReply();
    afterReply();
    afterReply();
    await tick();
    const once = s.looks;
    expect(once).toBeGreaterThan(0);
    // one window of looks: the clock moves 0.01 ms a look
    expect(once).toBeLessThanOrEqual(0.5 / 0.01 + 1);
    afterReply();
    await tick();
    expect(s.looks).toBeGreaterThan(once);
  });

  it('gives up after the window: a message that comes later is left for the port listener', async () => {
    const s = scripted([{ at: 5, message: 'late' }]);
    const got: unknown[] = [];
    const afterReply = hostPoller({ allowed: () => true, port: s.port, windowMs: 0.5, eligible: () => true, onMessage: (m) => got.push(m), now: s.now, receive: s.receive });
    afterReply();
    await tick();
    expect(got).toEqual([]);
  });

  it('does not poll while the steal guard pauses polling', async () => {
    const s = scripted([{ at: 0, message: 'x' }]);
    const afterReply = hostPoller({ allowed: () => false, port: s.port, windowMs: 0.5, eligible: () => true, onMessage: () => undefined, now: s.now, receive: s.receive });
    afterReply();
    await tick();
    expect(s.looks).toBe(0);
  });

  it('does not poll when it is not worth it (more than one leg) or when the window is 0', async () => {
    const s = scripted([{ at: 0, message: 'x' }]);
    const notNow = hostPoller({ allowed: () => true, port: s.port, windowMs: 0.5, eligible: () => false, onMessage: () => undefined, now: s.now, receive: s.receive });
    notNow();
    const off = hostPoller({ allowed: () => true, port: s.port, windowMs: 0, eligible: () => true, onMessage: () => undefined, now: s.now, receive: s.receive });
    off();
    await tick();
    expect(s.looks).toBe(0);
  });

  it('polls the real port by default: a message posted from the other end is taken, not emitted', async () => {
    const channel = new MessageChannel();
    ports.push(channel);
    const emitted: unknown[] = [];
    channel.port1.on('message', (m) => emitted.push(m));
    const got: unknown[] = [];
    const afterReply = hostPoller({ allowed: () => true, port: channel.port1, windowMs: 10_000, eligible: () => true, onMessage: (m) => got.push(m) });
    // posted in the same check phase, just before the poll runs: queued on port1, not yet emitted
    setImmediate(() => channel.port2.postMessage({ n: 1 }));
    afterReply();
    await tick();
    expect(got).toEqual([{ n: 1 }]);
    expect(emitted).toEqual([]);
  });
});
