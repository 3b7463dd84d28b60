// attack: a client forks its own waiting run with a reply nested 1,001 levels deep (past what any value may be)
// finding: issue 39, 7.2 (accepted by the fork, failing only at the wait)
import type { HttpTarget } from '../http-corpus.ts';
import { api, type Turn } from './kit.ts';

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const turn = (await api<Turn>(t.port, 'turns.prepare', {})).data!;
  // a call still pending when the cell parks: a long sleep (the run is aborted at the end)
  const parked = await api<{ status: string; runId: string; pendingToolCalls?: Array<{ id: string; tool: string }> }>(t.port, 'exec', {
    agentRunId: turn.agentRunId,
    turnToken: turn.turnToken,
    input: { code: 'const p = sleep({ ms: 600000 }); await yield_control("park"); return await p' },
  });
  const pending = parked.data?.pendingToolCalls?.find((c) => c.tool === 'sleep');
  if (parked.data?.status !== 'waiting' || !pending) return [`the run did not park with its sleep pending: ${JSON.stringify(parked).slice(0, 300)}`];
  let deep: unknown = 1;
  for (let i = 0; i < 1001; i++) deep = [deep];
  const fork = await api<{ runId: string }>(t.port, 'runs.fork', { runId: parked.data.runId, turnToken: turn.turnToken, replies: [{ id: pending.id, result: deep }] });
  if (fork.status !== 400 || !fork.message?.includes('nests deeper than 1000 levels')) problems.push(`the fork was not refused naming the depth: ${fork.status} ${fork.message?.slice(0, 200)}`);
  await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken });
  return problems;
}
