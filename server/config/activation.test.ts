// Tests for code-mode activation: precedence of the four levels, "auto", fallback models, enclosing limits, no-tool runs.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { agentCodeModeOptions, findAgent, resolveActivation, runHasTools } from './activation.ts';
import { loadConfigFile, parseGatewayConfig } from './load.ts';
import type { GatewayConfig } from './types.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'openai/gpt-5';

type Switch = boolean | 'auto' | undefined;

/** A config with one agent "coder" where each precedence level is set (or left unset) independently. */
function configWith(levels: { agentModel?: boolean; agent?: Switch; defaultModel?: boolean; global?: Switch }): GatewayConfig {
  const entry = (codeMode: boolean | undefined) => (codeMode === undefined ? {} : { codeMode });
  return parseGatewayConfig(
    {
      tools: { codeMode: levels.global === undefined ? { timeoutMs: 7000 } : { enabled: levels.global, timeoutMs: 7000 } },
      agents: {
        defaults: { model: MODEL, models: { [MODEL]: entry(levels.defaultModel) } },
        list: [
          {
            id: 'coder',
            models: { [MODEL]: entry(levels.agentModel) },
            ...(levels.agent === undefined ? {} : { tools: { codeMode: { enabled: levels.agent } } }),
          },
        ],
      },
    },
    '/tmp',
  );
}

const activate = (config: GatewayConfig, extra: Partial<Parameters<typeof resolveActivation>[1]> = {}) =>
  resolveActivation(config, { agentId: 'coder', model: MODEL, toolsActive: true, ...extra });

describe('omitted enabled', () => {
  it('on a config whose codeMode object sets other fields but not enabled: stays disabled', () => {
    const result = activate(configWith({}));
    expect(result.active).toBe(false);
    expect(result.decidedBy).toBe('tools.codeMode.enabled = false');
    expect(result.options.timeoutMs).toBe(7000);
  });

  it('on an agent override enabling it: engages', () => {
    expect(activate(configWith({ agent: true })).active).toBe(true);
  });

  it('on a default per-model override enabling it: engages', () => {
    expect(activate(configWith({ defaultModel: true })).active).toBe(true);
  });

  it("on the agent's per-model override enabling it: engages", () => {
    expect(activate(configWith({ agentModel: true })).active).toBe(true);
  });

  it('on an agent codeMode object without enabled: falls through to the global switch', () => {
    const config = parseGatewayConfig(
      { tools: { codeMode: true }, agents: { list: [{ id: 'coder', tools: { codeMode: { timeoutMs: 3000 } } }] } },
      '/tmp',
    );
    const result = activate(config);
    expect(result.active).toBe(true);
    expect(result.decidedBy).toBe('tools.codeMode.enabled = true');
    expect(result.options.timeoutMs).toBe(3000);
  });
});

describe('precedence: the first explicit value wins', () => {
  const values = [true, false, undefined] as const;
  const cases = values.flatMap((agentModel) =>
    values.flatMap((agent) =>
      values.flatMap((defaultModel) => values.map((global) => ({ agentModel, agent, defaultModel, global }))),
    ),
  );

  it.each(cases)('on agentModel=$agentModel agent=$agent defaultModel=$defaultModel global=$global', (levels) => {
    // The expected level is computed from the order alone, independently of the implementation.
    const order: Array<[Switch, string]> = [
      [levels.agentModel, `agents.list[coder].models["${MODEL}"].codeMode`],
      [levels.agent, 'agents.list[coder].tools.codeMode.enabled'],
      [levels.defaultModel, `agents.defaults.models["${MODEL}"].codeMode`],
      [levels.global ?? false, 'tools.codeMode.enabled'],
    ];
    const [value, path] = order.find(([candidate]) => candidate !== undefined) ?? [false, ''];
    const result = activate(configWith(levels));
    expect(result.active).toBe(value);
    expect(result.decidedBy).toBe(`${path} = ${String(value)}`);
  });

  it('on a per-model false under a globally enabled config: the model stays in direct mode', () => {
    const result = activate(configWith({ global: true, defaultModel: false }));
    expect(result.active).toBe(false);
  });

  it('on a per-model switch for another model: has no effect on this one', () => {
    const config = parseGatewayConfig(
      { tools: { codeMode: true }, agents: { defaults: { models: { 'other/model': { codeMode: false } } }, list: [{ id: 'coder' }] } },
      '/tmp',
    );
    expect(activate(config).active).toBe(true);
  });
});

describe('"auto"', () => {
  function autoConfig(where: 'global' | 'agent', prefers: { agent?: boolean; defaults?: boolean }): GatewayConfig {
    return parseGatewayConfig(
      {
        tools: { codeMode: where === 'global' ? 'auto' : false },
        agents: {
          defaults: { models: prefers.defaults === undefined ? {} : { [MODEL]: { prefersCodeMode: prefers.defaults } } },
          list: [
            {
              id: 'coder',
              ...(prefers.agent === undefined ? {} : { models: { [MODEL]: { prefersCodeMode: prefers.agent } } }),
              ...(where === 'agent' ? { tools: { codeMode: 'auto' } } : {}),
            },
          ],
        },
      },
      '/tmp',
    );
  }

  it.each(['global', 'agent'] as const)('at the %s level: engages for a model that prefers code mode', (where) => {
    const result = activate(autoConfig(where, { defaults: true }));
    expect(result.active).toBe(true);
    expect(result.decidedBy).toContain('"auto"');
    expect(result.decidedBy).toContain('prefersCodeMode = true');
  });

  it.each(['global', 'agent'] as const)('at the %s level: stays off for a model without the mark', (where) => {
    const result = activate(autoConfig(where, {}));
    expect(result.active).toBe(false);
    expect(result.decidedBy).toContain('not marked prefersCodeMode');
  });

  it("on the agent's model entry saying no: overrides the default entry's yes", () => {
    const result = activate(autoConfig('global', { agent: false, defaults: true }));
    expect(result.active).toBe(false);
    expect(result.decidedBy).toContain('agents.list[coder].models');
  });

  it('on an explicit per-model switch: wins over "auto" at a lower level', () => {
    const config = parseGatewayConfig(
      {
        tools: { codeMode: 'auto' },
        agents: { defaults: { models: { [MODEL]: { prefersCodeMode: false, codeMode: true } } }, list: [{ id: 'coder' }] },
      },
      '/tmp',
    );
    expect(activate(config).active).toBe(true);
  });
});

describe('fallback models', () => {
  const config = parseGatewayConfig(
    {
      tools: { codeMode: { enabled: true, timeoutMs: 4000, maxPendingToolCalls: 5 } },
      agents: {
        defaults: {
          model: 'demo/big',
          models: {
            'demo/big': { fallbacks: ['demo/small', 'demo/tiny'] },
            'demo/small': { codeMode: false },
            'demo/tiny': {},
          },
        },
        list: [{ id: 'coder', tools: { codeMode: { maxPendingToolCalls: 2 } } }],
      },
    },
    '/tmp',
  );

  it("on a fallback with codeMode false: the fallback's own switch decides", () => {
    const result = activate(config, { model: 'demo/small', fallbackFromModel: 'demo/big' });
    expect(result.active).toBe(false);
    expect(result.model).toBe('demo/small');
    expect(result.decidedBy).toBe('agents.defaults.models["demo/small"].codeMode = false (fallback from "demo/big")');
  });

  it('on a fallback without a switch: falls through to the enclosing switch', () => {
    expect(activate(config, { model: 'demo/tiny', fallbackFromModel: 'demo/big' }).active).toBe(true);
  });

  it('on any fallback: limits stay those of the enclosing options, agent overrides included', () => {
    const primary = activate(config, { model: 'demo/big' });
    for (const model of ['demo/small', 'demo/tiny']) {
      const fallback = activate(config, { model, fallbackFromModel: 'demo/big' });
      expect(fallback.options).toEqual(primary.options);
    }
    expect(primary.options.timeoutMs).toBe(4000);
    expect(primary.options.maxPendingToolCalls).toBe(2);
  });

  it('on a model that is not a listed fallback: is an error listing the fallbacks', () => {
    expect(() => activate(config, { model: 'demo/other', fallbackFromModel: 'demo/big' })).toThrow(/its fallbacks: demo\/small, demo\/tiny/);
  });
});

describe('limits come from the enclosing tools.codeMode', () => {
  it('on an agent with limit overrides: merges them over the global options, whatever decided activation', () => {
    const config = parseGatewayConfig(
      {
        tools: { codeMode: { enabled: false, executor: 'quickjs', timeoutMs: 9000, snapshotTtlSeconds: 60 } },
        agents: {
          defaults: { models: { [MODEL]: { codeMode: true } } },
          list: [{ id: 'coder', tools: { codeMode: { timeoutMs: 2000 } } }],
        },
      },
      '/tmp',
    );
    const result = activate(config);
    expect(result.active).toBe(true);
    expect(result.options).toEqual({ ...config.tools.codeMode, timeoutMs: 2000 });
    expect(agentCodeModeOptions(config, findAgent(config, 'coder'))).toEqual(result.options);
  });
});

describe('runs without tools', () => {
  it('on toolsActive false: never engages, even when everything enables it', () => {
    const result = activate(configWith({ agentModel: true, agent: true, defaultModel: true, global: true }), { toolsActive: false });
    expect(result.active).toBe(false);
    expect(result.decidedBy).toContain('no tools');
  });

  it('on disableTools or an empty allowlist: runHasTools is false', () => {
    const config = parseGatewayConfig(
      { tools: { codeMode: true }, agents: { list: [{ id: 'open' }, { id: 'closed', tools: { allow: [] } }] } },
      '/tmp',
    );
    expect(runHasTools(config, findAgent(config, 'open'))).toBe(true);
    expect(runHasTools(config, findAgent(config, 'open'), true)).toBe(false);
    expect(runHasTools(config, findAgent(config, 'closed'))).toBe(false);
    const globallyClosed = parseGatewayConfig({ tools: { codeMode: true, allow: [] } }, '/tmp');
    expect(runHasTools(globallyClosed, findAgent(globallyClosed))).toBe(false);
  });
});

describe('agents and models', () => {
  const config = parseGatewayConfig({ agents: { list: [{ id: 'a' }, { id: 'b', model: 'x/b' }] } }, '/tmp');

  it('on an unknown agent id: is an error listing the known agents', () => {
    try {
      resolveActivation(config, { agentId: 'x', toolsActive: true });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain('unknown agent "x"; known agents: a, b');
    }
  });

  it('on no agent id: uses the first agent; on no model: the agent model, else the default model', () => {
    expect(resolveActivation(config, { toolsActive: true }).agentId).toBe('a');
    expect(resolveActivation(config, { toolsActive: true }).model).toBe(config.agents.defaults.model);
    expect(resolveActivation(config, { agentId: 'b', toolsActive: true }).model).toBe('x/b');
  });

  it('on a model that is not "provider/model": is an error naming model', () => {
    expect(() => resolveActivation(config, { model: 'gpt', toolsActive: true })).toThrow(/^model: "gpt" is not "provider\/model"/);
  });
});

describe('the shipped config', () => {
  const config = loadConfigFile(join(repoRoot, 'codemode.config.json'));

  it('engages for the main agent, not for the direct agent, and not for a model switched off', () => {
    expect(resolveActivation(config, { toolsActive: true }).active).toBe(true);
    expect(resolveActivation(config, { agentId: 'direct', toolsActive: true }).active).toBe(false);
    const off = Object.entries(config.agents.defaults.models).find(([, entry]) => entry.codeMode === false)?.[0];
    expect(off).toBeDefined();
    expect(resolveActivation(config, { model: off, toolsActive: true }).active).toBe(false);
  });
});
