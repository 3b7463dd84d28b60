// Issue 14: replies that settle together go back to the VM in one message (one hop per frontier each way).
import { MessagePort } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectCompleted, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

const instant: ToolDefinition = {
  name: 'instant',
  description: 'answers at once',
  source: 'core',
  executionMode: 'parallel',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  execute: async (input) => (input as { n: number }).n,
};

describe('nested-call replies', () => {
  let executor: QuickJsExecutor;
  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1 });
    await executor.ready();
  });
  afterAll(async () => {
    await executor.close();
  });

  it('on a Promise.all of 20 calls that settle together: one deliver message carries all 20 replies, each to its own call', async () => {
    const gw = await testGateway({ executor, tools: [instant], codeMode: { maxPendingToolCalls: 32 } });
    const t = gw.prepareTurn({ sessionId: 'batching' });
    const spy = vi.spyOn(MessagePort.prototype, 'postMessage');
    try {
      const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'return await Promise.all(Array.from({ length: 20 }, (_, n) => instant({ n })))' }));
      expect(r.value).toEqual(Array.from({ length: 20 }, (_, n) => n));
      const delivers = spy.mock.calls.map((c) => c[0] as { t?: string; replies?: unknown[] }).filter((m) => m.t === 'deliver');
      expect(delivers.map((m) => m.replies?.length)).toEqual([20]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a reply leaves for the VM before its record ends: each deliver message precedes its calls\' nested.finished, and every record ends ok', async () => {
    const gw = await testGateway({ executor, tools: [instant] });
    const t = gw.prepareTurn({ sessionId: 'reply-first' });
    const order: string[] = [];
    const unsubscribe = gw.subscribe((e) => {
      if (e.type === 'nested.finished') order.push(`finished ${e.call.requestId}`);
    });
    const post = MessagePort.prototype.postMessage;
    const spy = vi.spyOn(MessagePort.prototype, 'postMessage').mockImplementation(function (this: MessagePort, msg: unknown, transfer?: Parameters<MessagePort['postMessage']>[1]) {
      const m = msg as { t?: string; replies?: Array<{ id: string }> };
      if (m.t === 'deliver') for (const r of m.replies ?? []) order.push(`delivered ${r.id}`);
      return post.call(this, msg, transfer as Parameters<MessagePort['postMessage']>[1]);
    });
    try {
      const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'let s = 0;\nfor (let n = 0; n < 3; n++) s += await instant({ n });\nreturn s' }));
      expect(r.value).toBe(3);
      const ids = order.filter((o) => o.startsWith('delivered ')).map((o) => o.slice('delivered '.length));
      expect(ids).toHaveLength(3);
      expect(order).toEqual(ids.flatMap((id) => [`delivered ${id}`, `finished ${id}`]));
      const trajectory = gw.trajectory(r.telemetry.runId ?? '');
      expect(trajectory?.calls.flatMap((c) => c.nested.map((n) => n.status))).toEqual(['ok', 'ok', 'ok']);
    } finally {
      spy.mockRestore();
      unsubscribe();
    }
  });
});
