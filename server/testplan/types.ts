// The test plan's report: one verdict per step of the spec's 16-step E2E plan (maintainer notes), as the CLI and the Test plan tab show it.

export type StepVerdict = 'pass' | 'fail' | 'not_applicable';

export interface StepReport {
  /** 1..16 */
  step: number;
  /** The spec's words for the step. */
  title: string;
  verdict: StepVerdict;
  /** What was checked and seen; for not_applicable: "not applicable: add X". */
  detail: string;
  /** The cell the step ran, when it ran one. */
  cell?: string;
  /** What the cell returned (or the failure), as JSON-safe data. */
  result?: unknown;
  /** The run whose trajectory shows the step (the page links /?run=<id>). */
  runId?: string;
  durationMs: number;
}

export interface TestPlanReport {
  agentId: string;
  configFile?: string;
  startedAt: string;
  steps: StepReport[];
  summary: { pass: number; fail: number; notApplicable: number };
}

/** The spec's 16 steps, in its words (../shared/spec/03-maintainer-notes.md, "E2E test plan"). */
export const PLAN_STEPS: readonly string[] = [
  'Start a Gateway with tools.codeMode.enabled: false.',
  'Send an agent turn with a small direct tool set.',
  'Assert the model-visible tools are unchanged.',
  'Restart with tools.codeMode.enabled: true.',
  'Send an agent turn with OpenClaw, plugin, MCP, and client test tools.',
  'Assert the model-visible tool list is exec, wait, plus only configured direct-only tools.',
  'In exec, call safe bare globals and assert normalized, reserved, and colliding names match the quick index.',
  'Search catalog, inspect handle metadata/describe(), and call OpenClaw/plugin/client handles without observing exact ids.',
  'In exec, call API.list("mcp") and API.read("mcp/<server>.d.ts") and assert the declaration files describe visible MCP tools.',
  'In exec, call MCP tools through MCP.<server>.<tool>({ ...input }) and assert direct MCP entries are absent from catalog.search() and catalog.all().',
  'Assert denied tools are absent and cannot be called by guessed id.',
  'Start a nested tool call that resolves after exec returns waiting.',
  'Call wait and assert the restored VM receives the tool result.',
  'Assert the final answer contains output produced after restore.',
  'Assert timeout, abort, and snapshot expiry clean up runtime state.',
  'Export trajectory and assert nested calls are visible under the parent code-mode call.',
];
