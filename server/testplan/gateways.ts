// Sibling Gateways the test plan needs beside the loaded one: the same tool sources over a changed config.
import type { GatewayConfig } from '../config/types.ts';
import { Gateway } from '../gateway.ts';
import { loadToolSources } from '../tools/registry.ts';

/** The loaded config with code mode switched off everywhere (defaults, agents, per-model switches): the plan's steps 1-3. */
export function codeModeOffConfig(config: GatewayConfig): GatewayConfig {
  const stripModels = <T extends Record<string, { codeMode?: boolean }>>(models: T | undefined): T | undefined =>
    models ? (Object.fromEntries(Object.entries(models).map(([k, { codeMode: _off, ...m }]) => [k, m])) as T) : undefined;
  return {
    ...config,
    tools: { ...config.tools, codeMode: { ...config.tools.codeMode, enabled: false } },
    agents: {
      defaults: { ...config.agents.defaults, models: stripModels(config.agents.defaults.models) ?? {} },
      list: config.agents.list.map((a) => {
        const models = stripModels(a.models);
        return {
          ...a,
          ...(models ? { models } : {}),
          ...(a.tools ? { tools: { ...a.tools, ...(a.tools.codeMode ? { codeMode: { ...a.tools.codeMode, enabled: false } } : {}) } } : {}),
        };
      }),
    },
    sessions: { path: ':memory:' },
  };
}

/** The loaded config with `agentId` given a short budget and snapshot TTL, for step 15 (timeout and expiry) without waiting minutes. */
export function shortLivedConfig(config: GatewayConfig, agentId: string): GatewayConfig {
  return {
    ...config,
    agents: {
      ...config.agents,
      list: config.agents.list.map((a) =>
        a.id === agentId ? { ...a, tools: { ...a.tools, codeMode: { ...a.tools?.codeMode, timeoutMs: 1500, snapshotTtlSeconds: 1 } } } : a,
      ),
    },
    sessions: { path: ':memory:' },
  };
}

/** A Gateway over `config` that uses `base`'s MCP and OpenAPI connections (never closing them). Close it after use. */
export async function siblingGateway(base: Gateway, config: GatewayConfig): Promise<Gateway> {
  return new Gateway(config, await loadToolSources(config), base.borrowedSources());
}
