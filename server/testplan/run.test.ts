// codemode test-plan through the CLI entry: 16 verdicts on a catalog without MCP, denied or plugin tools
// ("not applicable: add X"), the JSON report and JUnit XML.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { DEMO_WORKSPACE, REPO_ROOT } from '../tools/testing.ts';
import { runTestPlan, toolListDifference } from './run.ts';
import { createGateway } from '../gateway.ts';
import { startInventoryServer } from '../../demo/openapi/server.mjs';
import { readFileSync } from 'node:fs';
import type { TestPlanReport } from './types.ts';

function configFile(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-plan-'));
  const file = join(dir, 'codemode.config.json');
  writeFileSync(file, JSON.stringify({ workspace: DEMO_WORKSPACE, sessions: { path: ':memory:' }, ...config }));
  return file;
}

async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main(args, (s) => lines.push(s));
  return { code, text: lines.join('\n') };
}

describe('codemode test-plan', () => {
  const bare = configFile({ tools: { codeMode: { enabled: true, executor: 'quickjs' }, deny: ['web_fetch'] } });

  it('--json: 16 verdicts; the steps a bare catalog cannot exercise say what to add', async () => {
    const { code, text } = await cli(['test-plan', '--config', bare, '--json']);
    const report = JSON.parse(text) as TestPlanReport;
    expect(report.steps.map((s) => s.step)).toEqual([...Array(16).keys()].map((i) => i + 1));
    expect(report.steps.filter((s) => s.verdict === 'fail').map((s) => `${s.step}: ${s.detail}`)).toEqual([]);
    const na = Object.fromEntries(report.steps.filter((s) => s.verdict === 'not_applicable').map((s) => [s.step, s.detail]));
    expect(na).toEqual({
      5: 'not applicable: add a plugin (plugins.bundled) or an OpenAPI source and an MCP server (mcp.servers or the Sources panel)',
      9: 'not applicable: add an MCP server (mcp.servers or the Sources panel) that connects and lists tools',
      10: 'not applicable: add an MCP server (mcp.servers or the Sources panel)',
    });
    expect(report.steps[10]).toMatchObject({ verdict: 'pass', detail: expect.stringContaining('web_fetch: tools.deny') });
    // the step 8 run parks, takes the client answer and shows up in steps 12-14 and 16 with its cell and trajectory
    expect(report.steps[7]?.cell).toContain('catalog.search("test plan echo client tool")');
    expect(report.steps[15]?.runId).toBe(report.steps[7]?.runId);
    expect(report.summary).toEqual({ pass: 13, fail: 0, notApplicable: 3 });
    expect(code).toBe(0);
  }, 120_000);

  it('--junit: one testcase per step, not-applicable steps skipped with the reason; a config with code mode off leaves steps 4-16 not applicable', async () => {
    const off = configFile({ tools: { codeMode: { enabled: false } } });
    const { code, text } = await cli(['test-plan', '--config', off, '--junit']);
    expect(text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="codemode test plan" tests="16" failures="0" skipped="13"/);
    expect(text.match(/<testcase /g)).toHaveLength(16);
    expect(text.match(/<skipped message="not applicable: enable code mode for agent &quot;main&quot;/g)).toHaveLength(13);
    expect(text).toContain('name="step 3: Assert the model-visible tools are unchanged."');
    expect(code).toBe(0);
  }, 120_000);

  it('step 3 on the same MCP server added twice: fails naming the tools two sources offer under one name', async () => {
    const server = { command: process.execPath, args: [join(REPO_ROOT, 'demo/mcp/server.mjs')] };
    const twice = configFile({ tools: { codeMode: { enabled: false } }, mcp: { servers: { demo: server, demo2: server } } });
    const { code, text } = await cli(['test-plan', '--config', twice, '--json']);
    const step3 = (JSON.parse(text) as TestPlanReport).steps[2];
    expect(step3).toMatchObject({ verdict: 'fail', detail: expect.stringMatching(/^the model-visible tools differ from the effective tools: offered by more than one source under one name: echo \(2 tools, visible 1\), /) });
    expect(code).toBe(1);
  }, 120_000);

  it("the README's Sources demo on the shipped config (upload the inventory document, remove the demo MCP server and add it again by hand): no step fails", async () => {
    const inventory = await startInventoryServer();
    const gw = await createGateway({ configPath: join(REPO_ROOT, 'codemode.config.json') });
    try {
      await gw.mcpReady();
      const documentText = readFileSync(join(REPO_ROOT, 'demo/openapi/inventory.yaml'), 'utf8');
      // docs/sources.md's port 4011 may be taken here: the same document, called on the test's own port
      gw.addSource({ kind: 'openapi', name: 'inventory', documentText, baseUrl: inventory.url }, { exposed: false });
      expect(await gw.removeSource('demo')).toBe(true);
      const stdio = { command: 'node', args: ['demo/mcp/server.mjs'] };
      gw.addSource({ kind: 'mcp-stdio', name: 'demo', ...stdio, confirmCommandLine: gw.sourceCommandLine(stdio) }, { exposed: false });
      expect(await gw.sourceSettled('inventory')).toMatchObject({ state: 'connected', toolCount: 5 });
      expect(await gw.sourceSettled('demo')).toMatchObject({ state: 'connected' });
      const report = await runTestPlan(gw);
      expect(report.steps.filter((s) => s.verdict === 'fail').map((s) => `${s.step}: ${s.detail}`)).toEqual([]);
      expect(report.steps[2]?.verdict).toBe('pass');
    } finally {
      await gw.close();
      await inventory.close();
    }
  }, 180_000);

  it('an unknown agent is a usage error naming the agents', async () => {
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (errors.push(String(s)), true)) as typeof process.stderr.write;
    try {
      expect((await cli(['test-plan', '--config', bare, '--agent', 'ghost'])).code).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(errors.join('')).toContain('unknown agent "ghost"; the config lists main');
  });
});

describe('toolListDifference', () => {
  it('names missing, extra and duplicated tools, else the first place the order differs; undefined when equal', () => {
    expect(toolListDifference(['a', 'b'], ['a', 'b'])).toBeUndefined();
    expect(toolListDifference(['a', 'c'], ['a', 'b'])).toBe('not visible: b; visible but not effective: c');
    expect(toolListDifference(['a', 'b'], ['a', 'b', 'b'])).toBe('offered by more than one source under one name: b (2 tools, visible 1)');
    expect(toolListDifference(['b', 'a'], ['a', 'b'])).toBe('the same tools in another order (position 1: b where the catalog has a)');
    const many = [...Array(20).keys()].map((i) => `t${i}`);
    expect(toolListDifference([], many)).toBe(`not visible: ${many.slice(0, 12).join(', ')} and 8 more`);
  });
});
