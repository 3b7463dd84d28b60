// The plugin contract (bundled and external plugins alike) and its hook runners.
//
// A plugin contributes tools and, optionally, hooks (spec 02), each run in plugin load order (bundled, then external):
//   before_tool_call      before every tool call: each sees the input as rewritten by the hooks before it; the
//                         first block stops the chain. A hook that throws or returns a malformed answer blocks the
//                         call (fail closed): a policy hook that cannot decide must not let the call through.
//   before_message_write  before a nested call's display-only activity row is written to the session transcript:
//                         `{ suppress: true }` keeps the row out (the call still counts as done: suppressing its
//                         history does not undo it). Synchronous, so rows keep their order; a hook that throws or
//                         answers anything else suppresses the row (fail closed: a hook that meant to hide a row
//                         must not have it written because it failed).
//   agent_end             once a turn ends (its client ended it, it idled out, the Gateway closed), with the turn's
//                         accepted nested activity read from the transcript: rows a before_message_write hook
//                         suppressed are not there. Its result is ignored; a failure is reported, never thrown.
import type { GatewayConfig } from '../config/types.ts';
import type { ToolDefinition, ToolSource } from './types.ts';
import type { NestedActivityPayload } from '../sessions/types.ts';
import { isRecord } from '../util/is-record.mjs';

export interface PluginContext {
  /** The plugin's own id (bundled id or `plugins.external[].id`). */
  pluginId: string;
  config: GatewayConfig;
  /** Folder of an external plugin (absolute); the gateway's baseDir for bundled ones. */
  pluginDir: string;
}

export interface BeforeToolCallEvent {
  /** Exact tool name as its source spells it. */
  tool: string;
  source: ToolSource;
  owner?: string;
  input: unknown;
  agentId: string;
  sessionId: string;
  agentRunId: string;
  invocationId: string;
  /** Set on the outer code-mode `exec` call, so policies can tell cells from the shell `exec` tool that shares the name (spec: tool surface). */
  toolKind?: 'code_mode_exec';
  /** Cell language of an outer code-mode `exec` call, when known. */
  toolInputKind?: 'javascript' | 'typescript';
}

/** `{ block: reason }` denies the call; `{ input }` replaces the input the tool (and later hooks) will see; nothing lets it pass. */
export type BeforeToolCallResult = { block: string } | { input: unknown } | undefined | void;

export type BeforeToolCallHook = (event: BeforeToolCallEvent) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

/** A message about to be written to a session transcript: only nested-activity rows pass through hooks (control calls are what a provider replays). */
export interface BeforeMessageWriteEvent {
  type: 'nested-activity';
  sessionId: string;
  agentRunId: string;
  agentId: string;
  message: NestedActivityPayload;
}

/** `{ suppress: true }` keeps the row out of the transcript; nothing writes it. */
export type BeforeMessageWriteResult = { suppress: true } | undefined | void;

export type BeforeMessageWriteHook = (event: BeforeMessageWriteEvent) => BeforeMessageWriteResult;

/** A turn that ended, with what the transcript accepted of its nested activity. */
export interface AgentEndEvent {
  agentRunId: string;
  agentId: string;
  sessionId: string;
  /** Ended by its client or operator (turns.end), idle past its limit, or the Gateway closing. */
  reason: 'ended' | 'idle' | 'shutdown';
  /** The turn's nested activity rows as the transcript holds them, oldest first (suppressed rows are not among them). */
  activity: NestedActivityPayload[];
}

export type AgentEndHook = (event: AgentEndEvent) => void | Promise<void>;

export interface CodeModePlugin {
  id: string;
  tools: ToolDefinition[] | ((ctx: PluginContext) => ToolDefinition[] | Promise<ToolDefinition[]>);
  hooks?: { before_tool_call?: BeforeToolCallHook; before_message_write?: BeforeMessageWriteHook; agent_end?: AgentEndHook };
}

/** What one plugin's before_tool_call hook decided for a call (kept on the nested call's record for its span detail). */
export interface HookDecision {
  plugin: string;
  decision: 'passed' | 'rewrote input' | 'blocked';
  /** A block's reason. */
  reason?: string;
}

export interface BeforeToolCallOutcome {
  /** Set when a hook denied the call: which plugin and why (the reason reaches the model). */
  blocked?: { plugin: string; reason: string };
  /** The input to run the tool with (rewritten by hooks, or the original). */
  input: unknown;
  /** Each hook that ran, in order, with its decision (the hooks after a block do not run). */
  decisions: HookDecision[];
}

export async function runBeforeToolCallHooks(
  plugins: readonly CodeModePlugin[],
  event: BeforeToolCallEvent,
): Promise<BeforeToolCallOutcome> {
  let input = event.input;
  const decisions: HookDecision[] = [];
  const block = (plugin: string, reason: string): BeforeToolCallOutcome => {
    decisions.push({ plugin, decision: 'blocked', reason });
    return { blocked: { plugin, reason }, input, decisions };
  };
  for (const plugin of plugins) {
    const hook = plugin.hooks?.before_tool_call;
    if (!hook) continue;
    let result: BeforeToolCallResult;
    try {
      result = await hook({ ...event, input });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return block(plugin.id, `the ${plugin.id} before_tool_call hook failed (${message}), so the call was blocked`);
    }
    if (result === undefined || result === null) {
      decisions.push({ plugin: plugin.id, decision: 'passed' });
      continue;
    }
    if (isRecord(result) && 'block' in result) {
      return block(plugin.id, typeof result['block'] === 'string' && result['block'].trim() ? result['block'] : `blocked by the ${plugin.id} plugin`);
    }
    if (isRecord(result) && 'input' in result) {
      input = result['input'];
      decisions.push({ plugin: plugin.id, decision: 'rewrote input' });
      continue;
    }
    return block(plugin.id, `the ${plugin.id} before_tool_call hook returned an unusable answer, so the call was blocked`);
  }
  return { input, decisions };
}

/** Which plugin kept a message out of the transcript; `failure` when its hook failed rather than asked for it. */
export interface MessageWriteOutcome {
  suppressedBy?: { plugin: string; failure?: string };
}

/** Runs every before_message_write hook for one row; the first suppression stops the chain. */
export function runBeforeMessageWriteHooks(plugins: readonly CodeModePlugin[], event: BeforeMessageWriteEvent): MessageWriteOutcome {
  for (const plugin of plugins) {
    const hook = plugin.hooks?.before_message_write;
    if (!hook) continue;
    let result: unknown;
    try {
      result = hook({ ...event, message: { ...event.message } });
    } catch (error) {
      return { suppressedBy: { plugin: plugin.id, failure: `the ${plugin.id} before_message_write hook failed (${error instanceof Error ? error.message : String(error)}), so the row was not written` } };
    }
    if (result === undefined || result === null) continue;
    if (isRecord(result) && result['suppress'] === true) return { suppressedBy: { plugin: plugin.id } };
    // a promise or any other answer: the hook could not say "write it" in time, so the row stays out
    return { suppressedBy: { plugin: plugin.id, failure: `the ${plugin.id} before_message_write hook returned an unusable answer (it must return { suppress: true } or nothing, synchronously), so the row was not written` } };
  }
  return {};
}

/** Runs every agent_end hook (each awaited in turn); a failure is reported to `report`, never thrown. */
export async function runAgentEndHooks(plugins: readonly CodeModePlugin[], event: AgentEndEvent, report: (message: string) => void): Promise<void> {
  for (const plugin of plugins) {
    const hook = plugin.hooks?.agent_end;
    if (!hook) continue;
    try {
      await hook({ ...event, activity: event.activity.map((a) => ({ ...a })) });
    } catch (error) {
      report(`the ${plugin.id} agent_end hook failed for turn ${event.agentRunId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
