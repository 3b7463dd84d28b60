// Spec 02: "If a before_message_write hook suppresses a nested activity row, finalization and agent-end hooks omit that
// activity too. The successful tool still counts as completed for turn settlement; suppressing its display history
// does not undo its execution." The before_message_write and agent_end plugin hooks, through a real Gateway.
import { describe, expect, it } from 'vitest';
import { expectCompleted, testGateway, until } from '../testing.ts';
import type { AgentEndEvent, BeforeMessageWriteEvent, CodeModePlugin } from '../tools/plugins.ts';
import type { ToolDefinition } from '../tools/types.ts';

const secretTool: ToolDefinition = {
  name: 'secret_tool',
  description: 'test: a call whose display history a plugin hides',
  source: 'core',
  inputSchema: { type: 'object' },
  execute: async () => 'done in secret',
};

/** A plugin that hides secret_tool's rows and records every write it saw and every turn end. */
function hidingPlugin(over: Partial<NonNullable<CodeModePlugin['hooks']>> = {}) {
  const seen: BeforeMessageWriteEvent[] = [];
  const ended: AgentEndEvent[] = [];
  const plugin: CodeModePlugin = {
    id: 'hider',
    tools: [],
    hooks: {
      before_message_write: (event) => {
        seen.push(event);
        return event.message.tool === 'secret_tool' ? { suppress: true } : undefined;
      },
      agent_end: (event) => void ended.push(event),
      ...over,
    },
  };
  return { plugin, seen, ended };
}

const activityTools = async (gw: Awaited<ReturnType<typeof testGateway>>, sessionId: string) =>
  (await gw.transcript(sessionId)).flatMap((e) => (e.type === 'nested-activity' ? [e.payload.tool] : []));

describe('before_message_write and agent_end hooks', () => {
  it('on a row the hook suppresses: the call still completes and counts, its row is not in the transcript, and agent_end omits it', async () => {
    const hider = hidingPlugin();
    const gw = await testGateway({ tools: [secretTool], plugins: [hider.plugin] });
    const t = gw.prepareTurn({});
    const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'const a = await secret_tool({});\nconst b = await sleep({ ms: 1 });\nreturn [a, b.sleptMs >= 1]' }));
    expect(r.value).toEqual(['done in secret', true]);
    expect(r.telemetry.counters.call).toBe(2);
    // the run's own record keeps the call (turn settlement, the board); only the display history omits it
    expect(gw.trajectory(r.telemetry.runId!)!.calls.flatMap((c) => c.nested).map((n) => [n.tool, n.status])).toEqual([
      ['secret_tool', 'ok'],
      ['sleep', 'ok'],
    ]);
    await until(() => hider.seen.length === 2, { what: 'both rows to reach the hook' });
    expect(hider.seen.map((e) => [e.type, e.message.tool, e.agentRunId, e.sessionId])).toEqual([
      ['nested-activity', 'secret_tool', t.agentRunId, t.sessionId],
      ['nested-activity', 'sleep', t.agentRunId, t.sessionId],
    ]);
    expect(await activityTools(gw, t.sessionId)).toEqual(['sleep']);

    gw.endTurn(t.agentRunId);
    await until(() => hider.ended.length === 1, { what: 'the agent_end hook' });
    const [end] = hider.ended;
    expect(end).toMatchObject({ agentRunId: t.agentRunId, agentId: 'main', sessionId: t.sessionId, reason: 'ended' });
    expect(end!.activity.map((a) => [a.tool, a.status])).toEqual([['sleep', 'ok']]);
  });

  it('on agent_end: only the ending turn\'s activity, also in a session another turn shares; the Gateway closing ends live turns as "shutdown"', async () => {
    const hider = hidingPlugin();
    const gw = await testGateway({ tools: [secretTool], plugins: [hider.plugin] });
    const first = gw.prepareTurn({});
    const second = gw.prepareTurn({ sessionId: first.sessionId });
    expectCompleted(await gw.exec(first.agentRunId, { code: 'await sleep({ ms: 1 }); return 1' }));
    expectCompleted(await gw.exec(second.agentRunId, { code: 'await catalog.search("sleep"); return 2' }));
    gw.endTurn(first.agentRunId);
    await until(() => hider.ended.length === 1, { what: 'the first turn\'s agent_end' });
    expect(hider.ended[0]!.activity.map((a) => a.tool)).toEqual(['sleep']);
    await gw.close();
    await until(() => hider.ended.length === 2, { what: 'the second turn\'s agent_end' });
    expect(hider.ended[1]).toMatchObject({ agentRunId: second.agentRunId, reason: 'shutdown' });
    expect(hider.ended[1]!.activity.map((a) => a.tool)).toEqual(['catalog.search']);
  });

  it('on a before_message_write hook that throws or answers asynchronously: the row stays out (fail closed), the call still completes', async () => {
    for (const bad of [
      () => {
        throw new Error('policy store down');
      },
      () => Promise.resolve(undefined) as unknown as undefined,
    ]) {
      const hider = hidingPlugin({ before_message_write: bad });
      const gw = await testGateway({ tools: [secretTool], plugins: [hider.plugin] });
      const t = gw.prepareTurn({});
      expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'return (await sleep({ ms: 1 })).sleptMs >= 1' })).value).toBe(true);
      expect(await activityTools(gw, t.sessionId)).toEqual([]);
      await gw.close();
    }
  });

  it('on an agent_end hook that throws: the turn still ends, and the Gateway goes on serving', async () => {
    const hider = hidingPlugin({
      agent_end: () => {
        throw new Error('audit sink down');
      },
    });
    const gw = await testGateway({ plugins: [hider.plugin], gateway: { log: () => undefined } });
    const t = gw.prepareTurn({});
    gw.endTurn(t.agentRunId);
    const next = gw.prepareTurn({});
    expect(expectCompleted(await gw.exec(next.agentRunId, { code: 'return 3' })).value).toBe(3);
  });
});
