// Gateway composition: outer exec hook events, typecheck before any tool, plugin load errors, policy views.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from './gateway.ts';
import { QuickJsExecutor } from './executors/quickjs/executor.ts';
import { NodeExecutor } from './executors/node/executor.ts';
import { loadToolSources } from './tools/registry.ts';
import { testConfig } from './tools/testing.ts';
import type { BeforeToolCallEvent, CodeModePlugin } from './tools/plugins.ts';
import { probeTools } from './executors/conformance.testing.ts';
import { expectCompleted, expectWaiting, testGateway, until } from './testing.ts';

let executor: QuickJsExecutor;
beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
});
afterAll(() => executor.close());

async function gatewayWith(plugin: CodeModePlugin, configOverrides: Parameters<typeof testConfig>[0] = {}) {
  const probes = probeTools();
  const gw = await testGateway({ executor, config: { plugins: { bundled: ['weather'], external: [] }, ...configOverrides }, tools: probes.tools, plugins: [plugin] });
  return { gw, probes };
}

describe('outer exec hooks', () => {
  it('on exec: the hook event carries toolKind "code_mode_exec" and toolInputKind', async () => {
    const events: BeforeToolCallEvent[] = [];
    const { gw } = await gatewayWith({ id: 'recorder', tools: [], hooks: { before_tool_call: (e) => void events.push(e) } });
    try {
      const t = gw.prepareTurn({});
      await gw.exec(t.agentRunId, { code: 'const x: number = 1; return x', language: 'typescript' });
      expect(events[0]).toMatchObject({ tool: 'exec', toolKind: 'code_mode_exec', toolInputKind: 'typescript' });
    } finally {
      await gw.close();
    }
  });

  it('on a hook that blocks exec: the exec fails with invalid_input naming the plugin', async () => {
    const { gw } = await gatewayWith({
      id: 'no-cells',
      tools: [],
      hooks: { before_tool_call: (e) => (e.toolKind === 'code_mode_exec' ? { block: 'cells are off today' } : undefined) },
    });
    try {
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'failed', code: 'invalid_input', error: expect.stringContaining('cells are off today') });
    } finally {
      await gw.close();
    }
  });

  it('on a hook that blanks one populated alias: both are invalidated and exec fails closed', async () => {
    const { gw } = await gatewayWith({
      id: 'blanker',
      tools: [],
      hooks: { before_tool_call: (e) => (e.toolKind === 'code_mode_exec' ? { input: { ...(e.input as object), code: '   ' } } : undefined) },
    });
    try {
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'failed', code: 'invalid_input' });
    } finally {
      await gw.close();
    }
  });

  it('on a nested call: the hook sees the tool and may rewrite its input', async () => {
    const { gw } = await gatewayWith({
      id: 'rewriter',
      tools: [],
      hooks: { before_tool_call: (e) => (e.tool === 'weather.lookup' ? { input: { city: 'Rewritten' } } : undefined) },
    });
    try {
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return (await weather_lookup({ city: "Oslo" })).city' })).toMatchObject({ status: 'completed', value: 'Rewritten' });
    } finally {
      await gw.close();
    }
  });
});

describe('typecheck', () => {
  it('on a TypeScript cell with a wrong field: fails with invalid_input naming the line, before any tool runs', async () => {
    const { gw, probes } = await gatewayWith({ id: 'none', tools: [] });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, {
        code: 'await probe({ label: "ran" });\nconst w = await weather_lookup({ town: "Oslo" });\nreturn w.city',
        language: 'typescript',
        typecheck: true,
      });
      expect(r).toMatchObject({ status: 'failed', code: 'invalid_input' });
      expect(r.status === 'failed' && r.error).toMatch(/line 2: .*town/);
      expect(probes.counts.get('ran')).toBeUndefined();
    } finally {
      await gw.close();
    }
  });

  it('on a correct TypeScript cell with typecheck: runs it', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'const w = await weather_lookup({ city: "Oslo" });\nreturn w.city', language: 'typescript', typecheck: true });
      expect(r).toMatchObject({ status: 'completed', value: 'Oslo' });
    } finally {
      await gw.close();
    }
  });
});

describe('views', () => {
  it('on a plugin that throws at load: the catalog reports it by name and the gateway serves', async () => {
    const gw = await testGateway({ executor, config: { plugins: { bundled: [], external: [{ id: 'broken', path: 'demo/plugins/broken' }] } } });
    try {
      expect(gw.catalog({}).pluginErrors).toEqual([expect.objectContaining({ plugin: 'broken' })]);
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'completed' });
    } finally {
      await gw.close();
    }
  });

  it('on a gateway deny rule: the catalog view greys the tool with its rule and the guest has no global', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] }, { tools: { ...testConfig().tools, deny: ['weather.lookup'] } });
    try {
      const view = gw.catalog({});
      expect(view.tools.find((t) => t.name === 'weather.lookup')).toMatchObject({ deniedBy: expect.stringContaining('tools.deny') });
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return [typeof weather_lookup, (await catalog.search("weather")).length]' })).toMatchObject({ value: ['undefined', 0] });
    } finally {
      await gw.close();
    }
  });

  it('on code mode disabled for an agent: exec refuses with invalid_input', async () => {
    const gw = await testGateway({ executor, config: { agents: { defaults: { model: 'demo/coder', models: {} }, list: [{ id: 'main', tools: { codeMode: { enabled: false } } }] } } });
    try {
      const t = gw.prepareTurn({});
      expect(t.surface.codeMode).toBe(false);
      expect(await gw.exec(t.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'failed', code: 'invalid_input' });
    } finally {
      await gw.close();
    }
  });
});

describe('MCP server that is down', () => {
  it('on a call into its namespace: the guest gets a catchable mcp_unavailable error saying why', async () => {
    const config = testConfig({ mcp: { servers: { ghost: { command: '/nonexistent/mcp-server' } } } });
    const { createGateway } = await import('./gateway.ts');
    const gw = await createGateway({ config, executors: { quickjs: executor } });
    try {
      await gw.mcpReady();
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'try { await MCP.ghost.echo({ text: "x" }); return "reached" } catch (e) { return [e.code, e.message] }' });
      expect(r).toMatchObject({ status: 'completed', value: ['mcp_unavailable', expect.stringContaining('MCP server "ghost" is unavailable')] });
    } finally {
      await gw.close();
    }
  });
});

describe("the model's tool-call id on the run's call records", () => {
  it('on exec then wait: each call record carries its tool-call id, in the run view, every run event and the trajectory', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] });
    const views: Array<Array<{ callId: string; toolCallId?: string }>> = [];
    const unsubscribe = gw.subscribe((e) => {
      if (e.type === 'run.started' || e.type === 'run.updated') views.push(e.view.calls);
    });
    try {
      const t = gw.prepareTurn({});
      const parked = await gw.exec(t.agentRunId, { code: 'await yield_control("park");\nreturn 1' }, { toolCallId: 'call_the_exec' });
      if (parked.status !== 'waiting') throw new Error(JSON.stringify(parked));
      expect(await gw.wait(t.agentRunId, { runId: parked.runId }, { toolCallId: 'call_the_wait' })).toMatchObject({ status: 'completed', value: 1 });
      const expected = [
        { callId: 'exec_1', tool: 'exec', toolCallId: 'call_the_exec' },
        { callId: 'wait_2', tool: 'wait', toolCallId: 'call_the_wait' },
      ];
      expect(gw.run(parked.runId)?.calls).toMatchObject(expected);
      expect(gw.trajectory(parked.runId)?.calls).toMatchObject(expected);
      // the first event already has the exec's id; no event shows a call without one
      expect(views[0]).toMatchObject([expected[0]]);
      expect(views.flat().every((c) => c.toolCallId === (c.callId === 'exec_1' ? 'call_the_exec' : 'call_the_wait'))).toBe(true);
    } finally {
      unsubscribe();
      await gw.close();
    }
  });

  it('on exec and wait without a tool-call id: the Gateway makes one up per call, the same one the transcript records', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] });
    try {
      const t = gw.prepareTurn({});
      const parked = await gw.exec(t.agentRunId, { code: 'await yield_control("park");\nreturn 1' });
      if (parked.status !== 'waiting') throw new Error(JSON.stringify(parked));
      await gw.wait(t.agentRunId, { runId: parked.runId });
      const ids = gw.run(parked.runId)?.calls.map((c) => c.toolCallId) ?? [];
      expect(ids).toHaveLength(2);
      expect(ids[0]).toMatch(/^call_/);
      expect(ids[1]).toMatch(/^call_/);
      expect(ids[0]).not.toBe(ids[1]);
      const recorded = (await gw.transcript(t.sessionId)).flatMap((e) => (e.type === 'tool-call' ? [e.payload.toolCallId] : []));
      expect(recorded).toEqual(ids);
    } finally {
      await gw.close();
    }
  });
});

describe('client tools of a live turn', () => {
  it('on an update: new cells see the new tool; a parked cell keeps its projection and its call still answers; saved results stay', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] });
    try {
      const ask = { name: 'ask_user', description: 'ask', inputSchema: { type: 'object' } };
      const t = gw.prepareTurn({ clientTools: [ask] });
      const saved = expectCompleted(await gw.exec(t.agentRunId, { code: 'return (await results.save({ keep: 1 })).ref' }));
      // parks on purpose (no deadline to outlast): the client call stays pending while the run waits
      const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'const asked = ask_user({});\nawait yield_control("ask the user");\nreturn [await asked, typeof pick_color]' }));
      const info = gw.updateClientTools(t.agentRunId, [ask, { name: 'pick_color', description: 'pick', inputSchema: { type: 'object' } }]);
      expect(info.agentRunId).toBe(t.agentRunId);
      expect(gw.catalog({ clientTools: [ask, { name: 'pick_color', description: 'pick', inputSchema: { type: 'object' } }] }).tools.map((x) => x.name)).toContain('pick_color');
      const fresh = await gw.exec(t.agentRunId, { code: `return [typeof pick_color, await results.load(${JSON.stringify(saved.value)})]` });
      expect(fresh).toMatchObject({ status: 'completed', value: ['function', { keep: 1 }] });
      const callId = gw.run(parked.runId)!.clientCalls[0]!.callId;
      gw.answerClientCall({ runId: parked.runId, callId, result: 'ok' });
      expect(await gw.wait(t.agentRunId, { runId: parked.runId })).toMatchObject({ status: 'completed', value: ['ok', 'undefined'] });
    } finally {
      await gw.close();
    }
  });

  it('on an unknown agent run: refuses with invalid_input', async () => {
    const { gw } = await gatewayWith({ id: 'none', tools: [] });
    try {
      expect(() => gw.updateClientTools('ar_nope', [])).toThrow(/unknown agent run/);
    } finally {
      await gw.close();
    }
  });
});

describe('idle turns', () => {
  it('on a turn unused past the idle limit: it is ended, unless it still has a waiting run', async () => {
    const gw = await testGateway({ executor, gateway: { turnIdleMs: 300 } });
    try {
      // busy is last used before idle, so the sweep that ends idle has passed busy's idle limit too
      const busy = gw.prepareTurn({});
      const parked = await gw.exec(busy.agentRunId, { code: 'await yield_control("park"); return 1' });
      expect(parked.status).toBe('waiting');
      const idle = gw.prepareTurn({});
      // an ended turn has no options any more
      await until(() => gw.turnOptions(idle.agentRunId) === undefined);
      expect(await gw.exec(idle.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'failed', error: expect.stringContaining('unknown agent run') });
      if (parked.status === 'waiting') expect(gw.run(parked.runId)?.state).toBe('waiting');
      expect(await gw.exec(busy.agentRunId, { code: 'return 2' })).toMatchObject({ status: 'completed', value: 2 });
    } finally {
      await gw.close();
    }
  });
});

describe('start-up', () => {
  it('on warmUp (createGateway awaits it): the configured QuickJS executor is warm, and return 1 fits the minimum timeoutMs', async () => {
    const config = testConfig({ tools: { ...testConfig().tools, codeMode: { ...testConfig().tools.codeMode, executor: 'quickjs', timeoutMs: 100 } } });
    const sources = await loadToolSources(config);
    const cold = new QuickJsExecutor({ workers: 2 });
    const gw = new Gateway(config, sources, { executors: { quickjs: cold } });
    try {
      // workers report ready from their own threads: none can have done so synchronously
      expect(cold.poolStats().readyWorkers).toBe(0);
      await gw.warmUp();
      expect(cold.poolStats().readyWorkers).toBe(2);
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'return 1' });
      expect(r, JSON.stringify(r)).toMatchObject({ status: 'completed', value: 1 });
    } finally {
      await gw.close();
      await cold.close();
    }
  });

  it('on warmUp with the node executor configured: one worker for the configured memoryLimitBytes is ready, and the first cell runs on it', async () => {
    const memoryLimitBytes = 48 * 1024 * 1024;
    const config = testConfig({ tools: { ...testConfig().tools, codeMode: { ...testConfig().tools.codeMode, executor: 'node', memoryLimitBytes } } });
    const sources = await loadToolSources(config);
    const node = new NodeExecutor({ memoryPressure: () => false });
    const gw = new Gateway(config, sources, { executors: { node } });
    try {
      expect(node.poolStats()).toMatchObject({ spawned: 0, idle: 0 });
      await gw.warmUp();
      expect(node.poolStats()).toMatchObject({ spawned: 1, readyIdle: 1 });
      const t = gw.prepareTurn({});
      expect(await gw.exec(t.agentRunId, { code: 'return 1' })).toMatchObject({ status: 'completed', value: 1 });
      // the ready worker had the agent's heap limit: the cell reused it instead of starting another
      expect(node.poolStats()).toMatchObject({ spawned: 1, reused: 1 });
    } finally {
      await gw.close();
      await node.close();
    }
  });
});
