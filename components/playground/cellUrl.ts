// The page's URL, built in one place: the cell and the turn's settings in the hash (so a link reproduces them) and the shown run in `?run=`.
import { decodeCellHash, encodeCellHash } from '../editor/index.ts';
import type { SharedCell } from '../editor/index.ts';
import type { Agent, ClientToolSpec } from '../api.ts';
import { findExample } from './examples.ts';
import { DEFAULT_CLIENT_TOOLS, parseClientTools } from './clientTools.ts';

/** The search parameter naming the run the trajectory and snapshot views show. */
export const RUN_PARAM = 'run';

/** A cell's executor when it overrides the agent's (the page's default choice is "the agent's executor"). */
export type ExecutorOverride = 'quickjs' | 'node' | 'quickjs-emscripten';

/**
 * What a link carries besides the cell: every field is optional, and a missing one means the page's default
 * (the first agent, its model, its executor, typecheck off, inferred types off, the default client tools, no example).
 */
export interface TurnSettings {
  agentId?: string;
  model?: string;
  executor?: ExecutorOverride;
  typecheck?: boolean;
  /** The server typecheck also uses this turn's inferred output types (the user's opt-in; only with typecheck). */
  typecheckInferred?: boolean;
  clientTools?: ClientToolSpec[];
  /** The example the cell was loaded from (the examples menu shows it). */
  example?: string;
}

/** Hash keys of the settings; `lang` and `code` belong to the cell (editor/share.ts). */
const SETTING_KEYS = { agentId: 'agent', model: 'model', executor: 'executor', typecheck: 'typecheck', typecheckInferred: 'inferred', clientTools: 'tools', example: 'example' } as const;

/** What a visit's URL holds: the cell of a link (absent, or damaged, when it has none), its settings and the run to show. */
export interface CellUrlState {
  cell?: SharedCell;
  settings?: TurnSettings;
  runId?: string;
  /** What the link held that the page could not use, and what it shows instead (one sentence each). */
  problems?: string[];
}

const EXECUTORS = ['quickjs', 'node', 'quickjs-emscripten'] as const;

/** Why parts of a link were left out (the agent is checked once the Gateway's agents are known: agentLinkProblem). */
export function linkProblems(hash: string, settings: TurnSettings, cellDecoded: boolean): string[] {
  const params = hashParams(hash);
  const problems: string[] = [];
  if (params.get('code') !== null && !cellDecoded) problems.push("code= is damaged (not base64url-encoded UTF-8 text, perhaps cut short), so the first example is shown instead");
  const executor = params.get(SETTING_KEYS.executor);
  if (executor && !settings.executor) problems.push(`executor=${executor.slice(0, 40)} is not one of ${EXECUTORS.join(', ')}, so the agent's executor is used`);
  const tools = params.get(SETTING_KEYS.clientTools);
  if (tools !== null && !settings.clientTools) {
    const parsed = parseClientTools(tools);
    problems.push(`tools= is not a client-tool list (${'error' in parsed ? parsed.error.slice(0, 120) : 'unreadable'}), so the default client tools are used`);
  }
  const example = params.get(SETTING_KEYS.example);
  if (example && !findExample(example)) problems.push(`example=${example.slice(0, 40)} is not an example of this page, so the menu shows none`);
  return problems;
}

/** Why the link's agent was not used, once the Gateway's agents are known; undefined when it was (or named none). */
export function agentLinkProblem(linked: string | undefined, agents: readonly Pick<Agent, 'id' | 'name'>[] | undefined): string | undefined {
  if (!linked || !agents || agents.length === 0 || agents.some((a) => a.id === linked)) return undefined;
  const first = agents[0];
  return `agent=${linked.slice(0, 40)} is not an agent of this Gateway (${agents.map((a) => a.id).join(', ')}), so ${first?.name ?? first?.id} is used`;
}

function hashParams(hash: string): URLSearchParams {
  return new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
}

/** The settings a hash holds; a damaged value (unknown executor, client tools that do not parse) is left out. */
export function readSettings(hash: string): TurnSettings {
  const params = hashParams(hash);
  const settings: TurnSettings = {};
  const agentId = params.get(SETTING_KEYS.agentId);
  if (agentId) settings.agentId = agentId;
  const model = params.get(SETTING_KEYS.model);
  if (model) settings.model = model;
  const executor = params.get(SETTING_KEYS.executor);
  if (executor === 'quickjs' || executor === 'node' || executor === 'quickjs-emscripten') settings.executor = executor;
  if (params.get(SETTING_KEYS.typecheck) === '1') settings.typecheck = true;
  if (params.get(SETTING_KEYS.typecheckInferred) === '1') settings.typecheckInferred = true;
  const tools = params.get(SETTING_KEYS.clientTools);
  if (tools !== null) {
    const parsed = parseClientTools(tools);
    if ('tools' in parsed) settings.clientTools = parsed.tools;
  }
  const example = params.get(SETTING_KEYS.example);
  if (example) settings.example = example;
  return settings;
}

/** Writes `settings` over the setting keys of `params`; defaults are left out, so a plain link stays short. */
function putSettings(params: URLSearchParams, settings: TurnSettings): void {
  for (const key of Object.values(SETTING_KEYS)) params.delete(key);
  if (settings.agentId) params.set(SETTING_KEYS.agentId, settings.agentId);
  if (settings.model) params.set(SETTING_KEYS.model, settings.model);
  if (settings.executor) params.set(SETTING_KEYS.executor, settings.executor);
  if (settings.typecheck) params.set(SETTING_KEYS.typecheck, '1');
  if (settings.typecheckInferred) params.set(SETTING_KEYS.typecheckInferred, '1');
  if (settings.clientTools && JSON.stringify(settings.clientTools) !== JSON.stringify(DEFAULT_CLIENT_TOOLS)) {
    params.set(SETTING_KEYS.clientTools, JSON.stringify(settings.clientTools));
  }
  if (settings.example) params.set(SETTING_KEYS.example, settings.example);
}

function putCell(params: URLSearchParams, cell: SharedCell): void {
  for (const [key, value] of hashParams(encodeCellHash(cell))) params.set(key, value);
}

export function readCellUrl(href: string): CellUrlState {
  const url = new URL(href);
  const state: CellUrlState = {};
  const cell = decodeCellHash(url.hash);
  if (cell) state.cell = cell;
  const settings = readSettings(url.hash);
  if (Object.keys(settings).length > 0) state.settings = settings;
  const runId = url.searchParams.get(RUN_PARAM);
  if (runId !== null) state.runId = runId;
  const problems = linkProblems(url.hash, settings, cell !== undefined);
  if (problems.length > 0) state.problems = problems;
  return state;
}

/**
 * `cell`: the page's own URL with the current cell in its hash (settings kept). `settings`: with the turn's
 * settings in its hash (cell kept). `run`: with `?run=` naming the shown run (or without it). `share`: a link
 * that reproduces the cell and its settings and nothing else, so it carries no search at all.
 */
export type CellUrlChange =
  | { kind: 'cell'; cell: SharedCell }
  | { kind: 'settings'; settings: TurnSettings }
  | { kind: 'run'; runId: string | undefined }
  | { kind: 'share'; cell: SharedCell; settings: TurnSettings };

export function cellUrl(href: string, change: CellUrlChange): string {
  const url = new URL(href);
  const params = hashParams(url.hash);
  switch (change.kind) {
    case 'cell':
      putCell(params, change.cell);
      url.hash = params.toString();
      break;
    case 'settings':
      putSettings(params, change.settings);
      url.hash = params.toString();
      break;
    case 'run':
      if (change.runId) url.searchParams.set(RUN_PARAM, change.runId);
      else url.searchParams.delete(RUN_PARAM);
      break;
    case 'share': {
      const shared = new URLSearchParams();
      putCell(shared, change.cell);
      putSettings(shared, change.settings);
      url.search = '';
      url.hash = shared.toString();
      break;
    }
  }
  return url.toString();
}
