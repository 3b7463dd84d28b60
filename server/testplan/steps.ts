// Steps 4-16 of the plan on the loaded Gateway with code mode on (run.ts drives them and steps 1-3).
import type { Gateway } from '../gateway.ts';
import type { TurnInfo, TurnRequest } from '../gateway-types.ts';
import type { CodeModeResult } from '../runs/types.ts';
import type { StepReport } from './types.ts';
import { catalogId, hostIdentity } from '../catalog/names.ts';

export type StepOutcome = Omit<StepReport, 'step' | 'title' | 'durationMs'>;

export interface PlanContext {
  gateway: Gateway;
  turn: TurnInfo;
  request: TurnRequest;
  agentId: string;
  attempt: (step: number, fn: () => Promise<StepOutcome> | StepOutcome) => Promise<void>;
  /** A sibling Gateway whose agent has a 1.5 s budget and 1 s snapshot TTL (step 15); the caller closes it. */
  short: (() => Promise<Gateway>) | undefined;
}

export function notApplicable(what: string): StepOutcome {
  return { verdict: 'not_applicable', detail: `not applicable: ${what}` };
}

/** A result as a report shows it: JSON-safe, without telemetry. */
export function shown(result: CodeModeResult): unknown {
  const { telemetry: _t, ...rest } = result as CodeModeResult & { telemetry?: unknown };
  return JSON.parse(JSON.stringify(rest)) as unknown;
}

function completedValue(result: CodeModeResult, what: string): unknown {
  if (result.status !== 'completed') throw new Error(`${what}: the cell ended ${result.status}${result.status === 'failed' ? ` (${result.code}: ${result.error})` : ''}`);
  return result.value;
}

/** Words of an MCP tool that suggest it changes or breaks something: the plan never calls those. */
const UNSAFE_TOOL = /crash|kill|delete|remove|drop|destroy|write|update|create|slow|sleep|exit|shutdown|reset/i;

/** Guest code building a minimal input for `schema`: required strings "test", numbers 1, booleans false, enums their first value. */
const SAMPLE_INPUT_JS =
  'const input = {};\nfor (const k of schema.required ?? []) { const p = (schema.properties ?? {})[k] ?? {}; input[k] = Array.isArray(p.enum) ? p.enum[0] : p.type === "number" || p.type === "integer" ? 1 : p.type === "boolean" ? false : p.type === "array" ? [] : p.type === "object" ? {} : "test"; }';

export async function codeModeSteps(ctx: PlanContext): Promise<void> {
  const { gateway, turn, request, attempt } = ctx;
  const id = turn.agentRunId;
  const view = gateway.catalog(request);
  const effective = view.tools.filter((t) => !t.deniedBy);
  const exec = (code: string) => gateway.exec(id, { code });

  await attempt(4, () => ({ verdict: 'pass', detail: `code mode is on for agent "${ctx.agentId}": ${turn.surface.reason}` }));

  await attempt(5, () => {
    const count = (pred: (t: (typeof effective)[number]) => boolean) => effective.filter(pred).length;
    const counts = {
      core: count((t) => t.source === 'core'),
      plugin: count((t) => t.source === 'bundled_plugin' || t.source === 'external_plugin' || t.source === 'openapi'),
      mcp: count((t) => t.source === 'mcp'),
      client: count((t) => t.source === 'client'),
    };
    const missing = [counts.plugin === 0 ? 'a plugin (plugins.bundled) or an OpenAPI source' : '', counts.mcp === 0 ? 'an MCP server (mcp.servers or the Sources panel)' : ''].filter(Boolean);
    if (missing.length > 0) return { ...notApplicable(`add ${missing.join(' and ')}`), result: counts };
    return { verdict: 'pass', detail: `the turn's catalog holds core ${counts.core}, plugin ${counts.plugin}, MCP ${counts.mcp} and client ${counts.client} tools`, result: counts };
  });

  await attempt(6, () => {
    const visible = turn.surface.tools.map((t) => t.name);
    const directOnly = effective.filter((t) => t.directOnly).map((t) => t.name);
    const allowed = new Set(['exec', 'wait', ...directOnly]);
    const extra = visible.filter((n) => !allowed.has(n));
    const ok = extra.length === 0 && visible.includes('exec') && visible.includes('wait');
    return ok
      ? { verdict: 'pass', detail: `the model sees ${visible.join(', ')}`, result: visible }
      : { verdict: 'fail', detail: `the model sees more than exec, wait and direct-only tools: ${extra.join(', ') || '(exec or wait missing)'}`, result: visible };
  });

  await attempt(7, async () => {
    const globals = effective.filter((t) => !t.mcpPath && !t.directOnly && !t.control);
    if (globals.length === 0) return notApplicable('add a core, plugin or client tool');
    const pairs = globals.map((t) => [t.callableName, t.name]);
    const cell = `const tools = ${JSON.stringify(pairs)};\nreturn tools.filter(([callable, exact]) => typeof globalThis[callable] !== "function" || globalThis[callable].name !== exact).map(([c]) => c);`;
    const result = await exec(cell);
    const wrong = completedValue(result, 'step 7') as string[];
    const renamed = globals.filter((t) => t.callableName !== t.name);
    const quick = turn.surface.execDescription ?? '';
    const notIndexed = renamed.filter((t) => !quick.includes(t.callableName)).map((t) => t.callableName);
    const ok = wrong.length === 0;
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok
        ? `${globals.length} bare globals callable under their projected names; ${renamed.length} normalized, reserved or colliding (${renamed.map((t) => `${t.name} -> ${t.callableName}`).join(', ') || 'none'})${notIndexed.length ? `; beyond the quick index: ${notIndexed.join(', ')}` : ''}`
        : `globals missing or naming another tool: ${wrong.join(', ')}`,
      cell,
      result: shown(result),
      runId: result.telemetry.runId,
    };
  });

  // steps 8, 12, 13, 14 and 16 share one run: a client handle found by search, answered after exec returned waiting
  let parked: { result: CodeModeResult; runId: string; cell: string } | undefined;
  let final: CodeModeResult | undefined;
  const handleCell =
    'const [h] = (await catalog.search("test plan echo client tool")).filter((x) => x.source === "client");\nconst d = await h.describe();\nconsole.log("before wait");\nconst answer = h({ text: "ping" });\nawait yield_control("test plan: the client answers while the cell is parked");\nconst r = await answer;\nconsole.log("after restore: " + r.echo);\nreturn { callableName: h.callableName, described: d.name, source: d.source, echoed: r.echo }';
  await attempt(8, async () => {
    const first = await exec(handleCell);
    if (first.status !== 'waiting') throw new Error(`the cell ended ${first.status} instead of parking: ${JSON.stringify(shown(first))}`);
    parked = { result: first, runId: first.runId, cell: handleCell };
    const call = gateway.run(first.runId)?.clientCalls[0];
    if (!call) throw new Error('the client handle call never reached the client');
    gateway.answerClientCall({ runId: first.runId, callId: call.callId, result: { echo: 'ping' } });
    let r: CodeModeResult = first;
    while (r.status === 'waiting') r = await gateway.wait(id, { runId: first.runId });
    final = r;
    const value = completedValue(r, 'step 8') as { callableName: string; described: string; source: string; echoed: string };
    const ok = value.source === 'client' && value.described === 'test_plan_echo' && value.echoed === 'ping' && !/\bt_[0-9a-f]{16}\b/.test(JSON.stringify(r));
    return { verdict: ok ? 'pass' : 'fail', detail: `found by catalog.search, described (${value.described}, ${value.source}) and called as ${value.callableName}; no catalog id seen`, cell: handleCell, result: shown(r), runId: first.runId };
  });

  const servers = view.mcpServers.filter((s) => s.state === 'connected' && s.toolCount > 0);
  const mcpTools = effective.filter((t) => t.mcpPath);
  await attempt(9, async () => {
    const server = servers[0];
    if (!server) return notApplicable('add an MCP server (mcp.servers or the Sources panel) that connects and lists tools');
    const cell = `return { list: API.list("mcp"), decl: API.read("mcp/${server.callableName}.d.ts") };`;
    const result = await exec(cell);
    const value = completedValue(result, 'step 9') as { list: string[]; decl: string };
    const own = mcpTools.filter((t) => t.owner === server.name);
    const undescribed = own.filter((t) => !value.decl.includes(t.callableName)).map((t) => t.callableName);
    const ok = value.list.includes(`mcp/${server.callableName}.d.ts`) && undescribed.length === 0;
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? `mcp/${server.callableName}.d.ts declares all ${own.length} tools` : `not declared: ${undescribed.join(', ')}`, cell, result: shown(result), runId: result.telemetry.runId };
  });

  await attempt(10, async () => {
    if (mcpTools.length === 0) return notApplicable('add an MCP server (mcp.servers or the Sources panel)');
    const tool = mcpTools.find((t) => !UNSAFE_TOOL.test(t.name));
    if (!tool?.mcpPath) return notApplicable('add an MCP tool the plan may call safely (every listed tool looks destructive or slow)');
    const path = tool.mcpPath;
    const server = path.slice(0, path.lastIndexOf('.'));
    const cell = `const api = await ${server}.$api();\nconst schema = api.tools.find((t) => t.name === ${JSON.stringify(tool.name)}).inputSchema ?? {};\n${SAMPLE_INPUT_JS}\nconst r = await ${path}(input);\nconst all = (await catalog.all()).filter((h) => h.source === "mcp").length;\nconst found = (await catalog.search(${JSON.stringify(tool.name)})).filter((h) => h.source === "mcp").length;\nreturn { called: ${JSON.stringify(path)}, input, r, all, found };`;
    const result = await exec(cell);
    const value = completedValue(result, 'step 10') as { all: number; found: number };
    const ok = value.all === 0 && value.found === 0;
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? `${path} answered; no MCP entry in catalog.all() or catalog.search()` : `MCP entries leaked into the catalog: all ${value.all}, search ${value.found}`, cell, result: shown(result), runId: result.telemetry.runId };
  });

  await attempt(11, async () => {
    const denied = view.tools.filter((t) => t.deniedBy);
    if (denied.length === 0) return notApplicable(`add a denied tool (tools.deny or agents.list[].tools.deny for "${ctx.agentId}")`);
    const names = denied.flatMap((t) => [t.name, t.callableName]);
    // the ids a cell would guess if it knew how the host makes them (a hash of source, owner and name): the catalog
    // ids the denied tools would have had (spec 03 step 11: "cannot be called by guessed id")
    const ids = denied.map((t) => catalogId(hostIdentity(t)));
    const cell =
      `const names = ${JSON.stringify([...new Set(names)])};\nconst ids = ${JSON.stringify(ids)};\nconst guesses = names.concat(ids);\n` +
      'const globals = guesses.filter((n) => typeof globalThis[n] !== "undefined");\n' +
      'const listed = (await catalog.all()).filter((h) => guesses.includes(h.name) || guesses.includes(h.callableName)).map((h) => h.name);\n' +
      'const found = [];\nfor (const n of guesses) for (const h of await catalog.search(n)) if (guesses.includes(h.name) || guesses.includes(h.callableName)) found.push(h.name);\n' +
      'const files = API.list("").filter((p) => guesses.some((g) => p === "tools/" + g + ".d.ts"));\n' +
      'return { globals, listed, found, files };';
    const result = await exec(cell);
    const value = completedValue(result, 'step 11') as { globals: string[]; listed: string[]; found: string[]; files: string[] };
    const ok = value.globals.length === 0 && value.listed.length === 0 && value.found.length === 0 && value.files.length === 0;
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok
        ? `${denied.length} denied tools (${denied.map((t) => `${t.name}: ${t.deniedBy}`).join('; ')}) have no global, handle, search hit or declaration file, by name or by guessed id`
        : `denied tools reachable: ${JSON.stringify(value)}`,
      cell,
      result: shown(result),
      runId: result.telemetry.runId,
    };
  });

  await attempt(12, () => {
    if (!parked) return { verdict: 'fail', detail: 'step 8 did not park' };
    const pending = parked.result.status === 'waiting' ? (parked.result.pendingToolCalls ?? []) : [];
    const ok = pending.some((p) => p.tool === 'test_plan_echo');
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? 'exec returned waiting with the client call still pending' : 'exec returned waiting without the pending call', cell: parked.cell, result: shown(parked.result), runId: parked.runId };
  });
  await attempt(13, () => {
    if (!final || !parked) return { verdict: 'fail', detail: 'step 8 did not finish' };
    const ok = final.status === 'completed' && (final.value as { echoed?: string }).echoed === 'ping';
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? 'wait restored the VM and it received the client result ("ping")' : 'the restored VM did not receive the result', result: shown(final), runId: parked.runId };
  });
  await attempt(14, () => {
    if (!final || !parked) return { verdict: 'fail', detail: 'step 8 did not finish' };
    const lines = final.status === 'completed' ? (final.output ?? []).map((o) => o.text) : [];
    const ok = lines.some((l) => l.includes('after restore: ping'));
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? 'the final answer carries "after restore: ping", printed after the restore' : `output after restore missing: ${JSON.stringify(lines)}`, result: lines, runId: parked.runId };
  });

  await attempt(15, async () => {
    if (!ctx.short) return notApplicable('code mode');
    const gw = await ctx.short();
    try {
      const t = gw.prepareTurn({ agentId: ctx.agentId });
      const timeout = await gw.exec(t.agentRunId, { code: 'while (true) {}' });
      const parkedRun = await gw.exec(t.agentRunId, { code: 'await yield_control("park")' });
      if (parkedRun.status !== 'waiting') throw new Error('the abort probe did not park');
      gw.abortRun(parkedRun.runId);
      const afterAbort = await gw.wait(t.agentRunId, { runId: parkedRun.runId });
      const expiring = await gw.exec(t.agentRunId, { code: 'await yield_control("park");\nreturn "never"' });
      if (expiring.status !== 'waiting') throw new Error('the expiry probe did not park');
      await new Promise<void>((resolve) => {
        const check = () => (gw.run(expiring.runId)?.state === 'expired' ? (off(), resolve()) : undefined);
        const off = gw.subscribe(check);
        check();
      });
      const late = await gw.wait(t.agentRunId, { runId: expiring.runId });
      const slots = gw.diagnostics.suspendedSlots();
      const ok = timeout.status === 'failed' && timeout.code === 'timeout' && afterAbort.status === 'failed' && late.status === 'failed' && slots === 0;
      return {
        verdict: ok ? 'pass' : 'fail',
        detail: `timeout: ${timeout.status === 'failed' ? timeout.code : timeout.status}; wait after abort: ${afterAbort.status}; wait after expiry: ${late.status}; parked slots left: ${slots} (a 1.5 s budget and 1 s TTL on a sibling Gateway)`,
        result: { timeout: shown(timeout), afterAbort: shown(afterAbort), afterExpiry: shown(late) },
      };
    } finally {
      await gw.close();
    }
  });

  await attempt(16, () => {
    if (!parked) return { verdict: 'fail', detail: 'step 8 did not park' };
    const traj = gateway.trajectory(parked.runId);
    if (!traj) return { verdict: 'fail', detail: 'no trajectory for the run' };
    const calls = traj.calls.map((c) => ({ tool: c.tool, nested: c.nested.map((n) => n.tool) }));
    const ok = traj.calls[0]?.tool === 'exec' && traj.calls.some((c) => c.nested.some((n) => n.tool === 'test_plan_echo'));
    return { verdict: ok ? 'pass' : 'fail', detail: ok ? `the trajectory nests ${calls.map((c) => `${c.tool} [${c.nested.join(', ')}]`).join(', ')}` : 'the nested call is not under the code-mode call', result: calls, runId: parked.runId };
  });
}
