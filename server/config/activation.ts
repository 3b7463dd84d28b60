// Whether code mode engages for one run: the four-level precedence, "auto", fallback models and the enclosing limits.
//
// Precedence, first explicit value wins (DESIGN.md 4.2):
//   1. the agent's per-model switch   agents.list[id].models[model].codeMode
//   2. the agent's switch             agents.list[id].tools.codeMode.enabled
//   3. the default per-model switch   agents.defaults.models[model].codeMode
//   4. the global switch              tools.codeMode.enabled (always set: disabled by default)
// Per-model switches are booleans. "auto" (levels 2 and 4) engages only when the model's entry, the agent's
// before the default's, says prefersCodeMode. Limits never come from a model: they are the global options with
// the agent's overrides, also when a fallback model serves the run. A run without tools never engages.
import { ConfigError } from '../errors.ts';
import type { AgentConfig, CodeModeOptions, GatewayConfig, ModelEntry } from './types.ts';
import { formatConfigPath } from './issues.ts';
import { mergeCodeModeOptions } from './schema.ts';

export interface ActivationRequest {
  /** Absent: the first agent in `agents.list` (the default agent). */
  agentId?: string;
  /** The model serving the run ("provider/model"); absent: the agent's model, else `agents.defaults.model`. */
  model?: string;
  /** Set when `model` was selected as a fallback of this model; it must be listed in that model's `fallbacks`. */
  fallbackFromModel?: string;
  /** False for raw no-tool runs, `disableTools` and empty allowlists: code mode never engages then. */
  toolsActive: boolean;
}

export interface CodeModeActivation {
  active: boolean;
  /** The enclosing options (global `tools.codeMode` merged with the agent's overrides); limits always come from here. */
  options: CodeModeOptions;
  /** The precedence level that decided, readable: `agents.list[coder].models["openai/gpt-5"].codeMode = false`. */
  decidedBy: string;
  agentId: string;
  /** The model activation was decided for. */
  model: string;
}

const MODEL_REF = /^[^/\s]+\/\S+$/;

/** The agent a run without an agent id belongs to: the first one listed. */
export function defaultAgent(config: GatewayConfig): AgentConfig {
  const agent = config.agents.list[0];
  if (!agent) throw new ConfigError('agents.list', 'no agents configured; add one, e.g. [{ "id": "main" }]');
  return agent;
}

/** Finds an agent by id; an unknown id is an error that lists the known ones. */
export function findAgent(config: GatewayConfig, agentId?: string): AgentConfig {
  if (agentId === undefined) return defaultAgent(config);
  const agent = config.agents.list.find((candidate) => candidate.id === agentId);
  if (!agent) {
    const known = config.agents.list.map((candidate) => candidate.id).join(', ');
    throw new ConfigError('agentId', `unknown agent ${JSON.stringify(agentId)}; known agents: ${known}`);
  }
  return agent;
}

/** The model an agent's runs use unless a turn picks another. */
export function agentModel(config: GatewayConfig, agent: AgentConfig): string {
  return agent.model ?? config.agents.defaults.model;
}

/** Global options with the agent's overrides: the limits every run of that agent uses, whatever its model. */
export function agentCodeModeOptions(config: GatewayConfig, agent: AgentConfig): CodeModeOptions {
  return mergeCodeModeOptions(config.tools.codeMode, agent.tools?.codeMode ?? {});
}

/**
 * Whether a run has tools at all before policy filters them: false for `disableTools` and for an explicitly
 * empty allowlist (global or the agent's). Such runs are raw no-tool runs for code mode.
 */
export function runHasTools(config: GatewayConfig, agent: AgentConfig, disableTools = false): boolean {
  if (disableTools) return false;
  if (config.tools.allow?.length === 0) return false;
  if (agent.tools?.allow?.length === 0) return false;
  return true;
}

function ownEntry(models: Record<string, ModelEntry> | undefined, model: string): ModelEntry | undefined {
  return models && Object.hasOwn(models, model) ? models[model] : undefined;
}

function checkModelRef(model: string, field: string): void {
  if (!MODEL_REF.test(model)) {
    throw new ConfigError(field, `${JSON.stringify(model)} is not "provider/model"; name a model as "provider/model", e.g. "demo/coder"`);
  }
}

/** Decides code-mode activation for one run; see the precedence at the top of this file. */
export function resolveActivation(config: GatewayConfig, request: ActivationRequest): CodeModeActivation {
  const agent = findAgent(config, request.agentId);
  const model = request.model ?? agentModel(config, agent);
  checkModelRef(model, 'model');
  const options = agentCodeModeOptions(config, agent);

  // Agents are named by id here ("agents.list[coder]"): it reads better than an index in a UI or a log.
  const agentPath = (...rest: PropertyKey[]) => `agents.list[${agent.id}].${formatConfigPath(rest)}`;
  const defaultsPath = (...rest: PropertyKey[]) => formatConfigPath(['agents', 'defaults', ...rest]);

  const agentEntry = ownEntry(agent.models, model);
  const defaultEntry = ownEntry(config.agents.defaults.models, model);

  let fallbackNote = '';
  if (request.fallbackFromModel !== undefined) {
    checkModelRef(request.fallbackFromModel, 'fallbackFromModel');
    const primaryAgentEntry = ownEntry(agent.models, request.fallbackFromModel);
    const primaryDefaultEntry = ownEntry(config.agents.defaults.models, request.fallbackFromModel);
    const fallbacks = primaryAgentEntry?.fallbacks ?? primaryDefaultEntry?.fallbacks ?? [];
    if (!fallbacks.includes(model)) {
      throw new ConfigError(
        'model',
        `${JSON.stringify(model)} is not a fallback of ${JSON.stringify(request.fallbackFromModel)} (its fallbacks: ${fallbacks.length > 0 ? fallbacks.join(', ') : 'none'}); pick a listed fallback or add it to that model's "fallbacks"`,
      );
    }
    fallbackNote = ` (fallback from ${JSON.stringify(request.fallbackFromModel)})`;
  }

  const decide = (active: boolean, decidedBy: string): CodeModeActivation => ({
    active,
    options,
    decidedBy: `${decidedBy}${fallbackNote}`,
    agentId: agent.id,
    model,
  });

  if (!request.toolsActive) {
    return decide(false, 'no tools for this run (raw no-tool run, disableTools or an empty allowlist): code mode never engages');
  }

  const auto = (switchPath: string): CodeModeActivation => {
    if (agentEntry?.prefersCodeMode !== undefined) {
      return decide(agentEntry.prefersCodeMode, `${switchPath} = "auto"; ${agentPath('models', model, 'prefersCodeMode')} = ${agentEntry.prefersCodeMode}`);
    }
    if (defaultEntry?.prefersCodeMode !== undefined) {
      return decide(defaultEntry.prefersCodeMode, `${switchPath} = "auto"; ${defaultsPath('models', model, 'prefersCodeMode')} = ${defaultEntry.prefersCodeMode}`);
    }
    return decide(false, `${switchPath} = "auto"; model ${JSON.stringify(model)} is not marked prefersCodeMode`);
  };

  if (agentEntry?.codeMode !== undefined) {
    return decide(agentEntry.codeMode, `${agentPath('models', model, 'codeMode')} = ${agentEntry.codeMode}`);
  }
  const agentSwitch = agent.tools?.codeMode?.enabled;
  if (agentSwitch !== undefined) {
    const path = agentPath('tools', 'codeMode', 'enabled');
    return agentSwitch === 'auto' ? auto(path) : decide(agentSwitch, `${path} = ${agentSwitch}`);
  }
  if (defaultEntry?.codeMode !== undefined) {
    return decide(defaultEntry.codeMode, `${defaultsPath('models', model, 'codeMode')} = ${defaultEntry.codeMode}`);
  }
  const globalSwitch = config.tools.codeMode.enabled;
  return globalSwitch === 'auto'
    ? auto('tools.codeMode.enabled')
    : decide(globalSwitch, `tools.codeMode.enabled = ${globalSwitch}`);
}
