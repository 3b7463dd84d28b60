// Core `sleep`: waits without work, so cells can exercise slow nested calls, timers and the waiting/wait path.
import { ToolError } from '../../errors.ts';
import type { ToolDefinition } from '../types.ts';

/** Ten minutes: longer than any exec deadline or snapshot TTL a demo would set, short enough to never leak a timer for hours. */
export const MAX_SLEEP_MS = 600_000;

export function createSleepTool(): ToolDefinition {
  return {
    name: 'sleep',
    description: `Wait \`ms\` milliseconds (0 to ${MAX_SLEEP_MS}), then return { sleptMs }. Canceled when the run is aborted.`,
    source: 'core',
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: MAX_SLEEP_MS, description: 'Milliseconds to wait.' } },
      required: ['ms'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { sleptMs: { type: 'integer' } },
      required: ['sleptMs'],
      additionalProperties: false,
    },
    execute(input, ctx) {
      const ms = (input as { ms: number }).ms;
      return new Promise((resolve, reject) => {
        const aborted = (): ToolError => new ToolError('sleep: canceled because the run was aborted.', 'aborted');
        if (ctx.signal.aborted) {
          reject(aborted());
          return;
        }
        const started = Date.now();
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(aborted());
        };
        const timer = setTimeout(() => {
          ctx.signal.removeEventListener('abort', onAbort);
          resolve({ sleptMs: Math.max(ms, Date.now() - started) });
        }, ms);
        ctx.signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
