// Fixtures of the restart-recovery tests: a replay-safe read whose answer the test holds back, and the cells that park on it.
import { ToolError } from '../errors.ts';
import type { ToolDefinition } from '../tools/types.ts';

/** A restartSafe cell that parks on held_read (its exec deadline passes while the read is held) and returns what it read. */
export const RESTART_SAFE_CELL = 'const r = await held_read({ q: "inventory" });\nreturn { read: r.answer, calls: r.call };';
/** The same cell without restartSafe's promise: a run that is not rebuilt after a restart. */
export const ORDINARY_CELL = 'const r = await held_read({ q: "inventory" });\nreturn r.answer;';

/** A replay-safe read (`held_read`) that answers only once released: `release()` lets every call, held or later, answer. */
export interface HeldRead {
  tool: ToolDefinition;
  /** Calls so far (each re-dispatch after a restart counts). */
  calls(): number;
  release(): void;
}

export function heldRead(answer: string): HeldRead {
  let calls = 0;
  let released = false;
  const waiting = new Set<() => void>();
  const tool: ToolDefinition = {
    name: 'held_read',
    description: 'test: a read-only lookup that answers once the test releases it',
    source: 'core',
    replaySafe: true,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    execute: (_input, ctx) => {
      const call = ++calls;
      return new Promise((resolve, reject) => {
        const answerNow = () => resolve({ answer, call });
        if (released) return answerNow();
        waiting.add(answerNow);
        ctx.signal.addEventListener('abort', () => {
          waiting.delete(answerNow);
          reject(new ToolError('held_read: canceled', 'aborted'));
        }, { once: true });
      });
    },
  };
  return {
    tool,
    calls: () => calls,
    release() {
      released = true;
      for (const answerNow of waiting) answerNow();
      waiting.clear();
    },
  };
}
