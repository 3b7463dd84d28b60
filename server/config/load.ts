// The gateway config file: where it is (--config, CODEMODE_CONFIG, ./codemode.config.json), its zod schema, and GatewayConfig.
import { readTextFile } from '../util/files.ts';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import type { AgentConfig, GatewayConfig, McpServerConfig, ModelEntry } from './types.ts';
import {
  configErrorFrom,
  expectedReason,
  formatConfigPath,
  parseOrThrow,
  strictObject,
  zodProblemSegments,
  type ConfigProblem,
} from './issues.ts';
import { parseJsonText } from './json.ts';
import { resolveTelemetryOptions, telemetrySchema } from './telemetry.ts';
import { resolveRuns, runsSchema } from './runs.ts';
import { resolveSessions, sessionsSchema } from './sessions.ts';
import { hasShellGrammar, missingGrammarReason } from './shell-grammar.ts';
import { redactionSchema, resolveRedactionOptions } from './redaction.ts';
import { isHttpUrl, resolveSources, sourcesSchema } from './sources-schema.ts';
import { sharesFitProblems } from './shares.ts';
import {
  clampNotes,
  codeModeOverridesSchema,
  codeModeSchema,
  mcpServerOptionsSchema,
  resolveMcpServerOptions,
  resolveServerOptions,
  serverOptionsSchema,
} from './schema.ts';

/** Looked up in the working directory when neither --config nor CODEMODE_CONFIG names a file. */
export const DEFAULT_CONFIG_FILE = 'codemode.config.json';
/** Environment variable naming the config file (below --config, above the default). */
export const CONFIG_ENV_VAR = 'CODEMODE_CONFIG';
/** The agent a config without `agents.list` gets, so every run has an agent to scope it. */
export const DEFAULT_AGENT_ID = 'main';
/** The default model when `agents.defaults.model` is unset: the playground's demo model (no real provider is called). */
export const DEFAULT_MODEL = 'demo/coder';
/** Relative to the config file: the demo workspace the read/grep/exec tools work in. */
export const DEFAULT_WORKSPACE = 'demo/workspace';
/** Read-only, argument-safe commands: enough to demonstrate the shell tool without letting it change anything. */
export const DEFAULT_SHELL_ALLOW: readonly string[] = Object.freeze(['ls', 'cat', 'wc', 'echo', 'head', 'date']);

const MODEL_REF = /^[^/\s]+\/\S+$/;
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

function text(hint: string) {
  return z
    .string({ error: (issue) => expectedReason('a string', hint, issue.input) })
    .refine((value) => value.trim() !== '', { error: `must not be empty; ${hint}` });
}

function flag(hint: string) {
  return z.boolean({ error: (issue) => expectedReason('true or false', hint, issue.input) });
}

function list<Item extends z.ZodType>(item: Item, hint: string) {
  return z.array(item, { error: (issue) => expectedReason('a list', hint, issue.input) });
}

const modelRef = z
  .string({ error: (issue) => expectedReason('a string', 'name a model as "provider/model", e.g. "demo/coder"', issue.input) })
  .regex(MODEL_REF, { error: (issue) => `${JSON.stringify(issue.input)} is not "provider/model"; name a model as "provider/model", e.g. "demo/coder"` });

const modelEntrySchema = strictObject(
  {
    codeMode: flag('a per-model switch is true or false ("auto" belongs in tools.codeMode.enabled)').optional(),
    prefersCodeMode: flag('true makes "auto" engage for this model').optional(),
    fallbacks: list(modelRef, 'list fallback models as ["provider/model", ...]').optional(),
  },
  'a model entry: codeMode, prefersCodeMode, fallbacks',
);

const modelsSchema = z.record(modelRef, modelEntrySchema, {
  error: (issue) => expectedReason('an object', 'map "provider/model" to { codeMode?, prefersCodeMode?, fallbacks? }', issue.input),
});

const toolNames = (where: string) =>
  list(text('name a tool, a * glob, source:<source> or <owner>/*'), `list tool names or patterns for ${where}`);

const agentSchema = strictObject(
  {
    id: text('give the agent an id such as "main"').refine((id) => AGENT_ID.test(id), {
      error: (issue) => `${JSON.stringify(issue.input)} is not a usable agent id; use letters, digits, "_", "-" or ".", starting with a letter or digit`,
    }),
    name: text('a display name for the agent').optional(),
    model: modelRef.optional(),
    models: modelsSchema.optional(),
    tools: strictObject(
      {
        allow: toolNames('this agent').optional(),
        deny: toolNames('this agent').optional(),
        codeMode: codeModeOverridesSchema.optional(),
      },
      "the agent's tool policy: allow, deny, codeMode",
    ).optional(),
  },
  'an agent: id, name, model, models, tools',
);

const stdioServerSchema = strictObject(
  {
    command: text('the program that starts the MCP server, e.g. "node"'),
    args: list(z.string({ error: (issue) => expectedReason('a string', 'each argument is a string', issue.input) }), 'list the arguments as strings').optional(),
    env: z
      .record(z.string(), z.string({ error: (issue) => expectedReason('a string', 'environment values are strings', issue.input) }), {
        error: (issue) => expectedReason('an object', 'map variable names to string values', issue.input),
      })
      .optional(),
    networkContent: flag('true marks the server output as network-controlled (wrapped as untrusted)').optional(),
    cwd: text('the folder the server starts in, relative to the config file').optional(),
  },
  'a stdio MCP server: command, args, env, networkContent, cwd',
);

const httpServerSchema = strictObject(
  {
    url: text('the MCP endpoint, e.g. "http://127.0.0.1:4000/mcp"').refine(isHttpUrl, {
      error: (issue) => `${JSON.stringify(issue.input)} is not an http(s) URL; give the MCP endpoint, e.g. "http://127.0.0.1:4000/mcp"`,
    }),
    headers: z
      .record(z.string(), z.string({ error: (issue) => expectedReason('a string', 'header values are strings', issue.input) }), {
        error: (issue) => expectedReason('an object', 'map header names to values, e.g. { "Authorization": "Bearer ..." }', issue.input),
      })
      .optional(),
    networkContent: flag('true marks the server output as network-controlled (wrapped as untrusted)').optional(),
  },
  'an HTTP MCP server: url, headers, networkContent',
);

/** A server is stdio when it has `command`, HTTP when it has `url`; the two shapes are told apart by key, not by trial. */
const mcpServerSchema = z.unknown().transform((value, ctx): McpServerConfig => {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const shape = isObject && 'command' in value ? stdioServerSchema : isObject && 'url' in value ? httpServerSchema : undefined;
  if (!shape) {
    ctx.addIssue({
      code: 'custom',
      message: isObject
        ? 'an MCP server needs "command" (stdio, e.g. { "command": "node", "args": ["server.mjs"] }) or "url" (HTTP)'
        : expectedReason('an object', 'describe the server as { "command": ... } or { "url": ... }', value),
    });
    return z.NEVER;
  }
  const result = shape.safeParse(value, { reportInput: true });
  if (!result.success) {
    for (const { segments, reason } of zodProblemSegments(result.error)) {
      ctx.addIssue({ code: 'custom', message: reason, path: segments });
    }
    return z.NEVER;
  }
  return result.data;
});

const gatewayFileSchema = strictObject(
  {
    // Editors use it to find a JSON Schema; accepted and ignored.
    $schema: z.string().optional(),
    tools: strictObject(
      {
        codeMode: codeModeSchema,
        allow: toolNames('every agent').optional(),
        deny: toolNames('every agent').optional(),
      },
      'tools: codeMode, allow, deny',
    ).optional(),
    agents: strictObject(
      {
        defaults: strictObject(
          { model: modelRef.optional(), models: modelsSchema.optional() },
          'agent defaults: model, models',
        ).optional(),
        list: list(agentSchema, 'list agents as [{ "id": "main" }, ...]').optional(),
      },
      'agents: defaults, list',
    ).optional(),
    plugins: strictObject(
      {
        bundled: list(text('name a bundled plugin, e.g. "weather"'), 'list bundled plugin ids').optional(),
        external: list(
          strictObject(
            {
              id: text('give the plugin an id'),
              path: text('the plugin folder (holding index.mjs), relative to the config file'),
            },
            'an external plugin: id, path',
          ),
          'list external plugins as [{ "id": ..., "path": ... }]',
        ).optional(),
      },
      'plugins: bundled, external',
    ).optional(),
    mcp: strictObject(
      {
        servers: z
          .record(z.string().refine((name) => name.trim() !== '', { error: 'an MCP server name must not be empty' }), mcpServerSchema, {
            error: (issue) => expectedReason('an object', 'map server names to { command, args? } or { url }', issue.input),
          })
          .optional(),
      },
      'mcp: servers',
    ).optional(),
    sources: sourcesSchema.optional(),
    workspace: text('the demo workspace folder, relative to the config file').optional(),
    sessions: sessionsSchema.optional(),
    runs: runsSchema.optional(),
    server: serverOptionsSchema.optional(),
    mcpServer: mcpServerOptionsSchema.optional(),
    telemetry: telemetrySchema.optional(),
    redaction: redactionSchema.optional(),
    shellAllow: list(
      text('a command name')
        .refine((name) => COMMAND_NAME.test(name), {
          error: (issue) => `${JSON.stringify(issue.input)} is not a bare command name; list program names only (no paths, spaces or arguments), e.g. "ls"`,
        })
        // a command the shell tool cannot confine would be listed to the model and refused at every call
        .refine((name) => !COMMAND_NAME.test(name) || hasShellGrammar(name), {
          error: (issue) => missingGrammarReason(String(issue.input)),
        }),
      'list the commands the shell exec tool may run',
    ).optional(),
  },
  'a gateway config: tools, agents, plugins, mcp, sources, workspace, sessions, runs, server, mcpServer, telemetry, redaction, shellAllow',
);

function rawAt(json: unknown, segments: readonly PropertyKey[]): unknown {
  let current: unknown = json;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** Rules that span fields: unique agent and plugin ids. */
function crossFieldProblems(config: GatewayConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const agentIndex = new Map<string, number>();
  config.agents.list.forEach((agent, index) => {
    const earlier = agentIndex.get(agent.id);
    if (earlier !== undefined) {
      problems.push({
        path: formatConfigPath(['agents', 'list', index, 'id']),
        reason: `duplicate agent id ${JSON.stringify(agent.id)} (also agents.list[${earlier}].id); give every agent a unique id`,
      });
    } else agentIndex.set(agent.id, index);
  });
  const pluginIds = new Map<string, string>();
  const notePlugin = (id: string, path: string) => {
    const earlier = pluginIds.get(id);
    if (earlier !== undefined) {
      problems.push({ path, reason: `duplicate plugin id ${JSON.stringify(id)} (also ${earlier}); list each plugin once with its own id` });
    } else pluginIds.set(id, path);
  };
  config.plugins.bundled.forEach((id, index) => notePlugin(id, formatConfigPath(['plugins', 'bundled', index])));
  config.plugins.external.forEach((plugin, index) => notePlugin(plugin.id, formatConfigPath(['plugins', 'external', index, 'id'])));
  return problems;
}

/**
 * Validates parsed JSON and builds the GatewayConfig: defaults filled in, limits clamped, paths made absolute
 * against `baseDir` (the config file's folder). Throws one ConfigError naming every bad field; never returns a
 * half-configured result.
 */
export function parseGatewayConfig(json: unknown, baseDir: string): GatewayConfig {
  const file = parseOrThrow(gatewayFileSchema, json);
  const root = resolve(baseDir);
  const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(root, path));

  const warnings = clampNotes(rawAt(json, ['tools', 'codeMode']), file.tools?.codeMode ?? {}, 'tools.codeMode');
  const list: AgentConfig[] = file.agents?.list ?? [];
  list.forEach((agent, index) => {
    const segments = ['agents', 'list', index, 'tools', 'codeMode'];
    if (agent.tools?.codeMode) warnings.push(...clampNotes(rawAt(json, segments), agent.tools.codeMode, formatConfigPath(segments)));
  });

  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(file.mcp?.servers ?? {})) {
    servers[name] = 'command' in server ? { ...server, cwd: fromRoot(server.cwd ?? '.') } : server;
  }

  const sessions = resolveSessions(file.sessions, fromRoot);
  const runs = resolveRuns(file.runs, sessions);
  warnings.push(...runs.warnings);

  const config: GatewayConfig = {
    baseDir: root,
    workspace: fromRoot(file.workspace ?? DEFAULT_WORKSPACE),
    shellAllow: file.shellAllow ?? [...DEFAULT_SHELL_ALLOW],
    tools: {
      codeMode: file.tools?.codeMode ?? parseOrThrow(codeModeSchema, undefined),
      ...(file.tools?.allow ? { allow: file.tools.allow } : {}),
      ...(file.tools?.deny ? { deny: file.tools.deny } : {}),
    },
    agents: {
      defaults: {
        model: file.agents?.defaults?.model ?? DEFAULT_MODEL,
        models: (file.agents?.defaults?.models ?? {}) satisfies Record<string, ModelEntry>,
      },
      list: list.length > 0 ? list : [{ id: DEFAULT_AGENT_ID }],
    },
    plugins: {
      bundled: file.plugins?.bundled ?? [],
      external: (file.plugins?.external ?? []).map((plugin) => ({ id: plugin.id, path: fromRoot(plugin.path) })),
    },
    mcp: { servers },
    sources: resolveSources(file.sources, fromRoot),
    sessions,
    runs: runs.runs,
    mcpServer: resolveMcpServerOptions(file.mcpServer),
    server: resolveServerOptions(file.server, resolveMcpServerOptions(file.mcpServer).maxSessions),
    ...(file.telemetry?.otlp ? { telemetry: resolveTelemetryOptions(file.telemetry) } : {}),
    ...(file.redaction ? { redaction: resolveRedactionOptions(file.redaction) } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };

  const problems = [...crossFieldProblems(config), ...sharesFitProblems(file.server?.shares, config.mcpServer.maxSessions)];
  if (problems.length > 0) throw configErrorFrom(problems);
  return config;
}

/**
 * Reads and validates one config file. Errors name the file: a JSON syntax error by line and column,
 * a schema error by dotted field path.
 */
/** A config file larger than this is refused unread: a config is a few KiB (documents and cells live beside it). */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

export function loadConfigFile(path: string): GatewayConfig {
  const file = resolve(path);
  let source: string;
  try {
    source = readTextFile(file, MAX_CONFIG_FILE_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ConfigError('', `config file not found: ${file}; create it (see codemode.config.json) or pass --config <path> / set ${CONFIG_ENV_VAR}`);
    }
    throw new ConfigError('', `cannot read config file ${file}: ${(error as Error).message}; check the path and its permissions`);
  }
  const json = parseJsonText(source, file);
  try {
    return { ...parseGatewayConfig(json, dirname(file)), configFile: file };
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.path, `${error.reason}\n  (in ${file})`);
    throw error;
  }
}

/**
 * Which config file to load: `--config <path>` (or `--config=<path>`) wins, then CODEMODE_CONFIG, then
 * ./codemode.config.json. Returns an absolute path; relative ones resolve against `cwd`.
 */
export function resolveConfigPath({
  argv,
  env,
  cwd,
}: {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}): string {
  let fromArgs: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--config') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--') || next.trim() === '') {
        throw new ConfigError('--config', 'expected a file path after --config, e.g. --config demo/configs/disabled.json');
      }
      fromArgs = next;
      i++;
    } else if (arg?.startsWith('--config=')) {
      const value = arg.slice('--config='.length);
      if (value.trim() === '') throw new ConfigError('--config', 'expected a file path after --config=, e.g. --config=demo/configs/disabled.json');
      fromArgs = value;
    }
  }
  const fromEnv = env[CONFIG_ENV_VAR]?.trim() ? env[CONFIG_ENV_VAR] : undefined;
  return resolve(cwd, fromArgs ?? fromEnv ?? DEFAULT_CONFIG_FILE);
}
