// Finds the Node executor if this build has one that starts and runs a cell; otherwise says why its rows are skipped.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Executor } from '../server/executors/types.ts';
import { expectStatus, openGateway } from './harness.ts';

export type NodeExecutorProbe =
  | { available: true; create: () => Promise<Executor> }
  | { available: false; reason: string };

const NODE_EXECUTOR_URL = new URL('../server/executors/node/executor.ts', import.meta.url);

/**
 * Loads server/executors/node/executor.ts by path (it may not exist yet: it is built in parallel),
 * constructs a NodeExecutor with its defaults and runs `return 1` through a Gateway.
 */
export async function probeNodeExecutor(): Promise<NodeExecutorProbe> {
  const path = fileURLToPath(NODE_EXECUTOR_URL);
  if (!existsSync(path)) return { available: false, reason: 'server/executors/node/executor.ts does not exist in this build' };
  let ctor: new () => Executor;
  try {
    // a computed specifier: the file is optional, so the type checker must not require it
    const specifier = NODE_EXECUTOR_URL.href;
    const mod: unknown = await import(specifier);
    const candidate = typeof mod === 'object' && mod !== null ? (mod as Record<string, unknown>).NodeExecutor : undefined;
    if (typeof candidate !== 'function') return { available: false, reason: 'server/executors/node/executor.ts exports no NodeExecutor class' };
    ctor = candidate as new () => Executor;
  } catch (err) {
    return { available: false, reason: `server/executors/node/executor.ts failed to load: ${firstLine(err)}` };
  }
  const create = async (): Promise<Executor> => {
    const ex = new ctor();
    const ready = (ex as Executor & { ready?: () => Promise<void> }).ready;
    if (typeof ready === 'function') await ready.call(ex);
    return ex;
  };
  let ex: Executor | undefined;
  try {
    ex = await create();
    const gw = await openGateway('node', ex);
    try {
      const t = gw.prepareTurn({});
      const r = expectStatus(await gw.exec(t.agentRunId, { code: 'return 1' }), 'completed', 'node executor smoke cell');
      if (r.value !== 1) return { available: false, reason: `the Node executor ran \`return 1\` and returned ${JSON.stringify(r.value)}` };
    } finally {
      await gw.close();
    }
  } catch (err) {
    return { available: false, reason: `the Node executor does not run a cell yet: ${firstLine(err)}` };
  } finally {
    await ex?.close().catch(() => undefined);
  }
  return { available: true, create };
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? message;
}
