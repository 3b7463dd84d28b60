// Tests for the model surface: what a model sees with code mode off, on, and for runs without tools.
import { describe, expect, it } from 'vitest';
import { resolveActivation } from '../config/activation.ts';
import { parseGatewayConfig } from '../config/load.ts';
import { resolveCodeModeOptions } from '../config/schema.ts';
import type { ToolDefinition } from '../tools/types.ts';
import {
  buildModelSurface,
  CONTROL_TOOL_NAMES,
  EXEC_TOOL_NAME,
  execToolDefinition,
  WAIT_TOOL_NAME,
  waitToolDefinition,
  type SurfaceActivation,
} from './surface.ts';

const object = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties, additionalProperties: false });

/** Core, plugin, MCP and client tools as the registry and policy would hand them over. */
const tools: ToolDefinition[] = [
  { name: 'read', description: 'Read a workspace file.', inputSchema: object({ path: { type: 'string' } }), source: 'core' },
  { name: 'web_search', description: 'Search the web.', inputSchema: object({ query: { type: 'string' } }), source: 'core', networkContent: true },
  { name: 'exec', description: 'Run an allow-listed shell command.', inputSchema: object({ command: { type: 'string' } }), source: 'core', approval: 'required' },
  { name: 'image_generate', description: 'Make an image.', inputSchema: object({ prompt: { type: 'string' } }), source: 'core', directOnly: true },
  { name: 'tool_search', description: 'Search tools.', inputSchema: object({ query: { type: 'string' } }), source: 'core', control: true },
  { name: 'tool_describe', description: 'Describe a tool.', inputSchema: object({ name: { type: 'string' } }), source: 'core', control: true },
  { name: 'llm-task', description: 'Offline text task.', inputSchema: object({ prompt: { type: 'string' } }), source: 'bundled_plugin', owner: 'llm-task' },
  { name: 'echo', description: 'Echo over MCP.', inputSchema: object({ text: { type: 'string' } }), source: 'mcp', owner: 'demo' },
  { name: 'pick_color', description: 'Ask the user for a colour.', inputSchema: object(), source: 'client' },
  { name: 'show_chart', description: 'Render a chart in the client.', inputSchema: object(), source: 'client', directOnly: true },
];

const enabled = resolveCodeModeOptions({ enabled: true, timeoutMs: 4321, maxPendingToolCalls: 7 }, 'tools.codeMode');
const on: SurfaceActivation = { active: true, options: enabled, decidedBy: 'tools.codeMode.enabled = true' };
const off: SurfaceActivation = { active: false, options: resolveCodeModeOptions(false, 'tools.codeMode'), decidedBy: 'tools.codeMode.enabled = false' };
const quickIndex = 'read({ path }) -> { text: string }\nweb_search({ query }) -> Hit[]\nMCP.demo.echo({ text }) -> unknown';

/** Every object node of a JSON Schema, depth first. */
function schemaNodes(node: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(node)) return node.flatMap(schemaNodes);
  if (typeof node !== 'object' || node === null) return [];
  const record = node as Record<string, unknown>;
  return [record, ...Object.values(record).flatMap(schemaNodes)];
}

describe('code mode off', () => {
  it('on a disabled config: exposes every effective tool unchanged, with no exec description', () => {
    const surface = buildModelSurface({ activation: off, tools, quickIndex });
    expect(surface.codeMode).toBe(false);
    expect(surface.tools).toEqual(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
    expect(surface.execDescription).toBeUndefined();
    expect(surface.reason).toBe(off.decidedBy);
  });

  it('on a disabled config from a real config file: keeps the tool list, control tools included', () => {
    const config = parseGatewayConfig({ tools: { codeMode: { enabled: false, executor: 'quickjs' } } }, '/tmp');
    const activation = resolveActivation(config, { toolsActive: true });
    const names = buildModelSurface({ activation, tools, quickIndex }).tools.map((tool) => tool.name);
    expect(names).toEqual(tools.map((tool) => tool.name));
  });

  it('on two tools with one exact name: the later one (a client tool) wins, as in direct mode', () => {
    const shadow: ToolDefinition = { name: 'read', description: 'Client read.', inputSchema: object(), source: 'client' };
    const surface = buildModelSurface({ activation: off, tools: [...tools, shadow], quickIndex });
    expect(surface.tools.filter((tool) => tool.name === 'read')).toEqual([{ name: 'read', description: 'Client read.', inputSchema: object() }]);
  });
});

describe('code mode on', () => {
  const surface = buildModelSurface({ activation: on, tools, quickIndex });

  it('exposes exec, wait and only the direct-only tools, in that order', () => {
    const direct = tools.filter((tool) => tool.directOnly).map((tool) => tool.name);
    expect(surface.codeMode).toBe(true);
    expect(surface.tools.map((tool) => tool.name)).toEqual([EXEC_TOOL_NAME, WAIT_TOOL_NAME, ...direct]);
  });

  it('hides the Tool Search control tools and the shell exec tool (its name belongs to code-mode exec)', () => {
    const visible = surface.tools.map((tool) => tool.name);
    expect(visible).not.toContain('tool_search');
    expect(visible).not.toContain('tool_describe');
    expect(surface.tools.filter((tool) => tool.name === EXEC_TOOL_NAME)).toHaveLength(1);
    expect(surface.tools[0]?.description).not.toBe(tools.find((tool) => tool.name === 'exec')?.description);
  });

  it('never lets a direct-only control tool or a direct-only tool named wait through', () => {
    const sneaky: ToolDefinition[] = [
      { name: 'tool_call', description: 'x', inputSchema: object(), source: 'core', directOnly: true },
      { name: 'wait', description: 'x', inputSchema: object(), source: 'client', directOnly: true },
      { name: 'peek', description: 'x', inputSchema: object(), source: 'core', directOnly: true, control: true },
    ];
    const names = buildModelSurface({ activation: on, tools: [...tools, ...sneaky], quickIndex }).tools.map((tool) => tool.name);
    expect(names.filter((name) => name === WAIT_TOOL_NAME)).toHaveLength(1);
    expect(names).not.toContain('tool_call');
    expect(names).not.toContain('peek');
  });

  it('carries the exec description with the quick index and the enclosing options', () => {
    expect(surface.execDescription).toBe(surface.tools[0]?.description);
    expect(surface.execDescription).toContain(quickIndex);
    expect(surface.execDescription).toContain(String(enabled.timeoutMs));
    expect(surface.options).toEqual(enabled);
    expect(surface.reason).toBe(on.decidedBy);
  });

  it('lists every control tool name the spec names', () => {
    expect([...CONTROL_TOOL_NAMES].sort()).toEqual(['exec', 'tool_call', 'tool_describe', 'tool_search', 'tool_search_code', 'wait']);
  });
});

describe('runs without tools', () => {
  it('on disableTools: no tools and no enforcement, even when code mode is active', () => {
    const surface = buildModelSurface({ activation: on, tools, quickIndex, disableTools: true });
    expect(surface.codeMode).toBe(false);
    expect(surface.tools).toEqual([]);
    expect(surface.reason).toContain('disableTools');
  });

  it('on an empty effective tool list (empty allowlist): no exec or wait', () => {
    const surface = buildModelSurface({ activation: on, tools: [], quickIndex: '' });
    expect(surface.codeMode).toBe(false);
    expect(surface.tools).toEqual([]);
  });

  it('on disableTools with code mode off: an empty list', () => {
    expect(buildModelSurface({ activation: off, tools, quickIndex, disableTools: true }).tools).toEqual([]);
  });
});

describe('exec and wait definitions', () => {
  const exec = execToolDefinition(quickIndex, enabled);

  it('exec input schema: the five fields, a flat language enum, no extra properties', () => {
    expect(exec.inputSchema['type']).toBe('object');
    expect(exec.inputSchema['additionalProperties']).toBe(false);
    const properties = exec.inputSchema['properties'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties).sort()).toEqual(['code', 'command', 'language', 'restartSafe', 'typecheck']);
    expect(properties['language']).toMatchObject({ type: 'string', enum: ['javascript', 'typescript'] });
    expect(properties['code']?.['type']).toBe('string');
    expect(properties['restartSafe']?.['type']).toBe('boolean');
  });

  it('no schema node uses oneOf, anyOf or allOf (some providers reject unions)', () => {
    for (const definition of [exec, waitToolDefinition()]) {
      for (const node of schemaNodes(definition.inputSchema)) {
        expect(Object.keys(node)).not.toContain('oneOf');
        expect(Object.keys(node)).not.toContain('anyOf');
        expect(Object.keys(node)).not.toContain('allOf');
      }
    }
  });

  it('exec description teaches the guest API and ends with the quick index', () => {
    const text = exec.description;
    for (const term of ['catalog.search', 'catalog.all', 'describe()', 'API.list', 'API.read', 'MCP.<server>.<tool>', 'results.save', 'store(', 'load(', 'yield_control', 'text(', 'json(', 'console', 'return', 'import', 'require']) {
      expect(text, term).toContain(term);
    }
    expect(text.endsWith(quickIndex)).toBe(true);
  });

  it('exec description states the limits of the options it was given', () => {
    const other = resolveCodeModeOptions({ enabled: true, timeoutMs: 999, maxOutputBytes: 2048, maxPendingToolCalls: 3 }, 'tools.codeMode');
    const text = execToolDefinition('', other).description;
    expect(text).toContain('999 ms');
    expect(text).toContain('2048 bytes');
    expect(text).toContain('3 tool calls in flight');
  });

  it('wait takes one required runId string', () => {
    const wait = waitToolDefinition();
    expect(wait.name).toBe(WAIT_TOOL_NAME);
    expect(wait.inputSchema).toMatchObject({
      type: 'object',
      properties: { runId: { type: 'string' } },
      required: ['runId'],
      additionalProperties: false,
    });
  });
});
