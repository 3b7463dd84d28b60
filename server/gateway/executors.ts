// The executors a Gateway runs cells on: started on first use (or at warm-up), closed with the Gateway unless a caller lent them.
import { agentCodeModeOptions } from '../config/activation.ts';
import type { ExecutorKind, GatewayConfig } from '../config/types.ts';
import { CodeModeError } from '../errors.ts';
import type { Executor } from '../executors/types.ts';

export class ExecutorSet {
  private readonly executors = new Map<ExecutorKind, Executor>();

  /** `lent`: executors the caller owns (tests share one pool across gateways); close() leaves them running. */
  constructor(private readonly lent: Partial<Record<ExecutorKind, Executor>> = {}) {
    for (const [kind, ex] of Object.entries(lent)) if (ex) this.executors.set(kind as ExecutorKind, ex);
  }

  /** Whether the executor of `kind` was started (or lent) already. */
  has(kind: ExecutorKind): boolean {
    return this.executors.has(kind);
  }

  /** The executor of `kind`, started now if needed; runtime_unavailable with the reason when it cannot start. */
  async get(kind: ExecutorKind): Promise<Executor> {
    const existing = this.executors.get(kind);
    if (existing) return existing;
    let ex: Executor;
    try {
      if (kind === 'quickjs') {
        const { QuickJsExecutor } = await import('../executors/quickjs/executor.ts');
        ex = new QuickJsExecutor();
      } else if (kind === 'node') {
        const mod = await import('../executors/node/executor.ts').catch(() => undefined);
        if (!mod) throw new Error('the node executor is not part of this build');
        ex = new mod.NodeExecutor();
      } else if (kind === 'quickjs-emscripten') {
        const { EmscriptenExecutor } = await import('../executors/emscripten/executor.ts');
        ex = new EmscriptenExecutor();
      } else {
        throw new Error(`unknown executor "${String(kind)}"`);
      }
    } catch (err) {
      throw new CodeModeError('runtime_unavailable', `the ${kind} executor cannot start: ${(err as Error).message}`);
    }
    this.executors.set(kind, ex);
    return ex;
  }

  /** Closes the executors this set started. */
  async close(): Promise<void> {
    const own = [...this.executors.entries()].filter(([k]) => !this.lent[k]);
    await Promise.all(own.map(([, ex]) => ex.close()));
  }
}

/**
 * Start the executors the configured agents use and wait until they are warm (QuickJS: workers started, idle
 * instances resident, warm-up cells run; Node and quickjs-emscripten: one worker started for each agent's memory
 * budget), so the first cell costs what a warm one does.
 */
export async function warmUpExecutors(executors: ExecutorSet, config: GatewayConfig): Promise<void> {
  const budgets = new Map<string, { kind: ExecutorKind; memoryLimitBytes: number }>();
  for (const a of config.agents.list) {
    const { executor: kind, memoryLimitBytes } = agentCodeModeOptions(config, a);
    budgets.set(`${kind}#${memoryLimitBytes}`, { kind, memoryLimitBytes });
  }
  await Promise.all([...budgets.values()].map(async ({ kind, memoryLimitBytes }) => (await executors.get(kind)).ready?.({ memoryLimitBytes })));
}
