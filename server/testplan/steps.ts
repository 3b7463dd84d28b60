// Steps 4-16 of the plan on the loaded Gateway with code mode on (run.ts drives them and steps 1-3).
import type { Gateway } from '../gateway.ts';
import type { TurnInfo, TurnRequest } from '../gateway-types.ts';
import type { CodeModeResult } from '../runs/types.ts';
import type { StepReport } from './types.ts';
import { catalogId, hostIdentity } from '../catalog/names.ts';
import { MSG_UNAVAILABLE } from '../runs/messages.ts';

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

/** How a run ended, in a step's words: its status, and for a failure its code. */
function describeEnd(result: CodeModeResult): string {
  return result.status === 'failed' ? `failed: ${result.code}` : result.status;
}

function completedValue(result: CodeModeResult, what: string): unknown {
  if (result.status !== 'completed') throw new Error(`${what}: the cell ended ${result.status}${result.status === 'failed' ? ` (${result.code}: ${result.error})` : ''}`);
  return result.value;
}

/** The kinds of source step 8 describes a handle of (one each, when the catalog has one), beside the plan's client tool. */
const HANDLE_SOURCES = ['core', 'bundled_plugin', 'external_plugin', 'openapi'] as const;

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
    // the kinds of source and the MCP servers behind them, as the result shows them (a test asserts a config's exact set)
    const result = { counts, sources: [...new Set(effective.map((t) => t.source))].sort(), mcpServers: view.mcpServers.filter((s) => s.state === 'connected').map((s) => s.name) };
    if (missing.length > 0) return { ...notApplicable(`add ${missing.join(' and ')}`), result };
    return { verdict: 'pass', detail: `the turn's catalog holds core ${counts.core}, plugin ${counts.plugin}, MCP ${counts.mcp} and client ${counts.client} tools`, result };
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
    // the quick index lists a tool as a call signature; a large catalog's index is bounded, so a tool beyond it is reported, not failed
    const indexed = (t: (typeof globals)[number]) => quick.includes(`${t.callableName}(`);
    const notIndexed = renamed.filter((t) => !indexed(t)).map((t) => t.callableName);
    const projected = renamed.map((t) => ({ name: t.name, source: t.source, callableName: t.callableName, inQuickIndex: indexed(t) }));
    const ok = wrong.length === 0;
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok
        ? `${globals.length} bare globals callable under their projected names; ${renamed.length} normalized, reserved or colliding (${renamed.map((t) => `${t.name} -> ${t.callableName}`).join(', ') || 'none'})${notIndexed.length ? `; beyond the quick index: ${notIndexed.join(', ')}` : ''}`
        : `globals missing or naming another tool: ${wrong.join(', ')}`,
      cell,
      result: { projected, run: shown(result) },
      runId: result.telemetry.runId,
    };
  });

  // steps 8, 12, 13, 14 and 16 share one run: a client handle found by search, answered after exec returned waiting;
  // before it, one handle of every other kind of source is described and the core sleep tool is called through its handle
  let parked: { result: CodeModeResult; runId: string; cell: string } | undefined;
  let final: CodeModeResult | undefined;
  const handleKinds = HANDLE_SOURCES.flatMap((source) => {
    const t = effective.find((x) => x.source === source && !x.mcpPath && !x.directOnly && !x.control);
    return t ? [[t.source, t.name]] : [];
  });
  const handleCell =
    `const kinds = ${JSON.stringify(handleKinds)};\nconst all = await catalog.all();\nconst declares = (h, d) => d.declaration.includes("declare function " + h.callableName + "(");\n` +
    'const handles = [];\nfor (const [source, name] of kinds) {\n  const h = all.find((x) => x.source === source && x.name === name);\n  const d = await h.describe();\n' +
    '  handles.push({ name: d.name, source: d.source, callableName: h.callableName, same: d.callableName === h.callableName, declares: declares(h, d), keys: [...new Set(Object.keys(h).concat(Object.keys(d)))].sort() });\n}\n' +
    'const s = all.find((x) => x.source === "core" && x.name === "sleep");\nconst core = s ? { called: s.callableName, output: await s({ ms: 0 }) } : null;\n' +
    'const [h] = (await catalog.search("test plan echo client tool")).filter((x) => x.source === "client");\nconst d = await h.describe();\nconsole.log("before wait");\nconst answer = h({ text: "ping" });\nawait yield_control("test plan: the client answers while the cell is parked");\nconst r = await answer;\nconsole.log("after restore: " + r.echo);\n' +
    'return { callableName: h.callableName, described: d.name, source: d.source, declared: declares(h, d), inputSchema: d.inputSchema, echoed: r.echo, handles, core }';
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
    const value = completedValue(r, 'step 8') as {
      callableName: string;
      described: string;
      source: string;
      declared: boolean;
      echoed: string;
      handles: Array<{ name: string; source: string; callableName: string; same: boolean; declares: boolean; keys: string[] }>;
      core: { called: string } | null;
    };
    const badHandles = value.handles.filter((x) => !x.same || !x.declares || x.keys.includes('id')).map((x) => x.name);
    const idSeen = /\bt_[0-9a-f]{16}\b/.test(JSON.stringify(r));
    const ok = value.source === 'client' && value.described === 'test_plan_echo' && value.declared && value.echoed === 'ping' && badHandles.length === 0 && !idSeen;
    const also = `${value.handles.map((x) => `${x.name} (${x.source})`).join(', ') || 'no other handle'} described${value.core ? `; the core handle ${value.core.called} called` : ''}`;
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok
        ? `found by catalog.search, described (${value.described}, ${value.source}) and called as ${value.callableName}; ${also}; no catalog id seen`
        : `handles wrong: ${[...badHandles, idSeen ? 'a catalog id seen' : '', value.declared ? '' : `${value.callableName} undeclared`].filter(Boolean).join(', ') || JSON.stringify(value)}`,
      cell: handleCell,
      result: shown(r),
      runId: first.runId,
    };
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
    // the declarations are the guest's own files: reading them makes no tool call
    const calls = result.telemetry.nestedCalls;
    const ok = value.list.includes(`mcp/${server.callableName}.d.ts`) && undescribed.length === 0 && calls === 0;
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok
        ? `mcp/${server.callableName}.d.ts declares all ${own.length} tools, read without a tool call`
        : [undescribed.length ? `not declared: ${undescribed.join(', ')}` : '', calls ? `reading the declarations made ${calls} tool calls` : ''].filter(Boolean).join('; ') || `mcp/${server.callableName}.d.ts not listed`,
      cell,
      result: shown(result),
      runId: result.telemetry.runId,
    };
  });

  await attempt(10, async () => {
    if (mcpTools.length === 0) return notApplicable('add an MCP server (mcp.servers or the Sources panel)');
    const tool = mcpTools.find((t) => !UNSAFE_TOOL.test(t.name));
    if (!tool?.mcpPath) return notApplicable('add an MCP tool the plan may call safely (every listed tool looks destructive or slow)');
    const path = tool.mcpPath;
    const server = path.slice(0, path.lastIndexOf('.'));
    const cell = `const api = await ${server}.$api();\nconst schema = api.tools.find((t) => t.name === ${JSON.stringify(tool.name)}).inputSchema ?? {};\n${SAMPLE_INPUT_JS}\nconst r = await ${path}(input);\nconst all = (await catalog.all()).filter((h) => h.source === "mcp").length;\nconst found = (await catalog.search(${JSON.stringify(tool.name)})).filter((h) => h.source === "mcp").length;\nreturn { called: ${JSON.stringify(path)}, input, r, tools: api.tools.map((t) => t.name), all, found };`;
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
      'const read = guesses.filter((g) => { try { API.read("tools/" + g + ".d.ts"); return true; } catch { return false; } });\n' +
      'return { globals, listed, found, files, read };';
    const result = await exec(cell);
    const value = completedValue(result, 'step 11') as { globals: string[]; listed: string[]; found: string[]; files: string[]; read: string[] };
    const ok = Object.values(value).every((reached) => reached.length === 0);
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
      const abortedState = gw.run(parkedRun.runId)?.state;
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
      // a wait on a run that is gone fails as the spec words it, whether it was aborted or expired
      const GONE = `failed: invalid_input (${MSG_UNAVAILABLE})`;
      const gone = (r: CodeModeResult) => (r.status === 'failed' && r.code === 'invalid_input' && r.error.includes(MSG_UNAVAILABLE) ? GONE : describeEnd(r));
      const ok = timeout.status === 'failed' && timeout.code === 'timeout' && abortedState === 'aborted' && [afterAbort, late].every((r) => gone(r) === GONE) && slots === 0;
      return {
        verdict: ok ? 'pass' : 'fail',
        detail: `timeout: ${describeEnd(timeout)}; abort: ${abortedState ?? 'run gone'}, then wait ${gone(afterAbort)}; expiry, then wait ${gone(late)}; parked slots left: ${slots} (a 1.5 s budget and 1 s TTL on a sibling Gateway)`,
        result: { timeout: shown(timeout), abortedState, afterAbort: shown(afterAbort), afterExpiry: shown(late), suspendedSlots: slots },
      };
    } finally {
      await gw.close();
    }
  });

  await attempt(16, () => {
    if (!parked) return { verdict: 'fail', detail: 'step 8 did not park' };
    const traj = gateway.trajectory(parked.runId);
    if (!traj) return { verdict: 'fail', detail: 'no trajectory for the run' };
    const calls = traj.calls.map((c) => ({ tool: c.tool, nested: c.nested.map((n) => ({ tool: n.tool, status: n.status })) }));
    const ok = traj.calls[0]?.tool === 'exec' && traj.calls.some((c) => c.nested.some((n) => n.tool === 'test_plan_echo' && n.status === 'ok'));
    return {
      verdict: ok ? 'pass' : 'fail',
      detail: ok ? `the trajectory nests ${calls.map((c) => `${c.tool} [${c.nested.map((n) => n.tool).join(', ')}]`).join(', ')}` : 'the nested call is not under the code-mode call',
      result: calls,
      runId: parked.runId,
    };
  });
}
