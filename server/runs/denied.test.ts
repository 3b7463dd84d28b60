// A cell calling a tool its agent's policy denied fails naming the rule (as the editor's marker does), on every
// executor, while the tool still has no global or handle (spec 03: "denied tools have no global or catalog handle").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorKind } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { createExecutor, EXECUTOR_KINDS } from '../guest/testing.ts';
import { expectCompleted, expectFailed, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { explainDeniedTool } from './denied.ts';

const mcpTool = (name: string): ToolDefinition => ({
  name,
  description: `test: MCP tool ${name}`,
  source: 'mcp',
  owner: 'demo',
  inputSchema: { type: 'object' },
  execute: async () => ({ content: [{ type: 'text', text: name }] }),
});

const RULE = 'agents.list[careful].tools.deny: "exec"';
const MCP_RULE = 'agents.list[careful].tools.deny: "MCP.demo.slow"';

describe('a call to a denied tool', () => {
  const executors: Partial<Record<ExecutorKind, Executor>> = {};
  const gateways: Partial<Record<ExecutorKind, Gateway>> = {};

  beforeAll(async () => {
    for (const kind of EXECUTOR_KINDS) {
      executors[kind] = await createExecutor(kind);
      gateways[kind] = await testGateway({
        executor: executors[kind],
        tools: [mcpTool('slow'), mcpTool('echo')],
        config: { agents: { defaults: { model: 'demo/coder', models: {} }, list: [{ id: 'careful', tools: { deny: ['exec', 'MCP.demo.slow'] } }] } },
      });
    }
  });
  afterAll(async () => {
    for (const g of Object.values(gateways)) await g?.close();
    await Promise.all(Object.values(executors).map((e) => e?.close()));
  });

  for (const kind of EXECUTOR_KINDS) {
    it(`on ${kind}: an uncaught call fails naming the policy rule that denied the tool, a bare global and an MCP member alike`, async () => {
      const gw = gateways[kind]!;
      const t = gw.prepareTurn({ agentId: 'careful' });
      const bare = expectFailed(await gw.exec(t.agentRunId, { code: 'const n = 1;\nreturn await exec({ command: "ls" });' }));
      expect(bare.code).toBeUndefined();
      expect(bare.error).toMatch(/^ReferenceError: '?exec'? is not defined \(line 2\)\. exec is denied for this agent by policy rule /);
      expect(bare.error).toContain(RULE);
      const member = expectFailed(await gw.exec(t.agentRunId, { code: 'const n = 1;\nreturn await MCP.demo.slow({ ms: 1 });' }));
      expect(member.error).toMatch(/^TypeError: /);
      expect(member.error).toContain(`MCP.demo.slow is denied for this agent by policy rule ${MCP_RULE}`);
      gw.endTurn(t.agentRunId);
    });
  }

  it('on the guest: the denied tool still has no global or handle, and a cell that catches the error sees the engine\'s own', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({ agentId: 'careful' });
    const v = expectCompleted(
      await gw.exec(t.agentRunId, {
        code: 'let caught;\ntry { await exec({}) } catch (e) { caught = String(e) }\nreturn { caught, type: typeof exec, inAll: (await catalog.all()).some((h) => h.name === "exec"), members: Object.keys(MCP.demo) }',
      }),
    );
    expect(v.value).toEqual({ caught: 'ReferenceError: exec is not defined', type: 'undefined', inAll: false, members: ['echo', '$api'] });
    gw.endTurn(t.agentRunId);
  });

  it('on other errors and on names no policy denied: the error is left as it is', () => {
    const denied = new Map([['exec', RULE]]);
    expect(explainDeniedTool('ReferenceError: exek is not defined (line 1)', 'exek()', denied)).toBe('ReferenceError: exek is not defined (line 1)');
    expect(explainDeniedTool('TypeError: x is not a function (line 1)', 'x()', denied)).toBe('TypeError: x is not a function (line 1)');
    expect(explainDeniedTool('ReferenceError: exec is not defined (line 1)', 'exec()', undefined)).toBe('ReferenceError: exec is not defined (line 1)');
    // a longer MCP name on the line is not the denied member
    const mcp = new Map([['MCP.demo.slow', MCP_RULE]]);
    expect(explainDeniedTool('TypeError: not a function (line 1)', 'MCP.demo.slower()', mcp)).toBe('TypeError: not a function (line 1)');
  });
});
