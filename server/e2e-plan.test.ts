// The spec's 16-step E2E test plan (maintainer notes) on the demo config: the shared steps of server/testplan/
// (the ones `codemode test-plan` and the Test plan tab run), one test per step, each asserting its verdict and
// what the demo's catalog makes exact (OpenClaw-style core tools, bundled and external plugins, the demo MCP
// server over stdio, the plan's client tool). e2e/spec-plan.spec.ts runs the same steps through the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createGateway, type Gateway } from './gateway.ts';
import { loadConfigFile } from './config/load.ts';
import { REPO_ROOT } from './tools/testing.ts';
import type { CodeModeResult } from './runs/types.ts';
import { expectCompleted, expectWaiting } from './testing.ts';
import type { ClientToolSpec } from './gateway-types.ts';
import { catalogId, hostIdentity } from './catalog/names.ts';
import { QuickJsExecutor } from './executors/quickjs/executor.ts';
import { runTestPlan } from './testplan/run.ts';
import { PLAN_STEPS, type StepReport, type TestPlanReport } from './testplan/types.ts';

/** The agent the plan runs as: the shipped config's main agent with the shell exec tool denied, so step 11 has a denied tool. */
const PLAN_AGENT = 'plan';

/** What a completed cell's report carries (steps report `shown(result)`). */
interface ShownCompleted {
  status: 'completed';
  value: unknown;
  output?: Array<{ text: string }>;
}

function completedValue<T>(step: StepReport): T {
  const result = step.result as ShownCompleted;
  expect(result.status, step.detail).toBe('completed');
  return result.value as T;
}

describe('spec E2E plan on the demo config (the shared steps of server/testplan/)', () => {
  let gw: Gateway;
  let report: TestPlanReport;
  const step = (n: number): StepReport => report.steps[n - 1]!;

  beforeAll(async () => {
    const config = loadConfigFile(join(REPO_ROOT, 'codemode.config.json'));
    config.agents.list.push({ id: PLAN_AGENT, name: 'Test plan', tools: { deny: ['exec'] } });
    gw = await createGateway({ config });
    report = await runTestPlan(gw, { agentId: PLAN_AGENT });
    expect(report.steps.map((s) => s.step)).toEqual(PLAN_STEPS.map((_, i) => i + 1));
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
  });

  const title = (n: number, what: string) => `step ${n}: ${PLAN_STEPS[n - 1]} (${what})`;
  const passes = (n: number) => expect(step(n), step(n).detail).toMatchObject({ step: n, title: PLAN_STEPS[n - 1], verdict: 'pass' });

  it(title(1, 'a sibling Gateway over the same sources with code mode off'), () => {
    passes(1);
    expect(step(1).detail).toMatch(/^a Gateway over the same sources with code mode off: /);
  });

  it(title(2, 'the demo catalog: every effective tool as a direct tool, and the plan\'s client tool'), () => {
    passes(2);
    // every effective tool, in catalog order, under its exact name (the shell exec tool denied): nothing hidden, no wait
    expect(step(2).result).toEqual([
      ...['read', 'grep', 'web_search', 'web_fetch', 'sleep', 'image_generate', 'tool_search', 'tool_describe'],
      ...['llm-task', 'weather.lookup', 'notes_append', 'delete', 'catalog', '2fa'],
      ...['echo', 'add', 'lookup-user', 'slow', 'crash'],
      'test_plan_echo',
    ]);
  });

  it(title(3, 'the same names in catalog order, each described as its source declares it'), () => {
    passes(3);
    expect(step(3).detail).toBe('the model sees exactly the 20 effective tools, in catalog order, each as its source declares it');
  });

  it(title(4, 'the demo config turns code mode on'), () => {
    passes(4);
  });

  it(title(5, 'core, both plugin kinds, the demo MCP server and the client tool'), () => {
    passes(5);
    expect(step(5).result).toMatchObject({ sources: ['bundled_plugin', 'client', 'core', 'external_plugin', 'mcp'], mcpServers: ['demo'] });
  });

  it(title(6, 'exec, wait and the direct-only image_generate'), () => {
    passes(6);
    expect(step(6).result).toEqual(['exec', 'wait', 'image_generate']);
  });

  it(title(7, 'the demo\'s normalized and reserved names, all in the quick index'), () => {
    passes(7);
    const { projected } = step(7).result as { projected: Array<{ name: string; source: string; callableName: string; inQuickIndex: boolean }> };
    const byName = Object.fromEntries(projected.map((p) => [p.name, p.callableName]));
    expect(byName).toEqual({
      'llm-task': 'llm_task',
      'weather.lookup': 'weather_lookup',
      delete: expect.stringMatching(/^delete_[0-9a-z]{6}$/),
      catalog: expect.stringMatching(/^catalog_[0-9a-z]{6}$/),
      '2fa': 'tool_2fa',
    });
    expect(projected.filter((p) => !p.inQuickIndex)).toEqual([]);
  });

  it(title(8, 'a core, a bundled and an external plugin handle described, the core sleep called by handle, the client handle called'), () => {
    passes(8);
    const value = completedValue<{ handles: Array<{ name: string; source: string; callableName: string; keys: string[] }>; core: { called: string; output: unknown }; inputSchema: unknown; echoed: string }>(step(8));
    expect(value.handles.map((h) => [h.source, h.name, h.callableName])).toEqual([
      ['core', 'read', 'read'],
      ['bundled_plugin', 'llm-task', 'llm_task'],
      ['external_plugin', 'delete', expect.stringMatching(/^delete_[0-9a-z]{6}$/)],
    ]);
    expect(value.handles[0]!.keys).toEqual(expect.arrayContaining(['callableName', 'declaration', 'description', 'name', 'source']));
    expect(value.core).toEqual({ called: 'sleep', output: { sleptMs: expect.any(Number) } });
    expect(value.inputSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } satisfies ClientToolSpec['inputSchema']);
    expect(value.echoed).toBe('ping');
  });

  it(title(9, 'mcp/index.d.ts and mcp/demo.d.ts, read without a tool call'), () => {
    passes(9);
    expect(step(9).detail).toMatch(/^mcp\/demo\.d\.ts declares all 5 tools, read without a tool call$/);
    const value = completedValue<{ list: string[]; decl: string }>(step(9));
    expect(value.list).toEqual(expect.arrayContaining(['mcp/index.d.ts', 'mcp/demo.d.ts']));
    expect(value.decl).toMatch(/echo\(/);
  });

  it(title(10, 'MCP.demo.echo answers; $api() lists the demo tools; no MCP entry in catalog discovery'), () => {
    passes(10);
    const value = completedValue<{ called: string; r: { content: Array<{ type: string; text: string }> }; tools: string[]; all: number; found: number }>(step(10));
    expect(value.called).toBe('MCP.demo.echo');
    expect(value.r.content[0]).toEqual({ type: 'text', text: 'test' });
    expect(value.tools).toEqual(expect.arrayContaining(['echo', 'add', 'lookup-user']));
    expect(value).toMatchObject({ all: 0, found: 0 });
  });

  it(title(11, 'the denied shell exec tool: no global, handle, search hit or declaration file, by name or guessed id'), () => {
    passes(11);
    expect(step(11).detail).toMatch(/^1 denied tools \(exec: /);
    const guessedId = catalogId(hostIdentity(gw.catalog({ agentId: PLAN_AGENT }).tools.find((t) => t.name === 'exec')!));
    expect(step(11).cell).toContain(guessedId);
    expect(completedValue(step(11))).toEqual({ globals: [], listed: [], found: [], files: [], read: [] });
  });

  it(title(12, 'the client call is pending when exec returns waiting'), () => {
    passes(12);
    const parked = step(12).result as { status: string; pendingToolCalls: unknown[]; output: Array<{ text: string }> };
    expect(parked.status).toBe('waiting');
    expect(parked.output.map((o) => o.text)).toEqual(['before wait']);
    expect(parked.pendingToolCalls).toEqual([expect.objectContaining({ tool: 'test_plan_echo', state: 'awaiting_client' })]);
    expect(step(12).runId).toBe(step(8).runId);
  });

  it(title(13, 'the restored VM returns the client\'s answer'), () => {
    passes(13);
    expect(completedValue(step(13))).toMatchObject({ echoed: 'ping', described: 'test_plan_echo' });
  });

  it(title(14, "the wait's answer carries the line printed after the restore"), () => {
    passes(14);
    expect(step(14).result).toEqual(['after restore: ping']);
  });

  it(title(15, 'timeout, abort and expiry each fail as the spec says and free their slot'), () => {
    passes(15);
    const r = step(15).result as { timeout: { code: string }; abortedState: string; afterAbort: { code: string; error: string }; afterExpiry: { code: string; error: string }; suspendedSlots: number };
    expect(r.timeout.code).toBe('timeout');
    expect(r.abortedState).toBe('aborted');
    for (const gone of [r.afterAbort, r.afterExpiry]) expect(gone).toMatchObject({ code: 'invalid_input', error: expect.stringContaining('code mode run is unavailable or expired.') });
    expect(r.suspendedSlots).toBe(0);
  });

  it(title(16, 'exec then wait, the client call nested under exec; the exported trajectory is plain JSON'), () => {
    passes(16);
    expect(step(16).result).toEqual([
      {
        tool: 'exec',
        nested: [
          ...['catalog.all', 'read.describe', 'llm_task.describe', expect.stringMatching(/^delete_[0-9a-z]{6}\.describe$/), 'sleep'],
          ...['catalog.search', 'test_plan_echo.describe', 'test_plan_echo', 'yield_control'],
        ].map((tool: unknown) => ({ tool, status: 'ok' })),
      },
      { tool: 'wait', nested: [] },
    ]);
    const traj = gw.trajectory(step(16).runId!)!;
    expect(JSON.parse(JSON.stringify(traj))).toEqual(traj);
  });

  it('the summary counts 16 passes, and the plan leaves no run parked', () => {
    expect(report.summary).toEqual({ pass: 16, fail: 0, notApplicable: 0 });
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
  });
});

// Beyond the plan's steps: what the demo's names and budgets add, and a guest that subverts its prelude.
describe('the demo catalog beyond the plan', () => {
  let gw: Gateway;

  beforeAll(async () => {
    const config = loadConfigFile(join(REPO_ROOT, 'codemode.config.json'));
    config.agents.list.push({ id: 'deadline', tools: { codeMode: { timeoutMs: 1500 } } });
    gw = await createGateway({ config });
    await gw.mcpReady();
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('projected names: the reserved-name tools answer through them, and a real normalized collision keeps both tools callable apart', async () => {
    // a client tool spelled exactly like weather.lookup's normalized name: the exact safe name claims it
    const colliding: ClientToolSpec = { name: 'weather_lookup', description: 'The page asks the user for the weather.', inputSchema: { type: 'object', properties: {} } };
    const turn = gw.prepareTurn({ clientTools: [colliding] });
    const code = `
      const byName = Object.fromEntries((await catalog.all()).map((h) => [h.name + "/" + h.source, h.callableName]));
      const del = globalThis[byName["delete/external_plugin"]];
      const cat = globalThis[byName["catalog/external_plugin"]];
      const weather = globalThis[byName["weather.lookup/bundled_plugin"]];
      return {
        byName,
        deleted: await del({ key: "draft-1" }),
        bikes: (await cat({ category: "bikes" })).products.map((p) => p.sku),
        code: (await tool_2fa({ secret: "JBSWY3DPEHPK3PXP", atMs: 0 })).code,
        pluginWeather: (await weather({ city: "Oslo" })).city,
        bareWeather: (await weather_lookup.describe()).source,
      }`;
    const v = expectCompleted(await gw.exec(turn.agentRunId, { code })).value as {
      byName: Record<string, string>;
      deleted: { deleted: boolean; remaining: string[] };
      bikes: string[];
      code: string;
      pluginWeather: string;
      bareWeather: string;
    };
    expect(v.byName['delete/external_plugin']).toMatch(/^delete_[0-9a-z]{6}$/);
    expect(v.byName['catalog/external_plugin']).toMatch(/^catalog_[0-9a-z]{6}$/);
    expect(v.byName['2fa/external_plugin']).toBe('tool_2fa');
    expect(v.byName['weather_lookup/client']).toBe('weather_lookup');
    expect(v.byName['weather.lookup/bundled_plugin']).toMatch(/^weather_lookup_[0-9a-z]{6}$/);
    expect(v.deleted).toEqual({ deleted: true, remaining: expect.not.arrayContaining(['draft-1']) });
    expect(v.bikes).toEqual(['BK-100', 'BK-220']);
    expect(v.code).toMatch(/^\d{6}$/);
    expect(v.pluginWeather).toBe('Oslo');
    expect(v.bareWeather).toBe('client');
    const quickIndex = turn.surface.tools[0]!.description;
    for (const callable of Object.values(v.byName)) expect(quickIndex).toContain(`${callable}(`);
  });

  it("a slow MCP call still running when the turn's budget ends: exec returns waiting with it pending, and wait delivers it with the output after restore", async () => {
    const deadline = gw.prepareTurn({ agentId: 'deadline' }).agentRunId;
    const first = expectWaiting(
      await gw.exec(deadline, { code: 'console.log("before");\nconst s = await MCP.demo.slow({ ms: 2500 });\nconsole.log("after restore");\nreturn { slow: s.content[0].text }' }),
    );
    expect(first.pendingToolCalls?.[0]?.tool).toBe('MCP.demo.slow');
    let r: CodeModeResult = first;
    while (r.status === 'waiting') r = await gw.wait(deadline, { runId: first.runId });
    const done = expectCompleted(r);
    expect(done.output?.map((o) => o.text)).toContain('after restore');
    expect((done.value as { slow: string }).slow).toBeTruthy();
  });

  it("a cell holding the raw bridge primitive sends calls by a denied tool's guessed id, as a tool and as an MCP member: not_found, and the tool never runs", async () => {
    // a fully subverted prelude: the cell keeps the host primitive and writes bridge requests itself
    const raw = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__cm_raw = globalThis.__cm_sync;' });
    const config = loadConfigFile(join(REPO_ROOT, 'codemode.config.json'));
    const rg = await createGateway({ config: { ...config, mcp: { servers: {} } }, executors: { quickjs: raw } });
    try {
      const turn = rg.prepareTurn({ agentId: 'research' });
      const guessedId = catalogId(hostIdentity(rg.catalog({ agentId: 'research' }).tools.find((t) => t.name === 'exec')!));
      const send = (req: object) => `__cm_raw("send", ${JSON.stringify(JSON.stringify(req))});`;
      const code = [
        send({ id: 'g1', op: 'call', tool: guessedId, input: { command: 'ls' } }),
        send({ id: 'g2', op: 'call', mcp: ['demo', guessedId], input: {} }),
        send({ id: 'g3', op: 'describe', tool: guessedId }),
        'await new Promise((done) => setTimeout(done, 50));',
        'return "sent"',
      ].join('\n');
      const done = expectCompleted(await rg.exec(turn.agentRunId, { code }));
      const nested = rg.trajectory(done.telemetry.runId!)!.calls.flatMap((c) => c.nested).filter((n) => n.requestId.startsWith('g'));
      expect(nested.map((n) => [n.requestId, n.status, n.errorCode])).toEqual([
        ['g1', 'error', 'not_found'],
        ['g2', 'error', 'not_found'],
        ['g3', 'error', 'not_found'],
      ]);
      // the shell exec tool needs approval: had the id reached it, the operator would have been asked
      expect(nested.every((n) => n.approval === undefined)).toBe(true);
      expect(rg.approvals()).toEqual([]);
    } finally {
      await rg.close();
      await raw.close();
    }
  });
});
