// The plugin contract (bundled and external plugins alike) and the before_tool_call hook runner.
//
// A plugin contributes tools and, optionally, a before_tool_call hook. Hooks run
// in plugin load order (bundled, then external) before every tool call: each
// sees the input as rewritten by the hooks before it; the first block stops the
// chain. A hook that throws or returns a malformed answer blocks the call
// (fail closed): a policy hook that cannot decide must not let the call through.
import type { GatewayConfig } from '../config/types.ts';
import type { ToolDefinition, ToolSource } from './types.ts';
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

export interface CodeModePlugin {
  id: string;
  tools: ToolDefinition[] | ((ctx: PluginContext) => ToolDefinition[] | Promise<ToolDefinition[]>);
  hooks?: { before_tool_call?: BeforeToolCallHook };
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
