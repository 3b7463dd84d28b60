// Tool registry: loads the core, bundled-plugin and external-plugin tool sources in catalog order.
//
// MCP and client tools are appended by their owners after this. A plugin that
// fails to load (unknown id, import error, malformed export, name conflict) is
// reported in `pluginErrors` by name and skipped; it never stops the Gateway.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GatewayConfig, PluginRef } from '../config/types.ts';
import { BUNDLED_PLUGINS, BUNDLED_PLUGIN_IDS } from './bundled/index.ts';
import { createCoreTools } from './core/index.ts';
import type { CodeModePlugin, PluginContext } from './plugins.ts';
import type { ToolDefinition, ToolSource } from './types.ts';
import { withInputValidation } from './validate.ts';
import { isRecord } from '../util/is-record.mjs';

/** The file an external plugin folder must hold. */
export const PLUGIN_ENTRY_FILE = 'index.mjs';

export interface PluginError {
  plugin: string;
  error: string;
}

export interface LoadedToolSources {
  /** Core, then bundled plugin, then external plugin tools. Tool Search searches this very array, so tools appended later are found too. */
  tools: ToolDefinition[];
  /** Plugins that loaded, in load order (bundled, then external), with `tools` resolved to an array. Hooks run in this order. */
  plugins: CodeModePlugin[];
  pluginErrors: PluginError[];
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Checks the fields a plugin's tool must have; returns what is wrong, or undefined. */
export function toolDefinitionProblem(value: unknown, index: number): string | undefined {
  const where = `tools[${index}]`;
  if (!isRecord(value)) return `${where} must be an object with name, description, inputSchema and execute`;
  const name = value['name'];
  const label = typeof name === 'string' && name ? `${where} ("${name}")` : where;
  if (typeof name !== 'string' || !name.trim()) return `${where}.name must be a non-empty string`;
  if (typeof value['description'] !== 'string') return `${label}.description must be a string`;
  if (!isRecord(value['inputSchema'])) return `${label}.inputSchema must be a JSON Schema object`;
  if (value['outputSchema'] !== undefined && !isRecord(value['outputSchema'])) return `${label}.outputSchema must be a JSON Schema object when set`;
  if (typeof value['execute'] !== 'function') return `${label}.execute must be an async function (input, ctx)`;
  const mode = value['executionMode'];
  if (mode !== undefined && mode !== 'parallel' && mode !== 'sequential') return `${label}.executionMode must be "parallel" or "sequential"`;
  if (value['approval'] !== undefined && value['approval'] !== 'required') return `${label}.approval must be "required" when set`;
  return undefined;
}

/** How long a plugin's module and its tools() may take to load before the start goes on without it. */
export const PLUGIN_LOAD_TIMEOUT_MS = 15_000;

/**
 * `loading`, or an error naming `what` once PLUGIN_LOAD_TIMEOUT_MS pass: a plugin whose top-level await or tools()
 * never settles left nothing for the event loop to wait on, and the server exited at start with status 0 and no word.
 */
async function withinLoadTime<T>(loading: Promise<T>, what: string, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${limitMs / 1000} s; the plugin was left out (does it await something that never settles?)`)), limitMs);
  });
  try {
    return await Promise.race([loading, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves a plugin's tools, stamps source and owner, validates shapes. Throws with a message naming the bad field. */
async function resolvePluginTools(plugin: CodeModePlugin, source: ToolSource, ctx: PluginContext, limitMs: number): Promise<ToolDefinition[]> {
  const raw: unknown = typeof plugin.tools === 'function' ? await withinLoadTime(Promise.resolve(plugin.tools(ctx)), 'its tools() function', limitMs) : plugin.tools;
  if (!Array.isArray(raw)) throw new Error('tools must be an array of tool definitions (or a function returning one)');
  const tools: ToolDefinition[] = [];
  raw.forEach((value: unknown, index) => {
    const problem = toolDefinitionProblem(value, index);
    if (problem) throw new Error(problem);
    // A plugin cannot claim another source or owner: both are part of the host identity and of policy patterns.
    tools.push(withInputValidation({ ...(value as ToolDefinition), source, owner: plugin.id }));
  });
  return tools;
}

/** Imports `<baseDir>/<ref.path>/index.mjs` and checks its default export is a plugin. */
export async function importExternalPlugin(config: GatewayConfig, ref: PluginRef, limitMs = PLUGIN_LOAD_TIMEOUT_MS): Promise<{ plugin: CodeModePlugin; dir: string }> {
  const dir = resolve(config.baseDir, ref.path);
  const entry = join(dir, PLUGIN_ENTRY_FILE);
  if (!existsSync(entry)) throw new Error(`${entry} does not exist; the folder in plugins.external[].path must hold an ${PLUGIN_ENTRY_FILE}`);
  let module: Record<string, unknown>;
  try {
    module = (await withinLoadTime(import(pathToFileURL(entry).href), `importing ${entry}`, limitMs)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`loading ${entry} threw: ${describeError(error)}`);
  }
  const exported = module['default'];
  if (!isRecord(exported)) throw new Error(`${entry} must have a default export: a plugin object { id?, tools, hooks? } or { tools }`);
  const tools = exported['tools'];
  if (!Array.isArray(tools) && typeof tools !== 'function') throw new Error(`${entry}: the default export's "tools" must be an array or a function`);
  const hooks = exported['hooks'];
  if (hooks !== undefined) {
    if (!isRecord(hooks)) throw new Error(`${entry}: "hooks" must be an object`);
    const before = hooks['before_tool_call'];
    if (before !== undefined && typeof before !== 'function') throw new Error(`${entry}: "hooks.before_tool_call" must be a function`);
  }
  if (exported['id'] !== undefined && exported['id'] !== ref.id) {
    // The config's id wins (it is what policies and errors name); a mismatch is most likely a copied folder.
    throw new Error(`${entry} says its id is ${JSON.stringify(exported['id'])} but plugins.external lists it as ${JSON.stringify(ref.id)}; make them match`);
  }
  const plugin: CodeModePlugin = {
    id: ref.id,
    tools: tools as CodeModePlugin['tools'],
    ...(isRecord(hooks) ? { hooks: hooks as NonNullable<CodeModePlugin['hooks']> } : {}),
  };
  return { plugin, dir };
}

/** `pluginLoadTimeoutMs`: how long each plugin's import and tools() may take (tests shorten it). */
export async function loadToolSources(config: GatewayConfig, opts: { pluginLoadTimeoutMs?: number } = {}): Promise<LoadedToolSources> {
  const limitMs = opts.pluginLoadTimeoutMs ?? PLUGIN_LOAD_TIMEOUT_MS;
  const tools: ToolDefinition[] = [];
  const plugins: CodeModePlugin[] = [];
  const pluginErrors: PluginError[] = [];

  tools.push(...createCoreTools(config, { getTools: () => tools }));

  const owners = new Map<string, string>(tools.map((tool) => [tool.name, `core tool "${tool.name}"`]));
  const admit = async (plugin: CodeModePlugin, source: ToolSource, dir: string): Promise<void> => {
    let pluginTools: ToolDefinition[];
    try {
      pluginTools = await resolvePluginTools(plugin, source, { pluginId: plugin.id, config, pluginDir: dir }, limitMs);
    } catch (error) {
      pluginErrors.push({ plugin: plugin.id, error: describeError(error) });
      return;
    }
    const admitted: ToolDefinition[] = [];
    for (const tool of pluginTools) {
      const holder = owners.get(tool.name);
      if (holder) {
        // Exact-name conflicts between sources are refused here, as plugin conflict enforcement; only client tools may shadow.
        pluginErrors.push({ plugin: plugin.id, error: `tool "${tool.name}" conflicts with ${holder}; it was skipped (rename it in the plugin)` });
        continue;
      }
      owners.set(tool.name, `the ${plugin.id} plugin's tool "${tool.name}"`);
      admitted.push(tool);
    }
    tools.push(...admitted);
    plugins.push({ ...plugin, tools: admitted });
  };

  const seen = new Set<string>();
  for (const id of config.plugins.bundled) {
    if (seen.has(id)) {
      pluginErrors.push({ plugin: id, error: 'listed more than once in plugins.bundled; loaded once' });
      continue;
    }
    seen.add(id);
    // own keys only: "constructor" or "__proto__" is no bundled plugin
    const create = Object.hasOwn(BUNDLED_PLUGINS, id) ? BUNDLED_PLUGINS[id] : undefined;
    if (!create) {
      pluginErrors.push({ plugin: id, error: `unknown bundled plugin "${id}" in plugins.bundled; known bundled plugins: ${BUNDLED_PLUGIN_IDS.join(', ')}` });
      continue;
    }
    let plugin: CodeModePlugin;
    try {
      plugin = create();
    } catch (error) {
      pluginErrors.push({ plugin: id, error: describeError(error) });
      continue;
    }
    await admit(plugin, 'bundled_plugin', config.baseDir);
  }

  for (const ref of config.plugins.external) {
    if (seen.has(ref.id)) {
      pluginErrors.push({ plugin: ref.id, error: `plugin id "${ref.id}" is already used by another plugin; give plugins.external entries unique ids` });
      continue;
    }
    seen.add(ref.id);
    try {
      const { plugin, dir } = await importExternalPlugin(config, ref, limitMs);
      await admit(plugin, 'external_plugin', dir);
    } catch (error) {
      pluginErrors.push({ plugin: ref.id, error: describeError(error) });
    }
  }

  return { tools, plugins, pluginErrors };
}
