// The spec's 16-step E2E test plan (maintainer notes), run against real Gateways: OpenClaw-style
// core tools, bundled and external plugins, the demo MCP server over stdio, and client tools.
// The Playwright suite (e2e/) walks the UI-observable steps through the playground.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createGateway, type Gateway } from './gateway.ts';
import { loadConfigFile } from './config/load.ts';
import { REPO_ROOT } from './tools/testing.ts';
import type { CodeModeResult } from './runs/types.ts';
import { expectCompleted, expectFailed, expectWaiting, runReaches } from './testing.ts';
import type { ClientToolSpec } from './gateway-types.ts';
import { catalogId, hostIdentity } from './catalog/names.ts';
import { QuickJsExecutor } from './executors/quickjs/executor.ts';

const clientTools: ClientToolSpec[] = [
  { name: 'confirm_with_user', description: 'Ask the user a yes/no question.', inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } },
];

describe('spec E2E plan', () => {
  let gw: Gateway;
  let agentRunId: string;
  /** A turn of the agent "deadline" (1.5 s budget), for the steps about the deadline itself. */
  let deadlineRunId: string;

  it('steps 1-3: with code mode disabled, the model-visible tools are exactly the direct tool set, unchanged', async () => {
    const off = await createGateway({ config: loadConfigFile(join(REPO_ROOT, 'demo/configs/disabled.json')) });
    try {
      await off.mcpReady(); // the demo server's tools are part of the direct set once it has connected
      const turn = off.prepareTurn({ clientTools });
      expect(turn.surface.codeMode).toBe(false);
      // every effective tool, in catalog order, under its exact name: nothing hidden, nothing added (no wait)
      expect(turn.surface.tools.map((t) => t.name)).toEqual([
        ...['read', 'grep', 'web_search', 'web_fetch', 'sleep', 'image_generate', 'exec', 'tool_search', 'tool_describe'],
        ...['llm-task', 'weather.lookup', 'notes_append', 'delete', 'catalog', '2fa'],
        ...['echo', 'add', 'lookup-user', 'slow', 'crash'],
        'confirm_with_user',
      ]);
      // and each one as its source declares it
      const declared = new Map(off.catalog({ clientTools }).tools.map((t) => [t.name, t.description]));
      for (const t of turn.surface.tools) expect(t.description, t.name).toBe(declared.get(t.name));
    } finally {
      await off.close();
    }
  });

  beforeAll(async () => {
    // step 4: a gateway with code mode enabled (shipped config, its default budget, so no cell depends on
    // how fast a loaded machine runs it), plus an agent with a short budget so a slow call parks
    const config = loadConfigFile(join(REPO_ROOT, 'codemode.config.json'));
    config.agents.list.push({ id: 'deadline', tools: { codeMode: { timeoutMs: 1500 } } });
    // step 15's expiry: the shortest snapshot TTL the config allows
    config.agents.list.push({ id: 'ephemeral', tools: { codeMode: { snapshotTtlSeconds: 1 } } });
    gw = await createGateway({ config });
    // MCP connects in the background; the plan needs the demo server listed
    await gw.mcpReady();
    agentRunId = gw.prepareTurn({ clientTools }).agentRunId;
    deadlineRunId = gw.prepareTurn({ agentId: 'deadline' }).agentRunId;
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('steps 5-6: a turn with core, plugin, MCP and client tools sees exec, wait and only direct-only tools', () => {
    const turn = gw.prepareTurn({ clientTools });
    expect(turn.surface.tools.map((t) => t.name)).toEqual(['exec', 'wait', 'image_generate']);
    expect(gw.mcpServers()).toEqual([expect.objectContaining({ name: 'demo', state: 'connected' })]);
    const sources = new Set(gw.catalog({ clientTools }).tools.map((t) => t.source));
    expect([...sources].sort()).toEqual(['bundled_plugin', 'client', 'core', 'external_plugin', 'mcp']);
  });

  it('step 7: bare globals with normalized, reserved and colliding names match the quick index', async () => {
    const turn = gw.prepareTurn({ clientTools });
    const quickIndex = turn.surface.tools[0]!.description;
    const r = expectCompleted(
      await gw.exec(agentRunId, {
        code: 'const names = (await catalog.all()).map((h) => [h.name, h.callableName]);\nconst w = await weather_lookup({ city: "Paris" });\nconst code = await tool_2fa({ secret: "JBSWY3DPEHPK3PXP", atMs: 0 });\nreturn { names, city: w.city, digits: code.code.length }',
      }),
    );
    const v = r.value as { names: Array<[string, string]>; city: string; digits: number };
    const byName = new Map(v.names);
    expect(byName.get('llm-task')).toBe('llm_task');
    expect(byName.get('weather.lookup')).toBe('weather_lookup');
    expect(byName.get('2fa')).toBe('tool_2fa');
    expect(byName.get('delete')).toMatch(/^delete_[0-9a-z]{6}$/);
    expect(byName.get('catalog')).toMatch(/^catalog_[0-9a-z]{6}$/);
    for (const callable of byName.values()) expect(quickIndex).toContain(`${callable}(`);
    expect(v).toMatchObject({ city: 'Paris', digits: 6 });
  });

  it('step 7: the reserved-name tools answer through their projected names, and a real normalized collision keeps both tools callable apart', async () => {
    // a client tool spelled exactly like weather.lookup's normalized name: the exact safe name claims it
    const colliding: ClientToolSpec = { name: 'weather_lookup', description: 'The page asks the user for the weather.', inputSchema: { type: 'object', properties: {} } };
    const turn = gw.prepareTurn({ clientTools: [...clientTools, colliding] });
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

  it('step 8: search, describe and call core, plugin and client handles without exact ids (a core tool through its handle, describe() on a client tool)', async () => {
    const first = expectWaiting(
      await gw.exec(agentRunId, {
        code: 'const [w] = await catalog.search("weather forecast city");\nconst d = await w.describe();\nconst rh = (await catalog.search("read a text file from the workspace")).find((h) => h.source === "core" && h.name === "read");\nconst r = await rh({ path: "README.md" });\nconst c = (await catalog.search("confirm yes no user"))[0];\nconst cd = await c.describe();\nconst asked = c({ question: "go?" });\nawait yield_control("ask the user");\nconst answer = await asked;\nreturn { d, read: r.path, client: c.callableName, cd, answer }',
      }),
    );
    expect(first.pendingToolCalls).toEqual([expect.objectContaining({ tool: 'confirm_with_user', state: 'awaiting_client' })]);
    const view = gw.run(first.runId)!;
    gw.answerClientCall({ runId: first.runId, callId: view.clientCalls[0]!.callId, result: { yes: true } });
    const done = expectCompleted(await gw.wait(agentRunId, { runId: first.runId }));
    expect(done.value).toMatchObject({
      d: { callableName: 'weather_lookup', source: 'bundled_plugin' },
      read: 'README.md',
      client: 'confirm_with_user',
      cd: { callableName: 'confirm_with_user', source: 'client', inputSchema: clientTools[0]!.inputSchema, declaration: expect.stringContaining('declare function confirm_with_user(') },
      answer: { yes: true },
    });
    expect(JSON.stringify(done)).not.toMatch(/\bt_[0-9a-f]{16}\b/);
  });

  it('step 9: API.list("mcp") and API.read("mcp/<server>.d.ts") describe visible MCP tools without a bridge call', async () => {
    const r = expectCompleted(await gw.exec(agentRunId, { code: 'return { list: API.list("mcp"), decl: API.read("mcp/demo.d.ts") }' }));
    const v = r.value as { list: string[]; decl: string };
    expect(v.list).toEqual(expect.arrayContaining(['mcp/index.d.ts', 'mcp/demo.d.ts']));
    expect(v.decl).toMatch(/echo\(/);
    expect(r.telemetry.nestedCalls).toBe(0);
  });

  it('step 10: MCP namespace calls work and MCP entries are absent from catalog.search and catalog.all', async () => {
    const r = expectCompleted(
      await gw.exec(agentRunId, {
        code: 'const e = await MCP.demo.echo({ text: "hi" });\nconst api = await MCP.demo.$api();\nconst all = (await catalog.all()).map((h) => h.callableName);\nconst found = (await catalog.search("echo text back")).map((h) => h.callableName);\nreturn { e, tools: api.tools.map((t) => t.name), all, found }',
      }),
    );
    const v = r.value as { e: { content: Array<{ type: string; text: string }> }; tools: string[]; all: string[]; found: string[] };
    expect(v.e.content[0]).toMatchObject({ type: 'text' });
    expect(v.e.content[0]!.text).toContain('hi');
    expect(v.tools).toEqual(expect.arrayContaining(['echo', 'add', 'lookup-user']));
    expect(v.all.some((n) => n.includes('echo'))).toBe(false);
    expect(v.found.some((n) => n.includes('echo'))).toBe(false);
  });

  it('step 11: denied tools are absent and cannot be called by a guessed name or id', async () => {
    const research = gw.prepareTurn({ agentId: 'research' });
    const view = gw.catalog({ agentId: 'research' });
    const deniedExec = view.tools.find((t) => t.name === 'exec')!;
    expect(deniedExec.deniedBy).toBeTruthy();
    // the catalog id the shell exec tool would have had: what a cell that knows how the host makes ids would guess
    const guessedId = catalogId(hostIdentity(deniedExec));
    const r = expectCompleted(
      await gw.exec(research.agentRunId, {
        code:
          `const id = ${JSON.stringify(guessedId)};\n` +
          'const guesses = [typeof exec, typeof globalThis["exec"], typeof weather_lookup, typeof globalThis[id]];\n' +
          'const all = (await catalog.all()).map((h) => h.name);\nconst found = (await catalog.search(id)).map((h) => h.name);\n' +
          'let file; try { file = API.read("tools/" + id + ".d.ts") } catch (e) { file = e.code }\nreturn { guesses, all, found, file }',
      }),
    );
    expect(r.value).toEqual({ guesses: ['undefined', 'undefined', 'undefined', 'undefined'], all: expect.not.arrayContaining(['exec', 'weather.lookup']), found: [], file: 'invalid_input' });
  });

  it('step 11: a cell holding the raw bridge primitive sends calls by the denied tool\'s guessed id, as a tool and as an MCP member: not_found, and the tool never runs', async () => {
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

  it('steps 12-14: a nested call resolving after exec returns waiting; wait restores the VM, delivers it, and output after restore reaches the answer', async () => {
    const first = expectWaiting(
      await gw.exec(deadlineRunId, { code: 'console.log("before");\nconst s = await MCP.demo.slow({ ms: 2500 });\nconsole.log("after restore");\nreturn { slow: s.content[0].text }' }),
    );
    expect(first.pendingToolCalls?.[0]?.tool).toBe('MCP.demo.slow');
    let r: CodeModeResult = first;
    while (r.status === 'waiting') r = await gw.wait(deadlineRunId, { runId: first.runId });
    const done = expectCompleted(r);
    expect(done.output?.map((o) => o.text)).toContain('after restore');
    expect((done.value as { slow: string }).slow).toBeTruthy();
  });

  it('step 15: timeout, abort and snapshot expiry clean up runtime state', async () => {
    expect(expectFailed(await gw.exec(deadlineRunId, { code: 'while (true) {}' })).code).toBe('timeout');
    const w = expectWaiting(await gw.exec(agentRunId, { code: 'await yield_control("park")' }));
    gw.abortRun(w.runId);
    expect(gw.run(w.runId)?.state).toBe('aborted');
    expect(expectFailed(await gw.wait(agentRunId, { runId: w.runId })).code).toBe('invalid_input');
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
  });

  it('step 15: snapshot expiry itself: a parked run past its TTL expires, frees its slot, and a wait on it fails with the spec sentence', async () => {
    const ephemeral = gw.prepareTurn({ agentId: 'ephemeral' }).agentRunId;
    const parked = expectWaiting(await gw.exec(ephemeral, { code: 'await yield_control("park");\nreturn "never"' }));
    expect(gw.run(parked.runId)?.state).toBe('waiting');
    await runReaches(gw, parked.runId, 'expired');
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
    const late = expectFailed(await gw.wait(ephemeral, { runId: parked.runId }), 'invalid_input');
    expect(late.error).toContain('code mode run is unavailable or expired.');
  });

  it('step 16: the exported trajectory shows nested calls under the parent code-mode call', async () => {
    const first = expectWaiting(await gw.exec(agentRunId, { code: 'const a = await weather_lookup({ city: "Kyiv" });\nconst slept = sleep({ ms: 20 });\nawait yield_control("park");\nawait slept;\nreturn a.city' }));
    expectCompleted(await gw.wait(agentRunId, { runId: first.runId }));
    const traj = gw.trajectory(first.runId)!;
    expect(traj.calls.map((c) => c.tool)).toEqual(['exec', 'wait']);
    expect(traj.calls[0]!.nested.map((n) => [n.tool, n.status])).toEqual([
      ['weather_lookup', 'ok'],
      ['sleep', 'ok'],
      ['yield_control', 'ok'],
    ]);
    expect(JSON.parse(JSON.stringify(traj))).toEqual(traj);
  });
});
