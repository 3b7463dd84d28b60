// attack: a keyless client parks cells in several turns until it holds every suspended-run slot it can, so other clients' cells that call a tool fail runtime_unavailable
// finding: issue 39, 1 (suspended slots were shared per turn only: one client with 4 turns parked all 64)
import type { HttpTarget } from '../http-corpus.ts';
import { api, type Turn } from './kit.ts';

const PARK = 'await yield_control("park"); return 1';

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const turns: Turn[] = [];
  for (let i = 0; i < 3; i++) turns.push((await api<Turn>(t.port, 'turns.prepare', {})).data!);
  let parked = 0;
  let refused: string | undefined;
  for (let i = 0; i < 40 && refused === undefined; i++) {
    const turn = turns[i % turns.length]!;
    const r = await api<{ status: string; error?: string }>(t.port, 'exec', { agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: PARK } });
    if (r.data?.status === 'waiting') parked++;
    else refused = r.data?.error ?? r.message;
  }
  if (refused === undefined) problems.push(`the keyless client parked ${parked} runs without meeting its share`);
  else if (!refused.includes('server.shares.anonymous.suspendedRuns')) problems.push(`the refusal does not name the share: ${refused}`);
  // a client with its own key still parks (and calls tools) while the keyless ones hold their whole share
  const mine = (await api<Turn>(t.port, 'turns.prepare', {}, { auth: t.key })).data;
  const parkedToo = mine && (await api<{ status: string }>(t.port, 'exec', { agentRunId: mine.agentRunId, turnToken: mine.turnToken, input: { code: PARK } }, { auth: t.key }));
  if (parkedToo?.data?.status !== 'waiting') problems.push(`a keyed client could not park a run beside them: ${JSON.stringify(parkedToo)}`);
  for (const turn of [...turns, ...(mine ? [mine] : [])]) await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken }, turn === mine ? { auth: t.key } : {});
  return problems;
}
