// Runs the spec's 16-step E2E plan against the loaded config: the CLI's `codemode test-plan` and the Test plan tab.
//
// Steps drive the real Gateway (its tools, plugins, MCP servers and OpenAPI sources) through exec and wait
// as a model would. The plan brings one client tool of its own (test_plan_echo, answered here). A step
// that needs something the catalog lacks says "not applicable: add X" instead of failing; a step that
// throws fails with the error.
import type { Gateway } from '../gateway.ts';
import type { ClientToolSpec, TurnRequest } from '../gateway-types.ts';
import { codeModeOffConfig, shortLivedConfig, siblingGateway } from './gateways.ts';
import { PLAN_STEPS, type StepReport, type TestPlanReport } from './types.ts';
import { codeModeSteps, notApplicable, type PlanContext, type StepOutcome } from './steps.ts';

export const PLAN_CLIENT_TOOL: ClientToolSpec = {
  name: 'test_plan_echo',
  description: 'Test plan client tool: echoes its text back (answered by the test-plan runner).',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

/** Names listed at most this many times in a step 3 failure: the rest are counted. */
const MAX_NAMED_TOOLS = 12;

function named(names: string[]): string {
  const shown = names.slice(0, MAX_NAMED_TOOLS).join(', ');
  return names.length > MAX_NAMED_TOOLS ? `${shown} and ${names.length - MAX_NAMED_TOOLS} more` : shown;
}

/**
 * How the model-visible tool names differ from the effective ones (undefined when they are the same list): the
 * tools only one side has, names the effective set holds more than once (two sources offering one name, so the
 * model can see only one of them), and otherwise the first place the order differs.
 */
export function toolListDifference(visible: readonly string[], effective: readonly string[]): string | undefined {
  if (visible.length === effective.length && visible.every((n, i) => n === effective[i])) return undefined;
  const count = (list: readonly string[]) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const seen = count(visible);
  const offered = count(effective);
  const parts: string[] = [];
  const duplicated = [...offered].filter(([n, c]) => c > 1 && (seen.get(n) ?? 0) < c).map(([n, c]) => `${n} (${c} tools, visible ${seen.get(n) ?? 0})`);
  if (duplicated.length > 0) parts.push(`offered by more than one source under one name: ${named(duplicated)}`);
  const missing = [...offered.keys()].filter((n) => !seen.has(n));
  if (missing.length > 0) parts.push(`not visible: ${named(missing)}`);
  const extra = [...seen.keys()].filter((n) => !offered.has(n));
  if (extra.length > 0) parts.push(`visible but not effective: ${named(extra)}`);
  if (parts.length === 0) {
    const at = visible.findIndex((n, i) => n !== effective[i]);
    parts.push(`the same tools in another order (position ${at + 1}: ${visible[at] ?? 'nothing'} where the catalog has ${effective[at] ?? 'nothing'})`);
  }
  return parts.join('; ');
}

/** The client label of the plan's turn: the boards and the runs list name its runs so. */
export const TEST_PLAN_CLIENT = 'test plan';

export interface RunTestPlanOptions {
  agentId?: string;
  /** Each step's report as soon as it is known (the tab streams them). */
  onStep?: (step: StepReport) => void;
}

export async function runTestPlan(gateway: Gateway, opts: RunTestPlanOptions = {}): Promise<TestPlanReport> {
  const agentId = opts.agentId ?? gateway.config.agents.list[0]?.id ?? 'main';
  if (!gateway.config.agents.list.some((a) => a.id === agentId)) {
    throw new Error(`unknown agent "${agentId}"; the config lists ${gateway.config.agents.list.map((a) => a.id).join(', ')}`);
  }
  const steps: StepReport[] = [];
  const record = (step: number, outcome: StepOutcome, startedAt: number) => {
    const report: StepReport = { step, title: PLAN_STEPS[step - 1] ?? '', ...outcome, durationMs: Date.now() - startedAt };
    steps.push(report);
    opts.onStep?.(report);
  };
  const attempt = async (step: number, fn: () => Promise<StepOutcome> | StepOutcome) => {
    const startedAt = Date.now();
    let outcome: StepOutcome;
    try {
      outcome = await fn();
    } catch (err) {
      outcome = { verdict: 'fail', detail: err instanceof Error ? err.message : String(err) };
    }
    record(step, outcome, startedAt);
  };
  await gateway.mcpReady();
  // labelled: the page's runs list names the plan's runs (its trajectory links select them) apart from its own turn's
  const request: TurnRequest = { agentId, clientTools: [PLAN_CLIENT_TOOL], client: TEST_PLAN_CLIENT };

  // steps 1-3: a sibling Gateway with code mode off, over the same tool sources
  let offSurface: { codeMode: boolean; names: string[]; expected: string[]; redescribed: string[]; reason: string } | undefined;
  await attempt(1, async () => {
    const off = await siblingGateway(gateway, codeModeOffConfig(gateway.config));
    try {
      const turn = off.prepareTurn(request);
      const effective = off.catalog(request).tools.filter((t) => !t.deniedBy);
      const expected = effective.map((t) => t.name);
      // unchanged means as each source declares it too: a visible tool whose description none of its name's tools has
      const redescribed = turn.surface.tools.filter((v) => !effective.some((t) => t.name === v.name && t.description === v.description)).map((v) => v.name);
      offSurface = { codeMode: turn.surface.codeMode, names: turn.surface.tools.map((t) => t.name), expected, redescribed, reason: turn.surface.reason };
      off.endTurn(turn.agentRunId);
    } finally {
      await off.close();
    }
    return offSurface.codeMode
      ? { verdict: 'fail', detail: `code mode stayed on with tools.codeMode.enabled: false (${offSurface.reason})` }
      : { verdict: 'pass', detail: `a Gateway over the same sources with code mode off: ${offSurface.reason}` };
  });
  await attempt(2, () =>
    offSurface ? { verdict: 'pass', detail: `turn of agent "${agentId}" with ${offSurface.names.length} direct tools (plus the plan's client tool)`, result: offSurface.names } : { verdict: 'fail', detail: 'step 1 failed' },
  );
  await attempt(3, () => {
    if (!offSurface) return { verdict: 'fail', detail: 'step 1 failed' };
    const listed = toolListDifference(offSurface.names, offSurface.expected);
    const difference = [listed, offSurface.redescribed.length ? `described otherwise than their source declares: ${named([...new Set(offSurface.redescribed)])}` : undefined].filter(Boolean).join('; ');
    return difference === ''
      ? { verdict: 'pass', detail: `the model sees exactly the ${offSurface.expected.length} effective tools, in catalog order, each as its source declares it` }
      : { verdict: 'fail', detail: `the model-visible tools differ from the effective tools: ${difference}`, result: { visible: offSurface.names, effective: offSurface.expected } };
  });

  const turn = gateway.prepareTurn(request);
  const ctx: PlanContext = { gateway, turn, request, agentId, attempt, short: undefined };
  try {
    if (!turn.surface.codeMode) {
      const why = notApplicable(`enable code mode for agent "${agentId}" (tools.codeMode.enabled: true); now: ${turn.surface.reason}`);
      for (let step = 4; step <= 16; step++) record(step, why, Date.now());
    } else {
      ctx.short = async () => siblingGateway(gateway, shortLivedConfig(gateway.config, agentId));
      await codeModeSteps(ctx);
    }
  } finally {
    gateway.endTurn(turn.agentRunId);
  }
  steps.sort((a, b) => a.step - b.step);
  return {
    agentId,
    ...(gateway.config.configFile ? { configFile: gateway.config.configFile } : {}),
    startedAt: new Date().toISOString(),
    steps,
    summary: {
      pass: steps.filter((s) => s.verdict === 'pass').length,
      fail: steps.filter((s) => s.verdict === 'fail').length,
      notApplicable: steps.filter((s) => s.verdict === 'not_applicable').length,
    },
  };
}
