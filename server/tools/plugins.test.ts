// Tests for runBeforeToolCallHooks: block, rewrite, chaining order, and fail-closed on broken hooks.
import { describe, expect, it } from 'vitest';
import { type BeforeToolCallEvent, type CodeModePlugin, runBeforeToolCallHooks } from './plugins.ts';

const event: BeforeToolCallEvent = {
  tool: 'read',
  source: 'core',
  input: { path: 'README.md' },
  agentId: 'main',
  sessionId: 's1',
  agentRunId: 'r1',
  invocationId: 'cell:1',
};

function plugin(id: string, hook?: NonNullable<CodeModePlugin['hooks']>['before_tool_call']): CodeModePlugin {
  return { id, tools: [], ...(hook ? { hooks: { before_tool_call: hook } } : {}) };
}

describe('runBeforeToolCallHooks', () => {
  it('records each hook\'s decision in order: passed, rewrote input, blocked (with the reason); none after a block', async () => {
    const outcome = await runBeforeToolCallHooks(
      [
        plugin('quiet', () => undefined),
        plugin('rewriter', () => ({ input: { path: 'b.md' } })),
        plugin('guard', () => ({ block: 'not today' })),
        plugin('after', () => undefined),
      ],
      event,
    );
    expect(outcome.decisions).toEqual([
      { plugin: 'quiet', decision: 'passed' },
      { plugin: 'rewriter', decision: 'rewrote input' },
      { plugin: 'guard', decision: 'blocked', reason: 'not today' },
    ]);
  });

  it('on no hooks: passes the input through', async () => {
    expect(await runBeforeToolCallHooks([plugin('a')], event)).toEqual({ input: event.input, decisions: [] });
  });

  it('on a block: names the plugin and its reason, and later hooks do not run', async () => {
    let laterRan = false;
    const outcome = await runBeforeToolCallHooks(
      [
        plugin('guard', () => ({ block: 'no reading today' })),
        plugin('later', () => {
          laterRan = true;
        }),
      ],
      event,
    );
    expect(outcome.blocked).toEqual({ plugin: 'guard', reason: 'no reading today' });
    expect(laterRan).toBe(false);
  });

  it('on rewrites: each hook sees the input the previous one returned', async () => {
    const seen: unknown[] = [];
    const outcome = await runBeforeToolCallHooks(
      [
        plugin('a', (e) => {
          seen.push(e.input);
          return { input: { path: 'notes/todo.md' } };
        }),
        plugin('b', async (e) => {
          seen.push(e.input);
          return { input: { ...(e.input as object), extra: 1 } };
        }),
      ],
      event,
    );
    expect(seen).toEqual([{ path: 'README.md' }, { path: 'notes/todo.md' }]);
    expect(outcome).toEqual({ input: { path: 'notes/todo.md', extra: 1 }, decisions: [{ plugin: 'a', decision: 'rewrote input' }, { plugin: 'b', decision: 'rewrote input' }] });
  });

  it('hands hooks the call identity (agent, session, run, invocation, source)', async () => {
    let received: BeforeToolCallEvent | undefined;
    await runBeforeToolCallHooks([plugin('spy', (e) => void (received = e))], { ...event, owner: 'x' });
    expect(received).toEqual({ ...event, owner: 'x' });
  });

  it('passes the outer code-mode exec markers through to hooks', async () => {
    let received: BeforeToolCallEvent | undefined;
    const outer: BeforeToolCallEvent = { ...event, tool: 'exec', input: { code: '1' }, toolKind: 'code_mode_exec', toolInputKind: 'typescript' };
    await runBeforeToolCallHooks([plugin('spy', (e) => void (received = e))], outer);
    expect(received?.toolKind).toBe('code_mode_exec');
    expect(received?.toolInputKind).toBe('typescript');
  });

  it('on a hook that throws: blocks the call (fail closed) and says which hook', async () => {
    const outcome = await runBeforeToolCallHooks([plugin('flaky', () => { throw new Error('db down'); })], event);
    expect(outcome.blocked?.plugin).toBe('flaky');
    expect(outcome.blocked?.reason).toContain('db down');
  });

  it('on a malformed answer: blocks the call', async () => {
    const outcome = await runBeforeToolCallHooks([plugin('odd', () => 'yes' as never)], event);
    expect(outcome.blocked?.plugin).toBe('odd');
  });
});
